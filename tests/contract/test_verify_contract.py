"""Every export verifies, and any tampering is caught, for every registered ruleset (issue 24, item 3; DESIGN
"Promises are platform properties").

Each ruleset in the registry, the fake one of ``tests/plugins/emissary-fake`` among them (it declares no verifier:
the platform's checks alone), is played by its driver (``drivers.py``); every viewer's export is taken through the
service as ``GET /games/{id}/export`` takes it, and read back as ``POST /verify`` and ``emissary verify`` read it
(the verifier of the ruleset its first event names). An honest export verifies for every viewer, every seed it shows
committed is revealed or the report says why not, and where the ruleset rolls the report checked its rolls. Changing
any die face, seed, roll number or sequence number, or removing or reordering any event, does not verify, and the
report names what failed. An export cut short at its end cannot be told from one taken earlier: the report says so
in ``not_checked``, and no removal here takes the last event.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from api.routes.history import MAX_LIMIT
from application.service import Games
from domain.dice import commitment
from domain.platform import ruleset as registry
from domain.platform.verify import InvalidExport, Report, parse_export, verify_export
from tests.contract.conftest import RULESETS, registered
from tests.contract.drivers import DRIVERS, contract_modules

ROLLS_NOTHING = {"lodge"}  # its rules have no dice and it commits no seed: a post's [roll NdS] is refused there
EXAMPLES = settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@dataclass(frozen=True)
class Exports:
    ruleset: str
    by_viewer: dict[str, list[dict]]  # each viewer's export, read back as POST /verify reads it


def export_text(games, game_id: str, viewer: str) -> str:
    """A viewer's export as ``GET /games/{id}/export`` writes it: JSON Lines, a page of the timeline at a time."""
    lines, page = [], games.visible_events(game_id, viewer, limit=MAX_LIMIT)
    while page:
        lines += [json.dumps(e, sort_keys=True) + "\n" for e in page]
        if len(page) < MAX_LIMIT:
            break
        page = games.visible_events(game_id, viewer, after=page[-1]["seq"], limit=MAX_LIMIT)
    return "".join(lines)


@pytest.fixture(scope="module", params=RULESETS)
def exports(request: pytest.FixtureRequest) -> Iterator[Exports]:
    name = request.param
    with registered(name):
        games = Games(snapshot_interval=7)
        try:
            assert name in DRIVERS, f"ruleset {name!r} is registered but has no driver in drivers.py"
            played = DRIVERS[name].play(games)
            yield Exports(name, {v: parse_export(export_text(games, played.game_id, v)) for v in played.viewers})
        finally:
            games.close()


def verified(events: list[dict]) -> Report:
    """The report on an export; one refused whole (an export that begins with no game's first event) is a
    report that does not verify, naming why."""
    try:
        return verify_export(copy.deepcopy(events))
    except InvalidExport as refused:
        return Report(mismatches=[refused.message])


# ---------------------------------------------------------------------- what can be tampered with


def roll_sites(event: dict) -> list[dict]:
    """Every record of a roll in an event's data (a dict that carries a roll number and what the roll shows)."""
    found: list[dict] = []

    def walk(x: object) -> None:
        if isinstance(x, dict):
            if isinstance(x.get("roll_no"), int) and any(x.get(k) for k in ("faces", "dice", "order")):
                found.append(x)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(event.get("data", {}))
    return found


def rolls_shown(events: list[dict]) -> list[tuple[int, int]]:
    """(event index, site index) of every roll an export shows."""
    return [(i, j) for i, e in enumerate(events) for j in range(len(roll_sites(e)))]


def change_a_face(site: dict, which: int) -> str:
    """Change one die (or, for an order, swap two places); returns what the report must name."""
    if site.get("faces"):
        faces, sides = site["faces"], site.get("sides", 6)
        faces[which % len(faces)] = faces[which % len(faces)] % sides + 1
    elif site.get("dice"):
        die = site["dice"][which % len(site["dice"])]
        die["face"] = die["face"] % 6 + 1
    else:
        order = site["order"]
        order[0], order[-1] = order[-1], order[0]
        return f"tie-break {site['roll_no']}"
    return f"roll {site['roll_no']}"


def seeds_that_govern_something(events: list[dict]) -> set[str]:
    """Commitments a roll of this export uses, or that it reveals: changing any other is not detectable (a lone
    commitment proves nothing until something is checked against it)."""
    used = {s.get("commitment") for e in events for s in roll_sites(e)}
    revealed = {e["data"]["commitment"] for e in events if e["type"] == "SeedRevealed"}
    return {c for c in used | revealed if c}


def seed_changes(events: list[dict]) -> list[tuple[int, str]]:
    """(event index, field) of every seed value an export shows that something is checked against."""
    governing = seeds_that_govern_something(events)
    out = []
    for i, e in enumerate(events):
        if e["type"] == "SeedCommitted" and e["data"]["commitment"] in governing:
            out += [(i, f) for f in ("commitment", "root", "first_roll") if e["data"].get(f) is not None]
        elif e["type"] == "SeedRevealed":
            out += [(i, "seed"), (i, "commitment")]
    return out


