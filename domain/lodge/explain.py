"""How a Lodge effect resolved (issue 29), from the events one viewer was shown (``domain.platform.explain``):
``effect:<effect id>``, each phrase in printed order with what applied and what was skipped, the reason and rule
of each skip (L-EFF-2), and the effect resolved even when nothing applied (L-EFF-3). The Lodge rolls no dice."""

from __future__ import annotations

from typing import Any

from domain.platform.explain import Derivation, Events
from domain.platform.i18n import N_


def derive(events: Events) -> dict[str, dict[str, Any]]:
    """Every effect these events show their viewer, derived (``Ruleset.derive``)."""
    out: dict[str, dict[str, Any]] = {}
    phrases: dict[str, list[tuple[dict[str, Any], int | None]]] = {}
    for e in events:
        body = (e.get("data") or {}).get("data") or {}
        if e.get("type") == "PhraseResolved":
            phrases.setdefault(body["effect"], []).append((body, e.get("seq")))
        elif e.get("type") == "EffectResolved":
            d = _effect(e, body, phrases.pop(body["effect"], []))
            out[d.result_id] = d.as_dict()
    return out


def _effect(e: Any, body: dict[str, Any], phrases: list[tuple[dict[str, Any], int | None]]) -> Derivation:
    effect = body["effect"]
    title = " ".join(str(x) for x in (body.get("card"), body.get("resolver"), body.get("target")) if x)
    d = Derivation(f"effect:{effect}", "effect", title, {"seq": e.get("seq"), "type": e.get("type")})
    refs = []
    for p, seq in sorted(phrases, key=lambda ps: ps[0].get("index", 0)):
        n, words = p.get("index", 0), str(p.get("words") or "")
        applied, skipped = list(p.get("applied") or []), list(p.get("skipped") or [])
        for k, part in enumerate(applied):
            d.given(f"p{n}-applied{k}", "L-EFF-2", N_("{phrase}: applied: {part}"), part, seq, phrase=words, part=part)
        for k, part in enumerate(skipped):
            says = N_("{phrase}: skipped: {part}, because {reason}")
            what, reason = str(part.get("part")), str(part.get("reason"))
            rule = str(part.get("rule") or "L-EFF-2")
            d.given(f"p{n}-skipped{k}", rule, says, part.get("part"), seq, phrase=words, part=what, reason=reason)
        says = N_("phrase {n}: {phrase}")
        refs.append(
            d.step(
                f"p{n}",
                "L-EFF-2",
                says,
                "phrase_status",
                [len(applied), len(skipped)],
                p.get("status"),
                n=n + 1,
                phrase=words,
            )
        )
    statuses = list(body.get("statuses") or [])
    says = N_("the effect resolved, phrase by phrase, even if nothing applied")
    d.result = {
        "published": {"statuses": statuses},
        "steps": {"statuses": d.step("statuses", "L-EFF-3", says, "list", refs, statuses)},
    }
    return d
