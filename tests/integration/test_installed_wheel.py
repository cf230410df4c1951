"""Issue 26: a built package carries every ruleset's pages, catalogs and data, and finds its rulesets through their
entry points. The project's wheel and the fake ruleset's are built and installed into a fresh virtual environment
outside the source tree; the service started from there (``emissary serve`` on SQLite) creates a game of every
installed ruleset and renders each one's console for its GM and board for a seat, from the installed templates.

The new environment reads its dependencies from this one's site-packages (a path after its own, where no editable
finder runs), so nothing is downloaded; the test checks that ``api``, ``domain`` and the fake ruleset are imported
from the new environment, not from the source tree.

Issue 27: the project is built as an operator builds it, ``python -m build`` (an sdist, and the wheel built from that
sdist), and a wheel built straight from the source carries the same files; from the installed wheel the production
topology runs on the real PostgreSQL (a scratch database) and a Redis of its own: ``emissary migrate``, ``serve``,
``worker``, ``beat``, ``projector`` and ``smtpd``, every ruleset's board and console rendered over HTTP and a turn
mailed to the smtpd and recorded."""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import os
import shutil
import smtplib
import socket
import subprocess
import sys
import sysconfig
import time
import tomllib
import urllib.error
import urllib.request
import uuid
import zipfile
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAKE = ROOT / "tests" / "plugins" / "emissary-fake"

pytestmark = pytest.mark.integration  # builds two wheels and starts a server: slow, never skipped

# How a seat joins each ruleset's table (by the JSON API, as its GM), and what only its own templates print.
SEATS: dict[str, tuple[str, dict]] = {
    "powers": ("powers", {"name": "Wiz", "cls": "champion", "subclass": "wizard"}),
    "covenants": ("commands", {"command": "AddCovenant", "args": {"seat_id": "ann", "name": "Ann", "covenant": "Ax"}}),
    "lodge": ("commands", {"command": "AddMage", "args": {"mage_id": "ann", "name": "Ann", "colour": "red"}}),
    "table": ("commands", {"command": "Join", "args": {"seat_id": "ann", "name": "Ann"}}),
}
PAGES: dict[str, tuple[str, str]] = {  # (in the GM's console, in a seat's board)
    "powers": ('id="calendar"', 'id="sheet"'),  # console.html, board.html
    "covenants": ('id="track"', 'id="track"'),  # table.html
    "lodge": ('id="rooms"', 'id="rooms"'),  # board.html
    "table": ("This game&#39;s ruleset has no pages yet", "This game&#39;s ruleset has no pages yet"),
}


def left_out(folder: str, names: list[str]) -> list[str]:
    """What of a folder is not the source: builds, caches, the venv, and at the top the service's data."""
    top = {"data", "test-output", "node_modules"} if Path(folder) == ROOT else set()
    return [n for n in names if n[0] == "." or n in {"build", "__pycache__", *top} or n.endswith(".egg-info")]


