"""How a Lodge effect resolved (issue 29), from the events one viewer was shown (``domain.platform.explain``):
``effect:<effect id>``, each phrase in printed order with what applied and what was skipped, the reason and rule
of each skip (L-EFF-2), and the effect resolved even when nothing applied (L-EFF-3). The Lodge rolls no dice."""

from __future__ import annotations

from typing import Any

from domain.platform.explain import Derivation, Events


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
    title = f"{body.get('card')} by {body.get('resolver')}" + (f" on {body['target']}" if body.get("target") else "")
    d = Derivation(f"effect:{effect}", "effect", title, {"seq": e.get("seq"), "type": e.get("type")})
    refs = []
    for p, seq in sorted(phrases, key=lambda ps: ps[0].get("index", 0)):
        n = p.get("index", 0)
        applied, skipped = list(p.get("applied") or []), list(p.get("skipped") or [])
        for k, part in enumerate(applied):
            d.given(f"p{n}-applied{k}", "L-EFF-2", f"{p.get('words')}: {part}", part, seq)
        for k, part in enumerate(skipped):
            d.given(
                f"p{n}-skipped{k}",
                str(part.get("rule") or "L-EFF-2"),
                f"{p.get('words')}: {part.get('part')} skipped: {part.get('reason')}",
                part.get("part"),
                seq,
            )
        refs.append(
            d.step(
                f"p{n}",
                "L-EFF-2",
                f"phrase {n + 1}: {p.get('words')}",
                "phrase_status",
                [len(applied), len(skipped)],
                p.get("status"),
            )
        )
    statuses = d.step(
        "statuses",
        "L-EFF-3",
        "the effect resolved, phrase by phrase, even if nothing applied",
        "list",
        refs,
        list(body.get("statuses") or []),
    )
    d.result = {"published": {"statuses": list(body.get("statuses") or [])}, "steps": {"statuses": statuses}}
    return d
