"""Disputes as a thread (issue 29 item 4): a seat disputes an event it was shown, the GM (or a host) answers and
settles it. Every ruleset gets them (a mixin of ``PlatformGame``; its events become the platform's).

A seat names the event by its own number for it (``seq``, as its feed, export and receipts number what it sees), so
it can only ever name an event it was shown: the service turns that number into the event (``Context.seen_version``
then ``Context.event_at``), and a number it was not shown is refused in the words of one that does not exist.

Raising a dispute opens a thread (``ThreadOpened``, a private thread of the platform's posts) whose first post is the
seat's text, and records ``DisputeRaised``. Who reads the thread, and every event of the dispute, is fixed then:

- in a game with a GM (Powers, the Lodge, the fake table), the raiser, and the GM (who sees every audience);
- in a game without one (the covenant game), the raiser and every other host **who was shown the disputed event**:
  a host who plays sees the table as a player, so a dispute on what it was not shown goes to the hosts who were
  (none: refused, naming ``seq``; the auditor reads everything but posts nothing). Decision: the host-reads-private
  option of posts does not widen it; a dispute is the raiser's desk, not table talk.

The answer (``AnswerDispute``) is a post in the thread, replying to the dispute, and may point at what settles it:
the result's derivation (``derivation:<result id>``, which ``GET /games/{g}/results/{id}/explain`` answers), a
preview (``preview`` or ``preview:<window>``), a rollback (``rollback:<phase>``) or a rules replay
(``replay:<version>``). ``SettleDispute`` records its outcome: ``upheld`` or ``rejected`` by whoever answers it,
``withdrawn`` by the raiser; a settled dispute takes no more answers. Events carry no game version (a seat never
learns how many events it was not shown). ``DisputeRaised`` records the raiser's own number for the event; every
other reader (a host it was raised to) reads it as its own number for that event, never the raiser's, which would
count what the raiser was shown (``projections``' timelines translate it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from eventsourcing.domain import Aggregate

from domain import limits
from domain import visibility as vis
from domain.errors import Forbidden, NotFound, RuleViolation
from domain.ids import GM
from domain.platform.posts import check_post_text, would_mention

OUTCOMES = ("upheld", "rejected", "withdrawn")
POINTS = ("derivation", "preview", "rollback", "replay")
NEEDS_REFERENCE = ("derivation", "rollback")  # a derivation names its result, a rollback its phase
TITLE_TEXT = 60  # characters of the dispute's text its thread's title quotes


def check_points_at(value: Any) -> str | None:
    """What an answer points at: ``derivation:<result id>``, ``preview[:<window>]``, ``rollback:<phase>`` or
    ``replay[:<version>]``, or None; RuleViolation naming ``points_at`` otherwise."""
    if value is None or value == "":
        return None
    limits.check_text(value, "points_at", limits.IDENTIFIER * 2, what="what an answer points at")
    kind, _, ref = value.strip().partition(":")
    ref = ref.strip()
    if kind not in POINTS or (kind in NEEDS_REFERENCE and not ref):
        raise RuleViolation(
            "an answer points at derivation:<result id>, preview[:<window>], rollback:<phase> or replay[:<version>]",
            field="points_at",
        )
    return f"{kind}:{ref}" if ref else kind


def no_dispute(dispute_id: Any) -> NotFound:
    """The one refusal for a dispute that does not exist and one the caller may not read (the same words)."""
    shown = dispute_id if isinstance(dispute_id, str) and len(dispute_id) <= limits.IDENTIFIER else "?"
    return NotFound(f"no dispute {shown!r} that you may read", field="dispute_id")


def no_event(seq: Any) -> NotFound:
    """The one refusal for an event number the raiser was not shown (missing, or never theirs: the same words)."""
    return NotFound(f"no event {seq} in your timeline: name an event by its number in your feed", field="seq")


class Disputes:
    """The disputes half of ``PlatformGame`` (a mixin: its events become the platform's events)."""

    if TYPE_CHECKING:  # the aggregate supplies these (domain.platform.game.PlatformGame)
        state: Any
        seats: Any
        roles_of: Any
        trigger_event: Any
        has_gm: Any
        hosts: Any
        talk: Any
        ThreadOpened: Any
        PostMade: Any

    @property
    def disputes(self) -> dict[str, dict[str, Any]]:
        """Every dispute (id -> raiser, the raiser's number for the event, its kind, thread, first post, answerers,
        audience, answers, outcome); kept beside the ruleset's state like the talk, so a rollback unsays none."""
        found = self.__dict__.get("disputes")
        if found is None:
            found = self.__dict__["disputes"] = {}
        return found

    def dispute(self, dispute_id: Any, viewer: str) -> dict[str, Any]:
        """The dispute, if the viewer may read it; else NotFound in the words of one that does not exist."""
        found = self.disputes.get(dispute_id) if isinstance(dispute_id, str) else None
        if found is None or not vis.can_see(found["audience"], viewer):
            raise no_dispute(dispute_id)
        return found

    def disputes_for(self, viewer: str) -> list[dict[str, Any]]:
        """The disputes this viewer may read, oldest first."""
        return [{"id": k, **d} for k, d in self.disputes.items() if vis.can_see(d["audience"], viewer)]

    def rules_dispute(self, principal: str, d: dict[str, Any]) -> bool:
        """Whether this principal answers (and upholds or rejects) the dispute: the GM where there is one, else the
        hosts it was raised to."""
        return principal == GM if self.has_gm() else principal in d["answerers"]

    def raise_dispute(
        self,
        raiser: str,
        seq: int,
        event: Any,
        text: Any,
        *,
        dispute_id: str,
        thread_id: str,
        post_id: str,
    ) -> dict[str, Any]:
        """A seat disputes ``event``, the one it numbers ``seq`` (None: it was shown no such event): a thread opened
        with whoever answers, the seat's text its first post. Refused, recording nothing, for anyone but a seat, an
        event the seat was not shown, an empty or overlong text, an event it already disputes, or (without a GM) an
        event no other host was shown."""
        if raiser not in self.seats:
            who = "GM" if self.has_gm() else "auditor"
            raise Forbidden(f"a seat raises a dispute; the {who} answers it", field="authorization")
        if event is None or not vis.can_see(event.audience, raiser):
            raise no_event(seq)
        text = check_post_text(text)
        if any(d["raiser"] == raiser and d["seq"] == seq and d["outcome"] is None for d in self.disputes.values()):
            raise RuleViolation(f"you already dispute event {seq}: add to that dispute's thread", field="seq")
        answerers: list[str] = []
        if not self.has_gm():
            answerers = [h for h in self.hosts() if h != raiser and vis.can_see(event.audience, h)]
            if not answerers:
                raise RuleViolation(
                    "no other host was shown this event, so none can answer a dispute on it", field="seq"
                )
        audience = vis.seats([raiser, *answerers])
        first = " ".join(text.split())
        title = "Dispute: " + (first if len(first) <= TITLE_TEXT else first[: TITLE_TEXT - 1] + "…")
        members = sorted({raiser, *answerers})
        self.trigger_event(
            self.ThreadOpened, thread_id=thread_id, title=title, members=members, actor=raiser, audience=audience
        )
        self.trigger_event(
            self.PostMade,
            post_id=post_id,
            thread_id=thread_id,
            text=text,
            tied_to=None,
            rolls=[],
            actor=raiser,
            audience=audience,
            reply_to=None,
            mentions=would_mention(self.seats, raiser, audience, text),  # a dispute's post names as any post does
        )
        kind = type(event).__name__
        self.trigger_event(
            self.DisputeRaised,
            dispute_id=dispute_id,
            seq=seq,
            about=kind,
            thread_id=thread_id,
            post_id=post_id,
            answerers=answerers,
            actor=raiser,
            audience=audience,
        )
        return {"dispute_id": dispute_id, "thread_id": thread_id, "post_id": post_id, "seq": seq, "about": kind}

    class DisputeRaised(Aggregate.Event):
        dispute_id: str
        seq: int  # the raiser's own number for the disputed event
        about: str  # the disputed event's kind
        thread_id: str
        post_id: str
        answerers: list[str]  # the hosts who answer, in a game without a GM
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.disputes[self.dispute_id] = {
                "raiser": self.actor,
                "seq": self.seq,
                "about": self.about,
                "thread": self.thread_id,
                "post": self.post_id,
                "answerers": list(self.answerers),
                "audience": list(self.audience),
                "answers": [],
                "outcome": None,
                "note": "",
                "settled_by": None,
            }
            super().apply(game)

    def _open(self, principal: str, dispute_id: Any) -> dict[str, Any]:
        d = self.dispute(dispute_id, principal)
        if d["outcome"] is not None:
            raise RuleViolation(f"this dispute is settled ({d['outcome']})", field="dispute_id")
        return d

    def answer_dispute(self, by: str, dispute_id: Any, text: Any, points_at: Any, *, post_id: str) -> dict[str, Any]:
        """The GM (or a host it was raised to) answers: a post in the dispute's thread, replying to it, and what the
        answer points at (a derivation, a preview, a rollback, a rules replay). Refused, recording nothing, for
        anyone else, a dispute settled or unknown to them, or a bad text or pointer."""
        d = self._open(by, dispute_id)
        if not self.rules_dispute(by, d):
            raise Forbidden(
                f"only the {'GM' if self.has_gm() else 'hosts it was raised to'} answer a dispute",
                field="authorization",
            )
        text = check_post_text(text)
        pointer = check_points_at(points_at)
        self.trigger_event(
            self.PostMade,
            post_id=post_id,
            thread_id=d["thread"],
            text=text,
            tied_to=None,
            rolls=[],
            actor=by,
            audience=list(d["audience"]),
            reply_to=d["post"],
            mentions=would_mention(self.seats, by, list(d["audience"]), text),
        )
        self.trigger_event(
            self.DisputeAnswered,
            dispute_id=dispute_id,
            post_id=post_id,
            points_at=pointer,
            actor=by,
            audience=list(d["audience"]),
        )
        return {"dispute_id": dispute_id, "post_id": post_id, "points_at": pointer}

    class DisputeAnswered(Aggregate.Event):
        dispute_id: str
        post_id: str
        points_at: str | None
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.disputes[self.dispute_id]["answers"].append(
                {"post": self.post_id, "points_at": self.points_at, "by": self.actor}
            )
            super().apply(game)

    def settle_dispute(self, by: str, dispute_id: Any, outcome: Any, note: Any) -> dict[str, Any]:
        """Record a dispute's outcome: ``upheld`` or ``rejected`` by whoever answers it, ``withdrawn`` by its raiser
        (with a note each reader sees). Refused, recording nothing, for anyone else, an unknown outcome or a dispute
        settled already."""
        d = self._open(by, dispute_id)
        if outcome not in OUTCOMES:
            raise RuleViolation(f"an outcome is one of {', '.join(OUTCOMES)}", field="outcome")
        if outcome == "withdrawn" and by != d["raiser"]:
            raise Forbidden("only the seat that raised a dispute withdraws it", field="authorization")
        if outcome != "withdrawn" and not self.rules_dispute(by, d):
            raise Forbidden(
                f"only the {'GM' if self.has_gm() else 'hosts it was raised to'} uphold or reject a dispute",
                field="authorization",
            )
        note = limits.check_text(note, "note", limits.REASON, what="a note").strip()
        self.trigger_event(
            self.DisputeSettled,
            dispute_id=dispute_id,
            outcome=outcome,
            note=note,
            actor=by,
            audience=list(d["audience"]),
        )
        return {"dispute_id": dispute_id, "outcome": outcome}

    class DisputeSettled(Aggregate.Event):
        dispute_id: str
        outcome: str
        note: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            found = game.disputes[self.dispute_id]
            found.update(outcome=self.outcome, note=self.note, settled_by=self.actor)
            super().apply(game)