def wheel_files(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as whl:
        return sorted(name for name in whl.namelist() if not name.endswith("/"))


def package_files(source: Path) -> list[str]:
    """Every file of the packages pyproject.toml lists, as the source has them: code, templates, catalogs, static
    files, card catalogues, rules packages, migrations; what the service reads at run time."""
    listed = tomllib.loads((source / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    out = []
    for top in (p.rstrip("*") for p in listed["include"]):
        for path in (source / top).rglob("*"):
            parts = path.relative_to(source).parts
            if path.is_file() and "__pycache__" not in parts and not path.name.endswith((".pyc", ".mo")):
                out.append("/".join(parts))
    return sorted(out)


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (argv, done.stdout[-2000:], done.stderr[-4000:])
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the two wheels installed; its python."""
    tmp = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    # Built from a copy: setuptools builds in the project's folder, and a build/ left there by an earlier build
    # would carry files the source no longer has into this one.
    source = tmp / "source"
    shutil.copytree(ROOT, source, ignore=left_out)
    wheels = tmp / "wheels"
    # The project as released: `python -m build` makes the sdist, then the wheel from the sdist; a second build
    # straight from the source (`--wheel`) must carry the same files, so the sdist leaves nothing out.
    run([sys.executable, "-m", "build", "--outdir", str(wheels), str(source)], tmp, env)
    direct = tmp / "direct"
    run([sys.executable, "-m", "build", "--wheel", "--outdir", str(direct), str(source)], tmp, env)
    (from_sdist,), (from_source,) = wheels.glob("emissary-*.whl"), direct.glob("emissary-*.whl")
    assert len(list(wheels.glob("emissary-*.tar.gz"))) == 1
    assert wheel_files(from_sdist) == wheel_files(from_source), set(wheel_files(from_sdist)) ^ set(
        wheel_files(from_source)
    )
    missing = sorted(set(package_files(source)) - set(wheel_files(from_sdist)))
    assert not missing, f"the wheel leaves out what the service reads: {missing}"
    fake = source / FAKE.relative_to(ROOT)  # the tests' own ruleset: setuptools for the build: pip's cache
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(fake)], tmp, env)
    venv = tmp / "venv"
    run([sys.executable, "-m", "venv", str(venv)], tmp, env)
    python = venv / "bin" / "python"
    built = sorted(str(w) for w in wheels.glob("*.whl"))
    assert len(built) == 2, built
    run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", *built], tmp, env)
    purelib = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp, env).strip()
    (Path(purelib) / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def test_the_installed_package_is_imported_from_the_new_environment_and_finds_every_ruleset(installed, tmp_path):
    code = (
        "import json, api, domain, emissary_fake, domain.rulesets as r\n"
        "print(json.dumps({'files': [api.__file__, domain.__file__, emissary_fake.__file__],"
        " 'plugins': [p.ruleset.name for p in r.PLUGINS], 'listed': [x.name for x in r.INSTALLED]}))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = json.loads(run([str(installed), "-c", code], tmp_path, env))
    venv = installed.parents[1]
    assert all(Path(f).is_relative_to(venv) for f in out["files"]), out["files"]
    assert out["plugins"] == ["powers", "covenants", "lodge", "table"]
    assert out["listed"] == ["powers", "covenants", "lodge"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """HTTP to the served app: JSON calls with a bearer token, and a browser's cookie jar for the pages."""

    def __init__(self, base: str) -> None:
        self.base = base

    def json(self, path: str, body: dict, token: str | None = None) -> dict:
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
        request = urllib.request.Request(self.base + path, json.dumps(body).encode(), headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as err:
            raise AssertionError((path, body, err.code, err.read().decode())) from None

    def page(self, game_id: str, token: str, language: str = "en") -> tuple[int, str]:
        """Sign in with a secret link in a fresh browser, and read the page it lands on."""
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        browser.addheaders = [("Accept-Language", language)]
        try:
            with browser.open(f"{self.base}/signin/{game_id}/{token}", timeout=30) as response:
                assert response.url.endswith(f"/play/{game_id}"), response.url
                return response.status, response.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()


def serve(procs, python: Path, tmp: Path) -> Client:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(EMISSARY_DATA_DIR=str(tmp / "data"), EMISSARY_DATABASE_URL="", EMISSARY_LOG_LEVEL="WARNING")
    log = open(tmp / "serve.log", "w")  # noqa: SIM115 - the server writes here until it is stopped
    procs.start(
        [str(python.parent / "emissary"), "serve", "--port", str(port)], cwd=tmp, env=env, stdout=log, stderr=log
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(base + "/health", timeout=5) as response:
                if response.status == 200:
                    return Client(base)
        except OSError:
            pass
        assert time.monotonic() < deadline, (tmp / "serve.log").read_text()[-4000:]
        time.sleep(0.3)


def test_the_installed_service_renders_every_rulesets_console_and_board(installed, tmp_path, procs):
    client = serve(procs, installed, tmp_path)
    for ruleset, (route, body) in SEATS.items():
        created = client.json("/games", {"name": f"Wheel {ruleset}", "ruleset": ruleset})
        game_id, gm = created["game_id"], created["gm_token"]
        added = client.json(f"/games/{game_id}/{route}", body, gm)
        seat = added.get("power_id") or "ann"
        token = added.get("token") or client.json(f"/games/{game_id}/seats/{seat}/token", {}, gm)["token"]
        for who, secret, marker in (("gm", gm, PAGES[ruleset][0]), (seat, token, PAGES[ruleset][1])):
            status, page = client.page(game_id, secret)
            assert status == 200 and "TemplateNotFound" not in page, (ruleset, who, status, page[-2000:])
            assert marker in page, (ruleset, who, page[-3000:])
        status, page = client.page(game_id, gm, language="de")  # the German catalog is installed too
        marker = PAGES[ruleset][0] if PAGES[ruleset][0].startswith("id=") else ""  # not the English message
        assert status == 200 and '<html lang="de">' in page and marker in page, (ruleset, page[:500])
        # Issue 28: its help page, and the rules text its package ships (every ruleset but the tests' table)
        with urllib.request.urlopen(f"{client.base}/help/{ruleset}", timeout=30) as response:
            assert 'id="commands"' in response.read().decode(), ruleset
        if ruleset != "table":
            with urllib.request.urlopen(f"{client.base}/help/{ruleset}/rules", timeout=30) as response:
                assert 'id="line-1"' in response.read().decode(), ruleset
        with urllib.request.urlopen(f"{client.base}/help/{ruleset}/decisions", timeout=30) as response:
            decided = response.read().decode()  # its decisions text ships in its package, the platform's in api.help
            assert "GameBlocked" in decided and ("ships no decisions" in decided) == (ruleset == "table"), ruleset


@pytest.fixture
def scratch_database(pg_available) -> Iterator[str]:
    """A PostgreSQL database of this test's own (a unique name), dropped afterwards with whatever still holds it."""
    with scratch() as url:
        yield url


@contextlib.contextmanager
def scratch() -> Iterator[str]:
    import psycopg

    from tests.conftest import PG_URL

    base = PG_URL.split("?")[0]
    name = f"emissary_wheel_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield base.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def wait_until(what, timeout: float, logs) -> object:
    deadline = time.monotonic() + timeout
    while not (found := what()):
        assert time.monotonic() < deadline, logs()
        time.sleep(0.3)
    return found


def test_the_installed_wheel_runs_the_production_topology(installed, tmp_path, procs, scratch_database, private_redis):
    # Every process runs from the installed wheel's `emissary`, in a folder outside the source tree, with nothing of
    # the source on sys.path; each in its own process group, stopped with its children by `procs` (a finally).
    emissary = str(installed.parent / "emissary")
    work = tmp_path / "run"
    work.mkdir()
    port, smtpd_port = free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    domain = "wheel.example.org"
    env = {k: v for k, v in os.environ.items() if not k.startswith("EMISSARY_") and k not in ("PYTHONPATH",)}
    env.update(
        EMISSARY_DATABASE_URL=scratch_database,
        EMISSARY_BROKER_URL=private_redis,
        EMISSARY_DATA_DIR=str(work / "data"),
        EMISSARY_PORT=str(port),
        EMISSARY_PUBLIC_URL=base,
        EMISSARY_SMTPD_PORT=str(smtpd_port),
        EMISSARY_MAIL_DOMAIN=domain,
        EMISSARY_SMTP_PORT=str(free_port()),  # nobody listens: the outbox keeps what it could not send
        EMISSARY_SWEEP_SECONDS="1",
        EMISSARY_LOG_LEVEL="WARNING",
        EMISSARY_RATELIMIT_CREATE_GAME="1000/minute",
        # small pools: six processes (and the worker's child) share the machine's PostgreSQL with other tests
        EMISSARY_DB_POOL_SIZE="1",
        EMISSARY_DB_MAX_OVERFLOW="1",
        EMISSARY_READMODEL_POOL_SIZE="2",
        PYTHONUNBUFFERED="1",
    )
    logdir = tmp_path / "logs"
    logdir.mkdir()

    def start(name: str, *args: str):
        with open(logdir / f"{name}.log", "w") as log:
            return procs.start([emissary, *args], cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)

    def logs() -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(logdir.glob("*.log")))

    migrate = start("migrate", "migrate")
    assert migrate.wait(120) == 0, logs()
    assert "schema at revision" in (logdir / "migrate.log").read_text(), logs()
    services = {
        "api": start("api", "serve", "--port", str(port), "--no-access-log"),
        "worker": start("worker", "worker", "--concurrency", "1"),
        "beat": start("beat", "beat", "--schedule", str(work / "beat-schedule")),
        "projector": start("projector", "projector"),
        "smtpd": start("smtpd", "smtpd", "--host", "127.0.0.1", "--port", str(smtpd_port)),
    }

    def answers() -> dict | None:
        try:
            with urllib.request.urlopen(base + "/health", timeout=5) as response:
                return json.loads(response.read())
        except OSError:
            assert services["api"].poll() is None, logs()
            return None

    health = wait_until(answers, 90, logs)
    version = run([str(installed), "-c", "import importlib.metadata as m; print(m.version('emissary'))"], work, env)
    assert health == {"status": "ok", "version": version.strip()}
    assert run([emissary, "--version"], work, env).strip() == f"emissary {version.strip()}"
    client = Client(base)
    mailed = None
    for ruleset, (route, body) in SEATS.items():  # every ruleset's console and board, from the installed pages
        created = client.json("/games", {"name": f"Topology {ruleset}", "ruleset": ruleset})
        game_id, gm = created["game_id"], created["gm_token"]
        added = client.json(f"/games/{game_id}/{route}", body, gm)
        seat = added.get("power_id") or "ann"
        token = added.get("token") or client.json(f"/games/{game_id}/seats/{seat}/token", {}, gm)["token"]
        for who, secret, marker in (("gm", gm, PAGES[ruleset][0]), (seat, token, PAGES[ruleset][1])):
            status, page = client.page(game_id, secret)
            assert status == 200 and marker in page, (ruleset, who, status, page[-2000:], logs())
        if ruleset == "powers":
            mailed = (game_id, gm, token)
    assert mailed is not None
    # One turn by mail, through the smtpd: a real SMTP exchange to the seat's secret reply address.
    game_id, gm, token = mailed
    message = EmailMessage()
    message["From"], message["To"] = "wiz@example.org", f"turns+{game_id}.{token}@{domain}"
    message["Subject"], message["Message-ID"] = "My turn", f"<wheel-{uuid.uuid4().hex}@example.org>"
    message.set_content("say: hello from the installed wheel\n")
    with smtplib.SMTP("127.0.0.1", smtpd_port, timeout=30) as smtp:
        refused = smtp.send_message(message)
    assert refused == {}

    def posted() -> bool:
        request = urllib.request.Request(
            f"{base}/games/{game_id}/threads/table/posts", headers={"Authorization": f"Bearer {gm}"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return "hello from the installed wheel" in response.read().decode()

    wait_until(posted, 60, logs)
    for name, proc in services.items():  # and every service is still up
        assert proc.poll() is None, (name, logs())
