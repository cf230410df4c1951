"""Commands are typed dataclasses with one handler each (DESIGN "Commands"): a bad field is refused by
name before anything runs, and every command a ruleset or the platform declares has its handler."""

from __future__ import annotations

import dataclasses
import inspect
import sys

import pytest

from domain.errors import RuleViolation
from domain.platform import commands as platform
from domain.platform.ruleset import UnknownCommand
from domain.powers import commands as powers
from domain.powers.ruleset import POWERS


@pytest.mark.parametrize(
    "build, field",
    [
        (lambda: powers.SubmitAction(power_id="gondor", title=3), "title"),  # type: ignore[arg-type]
        (lambda: powers.SubmitAction(power_id="gondor", title="Scout", assets="might"), "assets"),  # type: ignore[arg-type]
        (lambda: powers.Advance(expected_step=5), "expected_step"),  # type: ignore[arg-type]
        (lambda: powers.SetDifficulty("act-1", value="hard"), "value"),  # type: ignore[arg-type]
        (lambda: powers.LockConversions("act-1", convert=True), "convert"),  # a bool is no count
        (lambda: platform.RequestExtension("gondor", hours="many"), "hours"),  # type: ignore[arg-type]
        (lambda: platform.SetContact("gondor", email=["a@b"]), "email"),  # type: ignore[arg-type]
        (lambda: powers.LockConversions("act-1", dice=[2, 2**63]), "dice.1"),  # no store holds it (issue 30)
        (lambda: powers.SubmitAction("gondor", "Scout", assets=[{"n": -(2**64)}]), "assets.0.n"),
        (lambda: powers.SubmitAction("gondor", "Scout", targets=["x"], difficulty="2"), "difficulty"),
    ],
)
def test_a_command_with_a_bad_field_is_refused_naming_the_field(build, field):
    with pytest.raises(RuleViolation) as err:
        build()
    assert err.value.field == field and field in err.value.message


def test_a_well_typed_command_is_built_and_frozen():
    cmd = powers.SubmitAction(power_id="gondor", title="Scout", convert=0)
    assert cmd.convert == 0 and cmd.assets == []
    with pytest.raises(dataclasses.FrozenInstanceError):
        cmd.title = "Other"  # type: ignore[misc]


def _declared(module) -> set[type]:
    return {
        c
        for _, c in inspect.getmembers(module, inspect.isclass)
        if issubclass(c, platform.Command) and c is not platform.Command and c.__module__ == module.__name__
    }


def test_every_declared_command_has_a_handler_in_the_ruleset_or_the_platform_mapping():
    # Features declare their commands in their own modules (domain/powers/<feature>.py) and merge them in.
    modules = {powers, *(sys.modules[c.__module__] for c in powers.POWERS_COMMANDS)}
    assert set().union(*(_declared(m) for m in modules)) == set(powers.POWERS_COMMANDS)
    assert _declared(platform) == set(platform.PLATFORM_COMMANDS)
    assert dict(POWERS.commands) == dict(powers.POWERS_COMMANDS)
    assert POWERS.handler(platform.DeclareReady("gondor")) is platform.declare_ready
    assert POWERS.handler(powers.Resolve("planning")) is powers.resolve


def test_a_command_no_ruleset_handles_is_refused_naming_it():
    @dataclasses.dataclass(frozen=True)
    class Teleport(platform.Command):
        power_id: str

    with pytest.raises(UnknownCommand) as err:
        POWERS.handler(Teleport("gondor"))
    assert err.value.field == "command" and "Teleport" in err.value.message


def _every_command() -> set[type]:
    def below(cls: type) -> set[type]:
        return {s for c in cls.__subclasses__() for s in {c, *below(c)}}

    return below(platform.Command)


def test_a_commands_fields_checked_at_once_refuse_what_each_fields_own_check_refuses():
    """Issue 30: a command's fields are checked in one call (``commands._whole``), and field by field only to name the
    one at fault. For every command class of every installed ruleset, each field the one call is given a value its
    own check refuses (an object of no JSON kind, a number where text goes) is refused by the one call too."""
    import domain.rulesets  # noqa: F401 - registers every installed ruleset's commands

    checked = 0
    for cls in _every_command():
        whole = platform._whole(cls)
        for name, adapter in platform._adapters(cls):
            for bad in (object(), 12.5, "text", "7", 1):
                try:
                    adapter.validate_python(bad, strict=True)
                except platform.ValidationError:
                    pass
                else:
                    continue  # the field takes it (Any, text, a number)
                with pytest.raises(platform.ValidationError) as err:
                    whole.validate_python({name: bad}, strict=True)
                assert name in {e["loc"][0] for e in err.value.errors() if e["loc"]}, (cls, name, bad)
                checked += 1
    assert len(_every_command()) > 100 and checked > 500