def change_seed(event: dict, name: str) -> None:
    data = event["data"]
    if name == "first_roll":
        data[name] += 1
    elif name == "seed":
        data[name] = "ab" * 32
    elif name == "commitment" and event["type"] == "SeedRevealed":
        data[name] = commitment("ab" * 32)
    else:
        data[name] = "cd" * 32


def names(report: Report, *words: str) -> bool:
    return any(any(w in m for w in words) for m in report.mismatches)


# ---------------------------------------------------------------------- honest exports


def test_every_registered_ruleset_and_the_fake_one_is_checked():
    plugins = contract_modules()
    assert "powers" in RULESETS and plugins and set(plugins) <= set(RULESETS) <= set(DRIVERS)
    unverified = [n for n in RULESETS if registry.get(n).verify is None]
    assert unverified, "a ruleset that declares no verifier (the fake) is checked by the platform's checks alone"


def test_an_honest_export_verifies_for_every_viewer(exports):
    for viewer, events in exports.by_viewer.items():
        report = verified(events)
        assert report.ok, (exports.ruleset, viewer, report.mismatches)
        assert report.ruleset == exports.ruleset and report.events_checked == len(events)
        assert report.rolls_pending == 0, (viewer, report)
        checked = report.rolls_verified + getattr(report, "tie_breaks_verified", 0)
        assert checked >= len({(s["commitment"], s["roll_no"]) for e in events for s in roll_sites(e)}), report
    gm = verified(exports.by_viewer["gm"])
    if exports.ruleset in ROLLS_NOTHING:
        assert gm.rolls_verified == 0 and not rolls_shown(exports.by_viewer["gm"])
    else:  # the driver's play rolls: the tampering below has dice to change
        assert gm.rolls_verified > 0, gm


def test_every_committed_seed_is_revealed_or_the_report_says_why_not(exports):
    for viewer, events in exports.by_viewer.items():
        report = verified(events)
        committed = [e["data"]["commitment"] for e in events if e["type"] == "SeedCommitted"]
        revealed = {e["data"]["commitment"] for e in events if e["type"] == "SeedRevealed"}
        unexplained = [
            c for c in committed if c not in revealed and not any(c[:12] in s for s in report.seeds_unrevealed)
        ]
        assert unexplained == [], (viewer, report.seeds_unrevealed)
        assert len(report.seeds_unrevealed) == len(set(committed) - revealed)
        assert all(": " in s for s in report.seeds_unrevealed)  # each says why


def test_a_seed_that_is_neither_revealed_nor_explained_is_a_mismatch(exports):
    """Every seed committed is revealed once, or the report says why: a later seed committed after one that was
    never revealed, with no rollback or fork between, is a failure (the platform's promise, P.4's commit-reveal)."""
    events = copy.deepcopy(exports.by_viewer["gm"])
    committed = [i for i, e in enumerate(events) if e["type"] == "SeedCommitted"]
    if not committed:  # a ruleset that rolls nothing commits no seed
        assert exports.ruleset in ROLLS_NOTHING, f"{exports.ruleset}'s play commits no seed"
        return
    later = copy.deepcopy(events[committed[-1]])
    later["data"]["commitment"] = commitment("ef" * 32)
    later["seq"] = events[-1]["seq"] + 1
    later["version"] = events[-1]["version"] + 1
    events.append(later)
    report = verified(events)
    assert not report.ok and names(report, "was never revealed"), report.mismatches


# ---------------------------------------------------------------------- tampering, exhaustively


def test_changing_any_die_face_is_caught_naming_the_roll(exports):
    checked = 0
    for viewer, events in exports.by_viewer.items():
        for i, j in rolls_shown(events):
            tampered = copy.deepcopy(events)
            said = change_a_face(roll_sites(tampered[i])[j], 0)
            report = verified(tampered)
            assert not report.ok and names(report, said), (viewer, tampered[i]["type"], report.mismatches)
            checked += 1
    assert (checked > 0) == (exports.ruleset not in ROLLS_NOTHING)


def test_changing_any_roll_number_is_caught(exports):
    for viewer, events in exports.by_viewer.items():
        for i, j in rolls_shown(events):
            for delta in (1, -1, 64):
                tampered = copy.deepcopy(events)
                site = roll_sites(tampered[i])[j]
                if site["roll_no"] + delta < 0:
                    continue
                site["roll_no"] += delta
                report = verified(tampered)
                assert not report.ok and names(report, "roll", "tie-break"), (viewer, i, delta, report.mismatches)


def test_changing_any_seed_is_caught(exports):
    for viewer, events in exports.by_viewer.items():
        for i, name in seed_changes(events):
            tampered = copy.deepcopy(events)
            change_seed(tampered[i], name)
            report = verified(tampered)
            assert not report.ok and names(report, "seed", "root"), (viewer, name, report.mismatches)


