"""A local SMTP sink (a real SMTP server on loopback, aiosmtpd) that keeps what it receives."""

from __future__ import annotations

import email
import time
from email import policy

from aiosmtpd.controller import Controller

from tests.integration.topology import free_port


class Sink:
    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []
        self.port = free_port()
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server, session, envelope) -> str:
        msg = email.message_from_bytes(envelope.content, policy=policy.default)
        msg["X-Rcpt"] = ",".join(envelope.rcpt_tos)
        self.messages.append(msg)
        return "250 OK"

    def start(self) -> "Sink":
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()

    def wait_for(self, n: int, timeout: float = 15) -> list:
        deadline = time.time() + timeout
        while len(self.messages) < n and time.time() < deadline:
            time.sleep(0.05)
        return self.messages

    def to(self, address: str) -> list:
        return [m for m in self.messages if address in m["X-Rcpt"]]

    @staticmethod
    def text(msg) -> str:
        return msg.get_body(preferencelist=("plain",)).get_content()
