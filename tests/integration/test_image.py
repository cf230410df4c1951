"""Issue 27: the image. No container engine runs here, so deploy/Dockerfile is read: its build stage makes the wheel
(``python -m build``), its run stage installs only that wheel and runs as a user of its own; and the run stage's
environment, with docker-compose.yml's per-service commands and health checks, is run against the wheel installed in
a fresh virtual environment made read-only, by a user who may not write it (root without any capability, when the
test runs as root), on a scratch PostgreSQL database and a Redis of its own. docker-compose.yml is checked
against the Compose Specification's JSON schema (``data/compose-spec.json``, vendored from compose-spec/compose-spec
``schema/compose-spec.json`` at commit 170098ba07d9f53c383a41bfd4c5166b0a4529a6, Apache-2.0), as ``docker compose``
reads it.

What the containers would change, and only that, is changed here: a listening address 0.0.0.0 becomes 127.0.0.1,
the ports (8000, 2525) free ones, the folder /data a temporary one, and the hosts postgres and redis this machine's."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.integration.test_deploy import production_env
from tests.integration.test_installed_wheel import left_out, run, scratch
from tests.integration.topology import ROOT, free_port

DEPLOY = ROOT / "deploy"
COMPOSE = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
SCHEMA = Path(__file__).parent / "data" / "compose-spec.json"


def instructions(dockerfile: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, its arguments) of a Dockerfile, continued lines joined, comments left out."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in dockerfile.read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line.rstrip().removesuffix("\\") + " " if line.rstrip().endswith("\\") else line
        if not line.rstrip().endswith("\\"):
            word, _, rest = pending.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
            pending = ""
    return out


def stages() -> list[list[tuple[str, str]]]:
    out: list[list[tuple[str, str]]] = []
    for word, rest in instructions(DEPLOY / "Dockerfile"):
        if word == "FROM":
            out.append([])
        out[-1].append((word, rest))
    return out


def run_stage() -> dict:
    """What a container of the image starts with: the last stage's ENV, USER, WORKDIR, ENTRYPOINT and CMD."""
    env: dict[str, str] = {}
    image: dict = {"env": env, "user": "root", "workdir": "/", "entrypoint": [], "cmd": []}
    for word, rest in stages()[-1]:
        if word == "ENV":
            env.update(pair.split("=", 1) for pair in shlex.split(rest))
        elif word == "USER":
            image["user"] = rest
        elif word == "WORKDIR":
            image["workdir"] = rest
        elif word in ("CMD", "ENTRYPOINT"):
            image[word.lower()] = json.loads(rest)  # the exec form: no shell between the signal and the process
    return image


def test_the_image_builds_the_wheel_in_one_stage_and_installs_only_it_in_the_next():
    build, final = stages()[0], stages()[-1]
    assert len(stages()) == 2 and build[0][1].endswith(" AS build"), stages()
    assert any(w == "RUN" and "python -m build --wheel" in r for w, r in build)
    copies = [r for w, r in final if w in ("COPY", "ADD")]
    assert copies and all(r.startswith("--from=build ") for r in copies), copies  # no source in the run stage
    installs = [r for w, r in final if w == "RUN" and "pip install" in r]
    assert len(installs) == 1 and ".whl" in installs[0], installs
    image = run_stage()
    assert image["user"].split(":")[0] not in ("root", "0") and image["entrypoint"] == []
    assert image["cmd"] == COMPOSE["services"]["api"]["command"]  # the image alone runs the API as compose does
    assert not [w for stage in stages() for w, _ in stage if w == "HEALTHCHECK"]  # each service has its own


def test_the_compose_file_is_valid_by_the_compose_specification():
    import jsonschema

    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text()))
    errors = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(COMPOSE)]
    assert not errors, errors
    misspelt = {**COMPOSE, "services": {**COMPOSE["services"], "api": {**COMPOSE["services"]["api"], "comand": []}}}
    assert list(validator.iter_errors(misspelt))  # the schema does refuse what compose would refuse


