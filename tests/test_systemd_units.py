"""deploy/systemd/: one unit per service, each running an existing ``emissary`` subcommand as the unprivileged user,
its settings from one environment file, restarted on failure, and stopped with every process of its group
(issue 27)."""

from __future__ import annotations

import argparse
import configparser
import shlex
from pathlib import Path

import pytest

from api.cli import build_parser

UNITS = Path(__file__).resolve().parents[1] / "deploy" / "systemd"
SERVICES = {"api": "serve", "worker": "worker", "beat": "beat", "projector": "projector", "smtpd": "smtpd"}


def read(path: Path) -> configparser.RawConfigParser:
    unit = configparser.RawConfigParser(strict=False, interpolation=None, comment_prefixes=("#", ";"))
    unit.optionxform = str  # type: ignore[assignment,method-assign]  # systemd's keys are case-sensitive
    unit.read_string(path.read_text())
    return unit


def subcommands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_there_is_a_unit_per_service_and_one_for_the_migration():
    assert {p.name for p in UNITS.glob("*.service")} == {f"emissary-{s}.service" for s in [*SERVICES, "migrate"]}


@pytest.mark.parametrize("path", sorted(UNITS.glob("*.service")), ids=lambda p: p.stem)
def test_each_unit_runs_an_emissary_subcommand_its_parser_accepts(path):
    service = read(path)["Service"]
    argv = shlex.split(service["ExecStart"])
    assert Path(argv[0]).is_absolute() and Path(argv[0]).name == "emissary", argv
    commands = subcommands()
    assert argv[1] in commands, f"{path.name}: no `emissary {argv[1]}`"
    commands[argv[1]].parse_args(argv[2:])  # every option it passes exists (argparse exits on an unknown one)
    name = path.stem.removeprefix("emissary-")
    assert argv[1] == SERVICES.get(name, name)


@pytest.mark.parametrize("path", sorted(UNITS.glob("*.service")), ids=lambda p: p.stem)
def test_each_unit_runs_unprivileged_and_stops_its_whole_group(path):
    unit = read(path)
    service = unit["Service"]
    assert service["User"] == "emissary"
    assert service["EnvironmentFile"].lstrip("-") == "/etc/emissary/emissary.env"
    assert service["KillMode"] == "control-group"
    assert service["Restart"] == "on-failure"
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    if path.stem == "emissary-migrate":
        assert service["Type"] == "oneshot" and service["RemainAfterExit"] == "yes"
    else:  # the others start once the schema is migrated
        assert unit["Unit"]["Requires"] == "emissary-migrate.service"
        assert "emissary-migrate.service" in unit["Unit"]["After"].split()
