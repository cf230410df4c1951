"""Powers' Game is a thin composition of sub-domain mixins (issue 26 item 4). ``GameBase`` declares for the type
checker what each sub-domain asks of the others; each of those names must be one the composed Game defines, or a
renamed method elsewhere would pass mypy and fail at run time."""

from __future__ import annotations

import ast
import inspect

from domain.powers import base
from domain.powers.base import GameBase, PowersEvent
from domain.powers.game import Game


def declared_for_the_type_checker() -> list[str]:
    tree = ast.parse(inspect.getsource(base))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "GameBase")
    names = []
    for node in cls.body:
        if isinstance(node, ast.If):  # if TYPE_CHECKING:
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.append(item.target.id)
                elif isinstance(item, ast.FunctionDef):
                    names.append(item.name)
    return names


def test_every_name_the_base_declares_is_defined_on_the_game():
    names = declared_for_the_type_checker()
    assert len(names) > 40
    assert [n for n in names if n != "state" and not hasattr(Game, n)] == []
    assert issubclass(Game, GameBase)


def test_each_event_a_sub_domain_declares_is_redefined_on_the_game():
    events = {n for n, v in vars(Game).items() if isinstance(v, type) and issubclass(v, PowersEvent)}
    assert {"StepBegan", "ActionSubmitted", "RulingIssued", "ActionResolved", "ReactionDeclared"} <= events
    assert all(vars(Game)[n].__qualname__ == f"Game.{n}" for n in events)