@pytest.fixture(scope="module")
def image_install() -> Iterator[Path]:
    """The run stage, outside a container: the wheel the build stage makes, installed (with nothing else) in a fresh
    virtual environment that the services' user may not write; its bin folder. Dependencies are read from this
    environment's site-packages (a .pth), so nothing is downloaded."""
    top = Path(tempfile.mkdtemp(prefix="emissary-image-"))  # not under pytest's folder: nobody could not reach it
    top.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    venv = top / "venv"
    try:
        source = top / "src"
        shutil.copytree(ROOT, source, ignore=left_out)
        run([sys.executable, "-m", "build", "--wheel", "--outdir", str(top / "dist"), str(source)], top, env)
        # The tests' own ruleset too: the dependencies' folder (this environment's) lists its entry point, and its
        # editable finder does not run there.
        fake = source / "tests" / "plugins" / "emissary-fake"
        run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(top / "dist"), str(fake)], top, env
        )
        run([sys.executable, "-m", "venv", str(venv)], top, env)
        python = venv / "bin" / "python"
        wheels = [str(w) for w in (top / "dist").glob("*.whl")]
        run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", *wheels], top, env)
        purelib = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], top, env)
        (Path(purelib.strip()) / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        shutil.rmtree(source)
        subprocess.run(["chmod", "-R", "a-w", str(venv)], check=True)  # the install belongs to nobody who runs it
        yield venv / "bin"
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(top)], check=False)
        shutil.rmtree(top, ignore_errors=True)


@pytest.fixture
def image_database(pg_available) -> Iterator[str]:
    """A PostgreSQL database of this test's own, dropped afterwards."""
    with scratch() as url:
        yield url


def as_user() -> list[str]:
    """The prefix that runs a command as a user who may not write the install. Not root: this user (the install is
    read-only). Root: root without any capability (no CAP_DAC_OVERRIDE), for whom the read-only install is read-only
    too; not nobody, who cannot reach this machine's Python under /root (uvicorn's and Celery's children exec it)."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]


@pytest.mark.integration
def test_the_images_commands_run_from_the_installed_wheel_as_a_user_who_may_not_write_it(
    image_install, image_database, private_redis, procs
):
    image = run_stage()
    top = Path(tempfile.mkdtemp(prefix="emissary-run-"))
    top.chmod(0o755)
    data, home, logdir = top / "data", top / "home", top / "logs"
    for folder in (data, home, logdir):
        folder.mkdir()
    user = as_user()
    port, smtpd_port = free_port(), free_port()

    def local(word: str) -> str:
        word = word.replace("0.0.0.0", "127.0.0.1").replace("2525", str(smtpd_port))
        return str(data) + word.removeprefix("/data") if word.startswith("/data") else word

    compose = production_env(image_database, data, private_redis.removesuffix("/0"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("EMISSARY_")}
    env = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update({k: local(v) for k, v in image["env"].items()})  # the image's ENV, then compose's environment
    env.update({k: local(v) for k, v in compose.items()})
    env.update(
        PATH=f"{image_install}:{env['PATH']}",  # `emissary` is the installed wheel's, as on the image's PATH
        HOME=str(home),
        EMISSARY_PORT=str(port),  # the API's own port (8000 in a container)
        EMISSARY_DB_POOL_SIZE="1",  # small pools: the machine's PostgreSQL is shared
        EMISSARY_DB_MAX_OVERFLOW="1",
        EMISSARY_READMODEL_POOL_SIZE="2",
        EMISSARY_SWEEP_SECONDS="1",
        PYTHONUNBUFFERED="1",
    )
    assert env["EMISSARY_ENV"] == "production" and env["EMISSARY_DATA_DIR"] == str(data)
    site = subprocess.run(
        [
            *user,
            str(image_install / "python"),
            "-c",
            "import api, pathlib; p = pathlib.Path(api.__file__).parent / 'x'; p.write_text('')",
        ],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
    )
    assert site.returncode != 0 and "Permission denied" in site.stderr, site  # the install may not be written
    services = {name: s for name, s in COMPOSE["services"].items() if "build" in s}

    def start(name: str, command: list[str]):
        with open(logdir / f"{name}.log", "w") as log:
            return procs.start(
                [*user, *(local(w) for w in command)], cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT
            )

    def logs() -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(logdir.glob("*.log")))

    try:
        migrate = start("migrate", services.pop("migrate")["command"])
        assert migrate.wait(120) == 0, logs()
        running = {name: start(name, service["command"]) for name, service in services.items()}
        for name, service in services.items():  # every service's own health check, as compose runs it
            test = service["healthcheck"]["test"]
            argv = [*user, *(local(w) for w in test[1:])] if test[0] == "CMD" else [*user, "sh", "-c", local(test[1])]
            deadline = time.monotonic() + 120
            while True:
                done = subprocess.run(argv, cwd=home, env=env, capture_output=True, text=True, timeout=60)
                if done.returncode == 0:
                    break
                assert time.monotonic() < deadline, (name, done.stdout, done.stderr, logs())
                assert running[name].poll() is None, (name, logs())
                time.sleep(1)
            assert done.stdout.strip() == f"{name}: ok", (name, done.stdout)
        for name, proc in running.items():
            assert proc.poll() is None, (name, logs())
    finally:
        procs.close()
        shutil.rmtree(top, ignore_errors=True)