def test_removing_any_event_but_the_last_is_caught(exports):
    for viewer, events in exports.by_viewer.items():
        for i in range(len(events) - 1):
            report = verified(events[:i] + events[i + 1 :])
            assert not report.ok and names(report, "missing from your sequence", "is not whole"), (viewer, i)
        assert any("cut short" in s for s in verified(events).not_checked)


def test_swapping_any_two_neighbouring_events_is_caught(exports):
    for viewer, events in exports.by_viewer.items():
        for i in range(len(events) - 1):
            swapped = [*events[:i], events[i + 1], events[i], *events[i + 2 :]]
            report = verified(swapped)
            assert not report.ok and names(report, "out of order", "missing from your sequence", "is not whole"), (
                viewer,
                i,
            )


# ---------------------------------------------------------------------- tampering, at random (bounded)


@EXAMPLES
@given(data=st.data())
def test_any_changed_sequence_number_is_caught(exports, data):
    viewer = data.draw(st.sampled_from(sorted(exports.by_viewer)))
    events = copy.deepcopy(exports.by_viewer[viewer])
    i = data.draw(st.integers(0, len(events) - 1))
    events[i]["seq"] = data.draw(st.integers(1, len(events) + 10).filter(lambda s: s != events[i]["seq"]))
    report = verified(events)
    assert not report.ok and names(report, "out of order", "missing from your sequence"), report.mismatches


@EXAMPLES
@given(data=st.data())
def test_any_event_moved_elsewhere_is_caught(exports, data):
    viewer = data.draw(st.sampled_from(sorted(exports.by_viewer)))
    events = copy.deepcopy(exports.by_viewer[viewer])
    i = data.draw(st.integers(0, len(events) - 1))
    j = data.draw(st.integers(0, len(events) - 1).filter(lambda j: j != i))
    events.insert(j, events.pop(i))
    report = verified(events)
    assert not report.ok and names(report, "out of order", "missing from your sequence", "is not whole"), (
        report.mismatches
    )


@EXAMPLES
@given(data=st.data())
def test_several_changes_at_once_are_caught(exports, data):
    """Any mix of changed faces, roll numbers and seeds, in any export that shows a roll: never verifies."""
    rolling = sorted(v for v, events in exports.by_viewer.items() if rolls_shown(events))
    if not rolling:
        assert exports.ruleset in ROLLS_NOTHING, f"no export of {exports.ruleset}'s play shows a roll"
        return
    events = copy.deepcopy(exports.by_viewer[data.draw(st.sampled_from(rolling))])
    targets = [("face", r) for r in rolls_shown(events)] + [("roll_no", r) for r in rolls_shown(events)]
    targets += [("seed", s) for s in seed_changes(events)]
    # each place changed once (a die changed three times on a d3 would show its first face again)
    for kind, where in data.draw(st.lists(st.sampled_from(targets), min_size=1, max_size=3, unique=True)):
        if kind == "seed":
            change_seed(events[where[0]], where[1])
        elif kind == "face":
            change_a_face(roll_sites(events[where[0]])[where[1]], data.draw(st.integers(0, 50)))
        else:
            roll_sites(events[where[0]])[where[1]]["roll_no"] += data.draw(st.integers(1, 5000))
    assert not verified(events).ok


def test_a_tampered_export_relabelled_as_another_ruleset_or_unlabelled_does_not_verify(exports):
    """The verifier is chosen by the export's first event: relabelled as another ruleset (or with its label
    removed, which reads as Powers'), a tampered export was checked by a verifier that knew none of its rolls, and
    passed with 0 rolls checked. Now the first event binds the ruleset, and every event must be that ruleset's."""
    events = exports.by_viewer["gm"]
    tampered = copy.deepcopy(events)
    for event in tampered:
        if (sites := roll_sites(event)) and isinstance(sites[0].get("faces"), list) and sites[0]["faces"]:
            sites[0]["faces"][0] = sites[0]["faces"][0] % 6 + 1
            break
    for name in [*(n for n in registry.names() if n != exports.ruleset), None]:
        for export in (events, tampered):
            relabelled = copy.deepcopy(export)
            data = relabelled[0]["data"]
            if name is None:
                data.pop("ruleset", None)
            else:
                data["ruleset"] = name
            report = verified(relabelled)
            if exports.ruleset == "powers" and name is None:
                assert report.ok == (export is events), report.mismatches  # an unlabelled export is Powers'
            else:
                assert not report.ok and names(report, "wrong ruleset", "no event of"), (name, report.mismatches)
        renamed = copy.deepcopy(tampered)  # and its first event renamed to the other ruleset's too
        if name is not None:
            begins = sorted(registry.get(name).created_kinds())
            renamed[0]["type"], renamed[0]["data"]["ruleset"] = begins[0], name
            assert not verified(renamed).ok, name
