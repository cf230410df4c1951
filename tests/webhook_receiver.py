"""A webhook receiver on loopback for the tests (issue 31): a real HTTP server in a thread that keeps every request
it is sent and answers each path with the statuses it is told to, then 200."""

from __future__ import annotations

import json
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    """``answers[path]``: the statuses the next requests to ``path`` get (then 200); ``got``: every request."""

    def __init__(self, tls: tuple[str, str] | None = None) -> None:
        self.got: list[dict] = []
        self.answers: dict[str, list[int]] = {}
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver.lock:
                    receiver.got.append({"path": self.path, "headers": dict(self.headers), "raw": body})
                    pending = receiver.answers.get(self.path) or []
                    status = pending.pop(0) if pending else 200
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("Location", "http://127.0.0.1:9/elsewhere")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.scheme = "http"
        if tls is not None:  # (certificate file, key file): HTTPS
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.scheme = "https"
        self.thread = threading.Thread(target=self.server.serve_forever, name="webhook-receiver", daemon=True)

    def start(self) -> Receiver:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.server.server_address[1]}{path}"

    def bodies(self, path: str) -> list[dict]:
        """The JSON bodies sent to ``path``, in order."""
        with self.lock:
            return [json.loads(r["raw"]) for r in self.got if r["path"] == path]

    def requests(self, path: str) -> list[dict]:
        with self.lock:
            return [r for r in self.got if r["path"] == path]
