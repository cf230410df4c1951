"""Tests speak through commands, events and views (issue 26 item 7): a test checks a rule through the command
it sends, the events that command recorded and what a viewer sees (the ruleset's view), not by reading an
aggregate's ``.state``. The rules modules keep their pure-function tests.

Some tests still read ``.state`` (a replay or a refusal compared with the whole state, a secret no view shows such
as the Evocation deck's order, a scenario arranged on the board, the web app's ``app.state``). This ratchet counts
the test functions under tests/ whose body holds any ``.state`` attribute access, and fails if the count rises
above the number left when item 7 was done. The count only shrinks: when you rewrite such a test through the
commands, events and views, lower ``LIMIT`` to the new count."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent

LIMIT = 76  # issue 26 item 7: 481 of 1,661 test functions read ``.state`` before; this number only goes down


def reading_state() -> list[str]:
    """``path::name`` of every test function whose body accesses an attribute named ``state``."""
    found = []
    for path in sorted(TESTS.glob("**/test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
                if any(isinstance(n, ast.Attribute) and n.attr == "state" for n in ast.walk(node)):
                    found.append(f"{path.relative_to(TESTS)}::{node.name}")
    return found


def test_no_more_test_functions_read_an_aggregates_state_than_issue_26_left():
    found = reading_state()
    assert len(found) <= LIMIT, (
        f"{len(found)} test functions read `.state` (at most {LIMIT}): check the rule through the command, its "
        "events and the view instead (issue 26 item 7)"
    )
