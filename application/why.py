"""The "Why?" of a mail that reports results (issue 29): each result published since its reader's previous
notification of the game, explained in words, as the reader sees it.

A mail of a game at the version of its event (a ledger row's ``version``) reports the results published after the
reader's previous notification of the game (``Projector.previous_note``) and up to that event: Powers' published
resolution, the first mail after a Certamen or a Reckoning (a post, a reminder), a Lodge room's score, a post
that rolled dice. Each derivation is built from the reader's own timeline (``domain.platform.explain``: the scope
the board's "Why?" uses: the reader's newest events, at most ``WHY_EVENTS``, and the game's first), so it shows
nothing their own events do not; one whose earlier events fall outside those read is left out rather than shown in
part. In words: each roll with its roll number and faces, each step with its value and rule id, what is withheld,
the link to each rule's text (``/help/<ruleset>/rules#<id>``, where the ruleset ships its rules) and to the whole
derivation (``GET /games/{g}/results/{id}/explain``).
"""

from __future__ import annotations

import functools
import importlib.util
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from domain.platform import explain
from domain.platform.i18n import N_, _

WHY_EVENTS = 500  # the reader's newest events a mail's derivations are read from (as a feed's "Why?")

KINDS = {  # a derivation's kind in words ({title}: its ``title``)
    "action": N_("the action {title}"),
    "battle-round": N_("the battle round {title}"),
    "certamen": N_("the Certamen {title}"),
    "reckoning": N_("the Yearly Reckoning of year {title}"),
    "effect": N_("the effect {title}"),
    "die": N_("the die rolled for {title}"),
    "post-roll": N_("the dice of post {title}"),
    "post": N_("the post {title}"),
}


def results_since(reads: Any, ruleset: Any, key: str, seat: str, version: int) -> list[dict[str, Any]]:
    """The derivations, as ``seat`` sees them, of the results published after its previous notification of the game
    and up to ``version``, in the order published; each recomputes from its own terms."""
    page = reads.timeline(key, seat, newest_first=True, up_to_version=version, limit=WHY_EVENTS)
    if not page:
        return []
    previous = reads.previous_note(key, seat, version)
    before = reads.timeline(key, seat, newest_first=True, up_to_version=previous, limit=1) if previous else []
    since, upto = (before[0]["seq"] if before else 0), page[0]["seq"]
    first = reads.timeline(key, seat, after=0, limit=1)
    found = explain.derivations(ruleset, explain.with_first(first, page))
    return sorted(
        (d for d in found.values() if since < d["source"]["seq"] <= upto and not explain.recomputes(d)),
        key=lambda d: d["source"]["seq"],
    )


def lines(found: Sequence[Mapping[str, Any]], base: str, key: str, ruleset: str) -> list[str]:
    """The derivations in words, in the reader's language (inside ``Reader.words``): a section of the mail, and the
    rules it cites linked to their texts."""
    if not found:
        return []
    out = [_("Why: how each result came about, step by step, each step with its rule.")]
    for d in found:
        out += ["", *block(d, base, key)]
    anchors = rule_ids(ruleset)
    cited = dict.fromkeys(s["rule"] for d in found for s in d["steps"])
    linked = [f"  {rule}: {base}/help/{ruleset}/rules#{rule}" for rule in cited if rule in anchors]
    return [*out, "", _("The rules cited:"), *linked] if linked else out


def block(d: Mapping[str, Any], base: str, key: str) -> list[str]:
    """One derivation in words: its dice, its steps with their values and rule ids, what is withheld, its link."""
    out = [explained(d)]
    for r in d["dice"]:
        faces = ", ".join(str(f) for f in r.get("faces") or [])
        roll = _("{label}: roll number {n}, faces {faces}") if faces else _("{label}: roll number {n}, no dice")
        out.append("  " + roll.format(label=explain.said(r, "label"), n=r.get("roll_no"), faces=faces))
    out += [f"  - {explain.said(s, 'text')}: {value_words(s['value'])} ({s['rule']})" for s in d["steps"]]
    if d.get("provisional"):
        out.append("  " + _("Provisional: the resistance window is open."))
    out += ["  " + _("Not shown to you: {what}").format(what=_(w)) for w in d.get("withheld") or []]
    link = f"{base}/games/{key}/results/{quote(d['result_id'], safe='')}/explain"
    return [*out, "  " + _("The whole derivation: {link}").format(link=link)]


def explained(d: Mapping[str, Any]) -> str:
    kind = KINDS.get(str(d.get("kind")))
    what = _(kind).format(title=d.get("title")) if kind else f"{d.get('kind')} {d.get('title')}"
    return _("Why {what}:").format(what=what)


def value_words(value: Any) -> str:
    if value is True or value is False:
        return _("yes") if value else _("no")
    if value is None:
        return _("none")
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) or _("none")
    return str(value)


@functools.cache
def rule_ids(ruleset: str) -> frozenset[str]:
    """The rule ids the ruleset's rules page has an anchor for: the ``rules/ids.json`` its API package ships
    (``api.help.rules``), read without importing the package; none if it ships no rules text."""
    from domain import rulesets as installed

    package = next((p.api for p in installed.PLUGINS if p.ruleset.name == ruleset), "")
    top, *rest = package.split(".") if package else [""]
    spec = importlib.util.find_spec(top) if top else None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        index = Path(folder, *rest, "rules", "ids.json")
        if index.is_file():
            return frozenset(json.loads(index.read_text(encoding="utf-8"))["rules"])
    return frozenset()
