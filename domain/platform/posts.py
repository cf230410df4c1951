"""Posts: the table talk of a play-by-post game (issue 16, DESIGN "Posts"). Every ruleset gets them.

Threads:

- ``table``: the public table, where every seat and the GM post;
- ``narration``: the GM's narration (Powers' Tidings is a narration post when a season begins), public,
  posted by whoever rules (the GM; the host where the ruleset has no GM);
- ``desk-<seat>``: one thread per seat with the GM (where the ruleset has no GM, with its hosts);
- private threads (``thr-…``, random ids, so an id tells nothing of how many there are) among seats
  named when one is opened: any seat opens one with the seats it names.

Who sees a thread is fixed as an audience (``domain.visibility``) when it is opened, and every post in it
carries that audience: the GM (and the auditor of a game without a GM) sees every audience; a host who
plays sees a private thread only if it is in it, unless the game's ``host_reads_private_threads`` option
says so (decision: with the option, the hosts at the table when a thread opens join its audience).

A post is an event (``PostMade``) with its thread's audience; editing is a new event (``PostEdited``,
readers see "edited" and, with the game's ``show_earlier_text`` option, the earlier text); the GM (or a
host, where there is no GM) hides a post with a reason (``PostHidden``: hidden from the players' pages,
counts and search; the audit keeps it). ``[roll 3d6]`` in a post rolls through the game's committed dice
(domain.dice): each roll is recorded with the post, with its key and Merkle path, for those who see it.

The aggregate keeps only what later commands check (threads, and each post's thread, author and
hidden flag), beside the ruleset's state (``talk``), so a rollback of the game never unsays a post.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from eventsourcing.domain import Aggregate
from pydantic import BaseModel, ConfigDict, Field

from domain import limits
from domain import visibility as vis
from domain.errors import Forbidden, NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform.roles import HOST, RULE

TABLE = "table"
NARRATION = "narration"
DESK = "desk-"
POST_TEXT = 20_000  # characters of one post (a longer one, or a megabyte, is refused naming ``text``)
THREAD_TITLE = limits.TITLE
MAX_ROLLS = 10  # ``[roll ...]`` in one post
MAX_DICE = 50
MAX_SIDES = 100
ROLL = re.compile(r"\[roll\s+(\d{1,3})\s*d\s*(\d{1,4})\]", re.IGNORECASE)
TIED = ("phase", "action", "battle")
NO_DICE = "no dice are committed in this game now: [roll ...] waits for play"
SCRIPT_OR_STYLE = re.compile(r"<\s*/?\s*(script|style)\b", re.IGNORECASE)


class PostOptions(BaseModel):
    """The options of posting every ruleset's option schema includes."""

    model_config = ConfigDict(extra="forbid", strict=True)

    show_earlier_text: bool = Field(False, description="Readers of an edited post may read what it said before")
    host_reads_private_threads: bool = Field(
        False, description="In a game without a GM, the hosts read every private thread"
    )


def desk(seat: str) -> str:
    """The id of a seat's thread with the GM."""
    return f"{DESK}{seat}"


def rolls_asked(text: str) -> list[tuple[int, int]]:
    """The ``[roll NdS]`` a post asks for, as (count, sides), or RuleViolation naming ``text``."""
    asked = [(int(n), int(s)) for n, s in ROLL.findall(text)]
    if len(asked) > MAX_ROLLS:
        raise RuleViolation(f"a post rolls at most {MAX_ROLLS} times", field="text")
    for n, s in asked:
        if not 1 <= n <= MAX_DICE or not 2 <= s <= MAX_SIDES:
            raise RuleViolation(f"[roll {n}d{s}]: roll 1 to {MAX_DICE} dice of 2 to {MAX_SIDES} sides", field="text")
    return asked


def check_post_text(text: Any) -> str:
    """A post's text: not empty, at most ``POST_TEXT`` characters, no ``<script>`` or ``<style>`` tag; returned
    stripped of outer blank lines.

    Decision: a post is Markdown and any HTML in it is shown as text (projections.render), so a script or
    style tag could do no harm; it is refused anyway (issue 16's bad input), so that whoever sent one learns
    at once that it will not work, and no mail client or export ever carries one from us."""
    limits.check_text(text, "text", POST_TEXT, required=True, what="a post")
    if SCRIPT_OR_STYLE.search(text):
        raise RuleViolation("a post is Markdown: <script> and <style> tags are refused", field="text")
    stripped: str = text.strip("\n\r ")
    return stripped


def check_tied(tied_to: Any) -> str | None:
    """What a post is tied to: ``phase:<id>``, ``action:<id>`` or ``battle:<id>``, or None."""
    if tied_to is None:
        return None
    limits.check_text(tied_to, "tied_to", limits.IDENTIFIER * 2, what="what a post is tied to")
    kind, _, ident = tied_to.partition(":")
    if kind not in TIED or not ident.strip():
        raise RuleViolation("a post is tied to phase:<id>, action:<id> or battle:<id>", field="tied_to")
    return f"{kind}:{ident.strip()}"


def _upcast_reply(state: dict[str, Any]) -> None:
    """Upcast a stored post of version 1, which answered no post."""
    state["reply_to"] = None


def _upcast_mentions(state: dict[str, Any]) -> None:
    """Upcast a stored post of version 2, which recorded no mentions (push read them from its text)."""
    state["mentions"] = []


def names_seat(text: str, names: list[str]) -> bool:
    """Whether a post's text names a seat as ``@name``, by any of its ``names`` (its public name, its id), in any
    case, not inside a longer word or address (``x@name`` and ``@names`` name nobody)."""
    for name in names:
        if name and re.search(rf"(?<![\w@])@{re.escape(name)}(?![\w])", text, re.IGNORECASE):
            return True
    return False


def mentioned(text: str, readers: dict[str, str], author: str) -> list[str]:
    """The seats a post mentions (issue 28): those of ``readers`` (seat -> its name: the seats that read the thread)
    it names as ``@name`` or ``@id``, the author aside, outside the lines it quotes (``> ...``: a reply does not tell
    again whom the post it answers named). A seat that cannot read the thread is never among them, whatever the text
    says: naming it tells it nothing and tells the thread nothing of it."""
    own = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(">"))
    return sorted(s for s, name in readers.items() if s != author and names_seat(own, [name, s]))


def would_mention(seats: dict[str, Any], author: str, audience: list[str], text: str) -> list[str]:
    """The seats (of the game's ``seats``) a post of ``author`` to a thread of ``audience`` would mention: those it
    names among the seats that read the thread (``mentioned``)."""
    readers = {s: str(getattr(p, "name", "") or "") for s, p in seats.items() if vis.can_see(audience, s)}
    return mentioned(text, readers, author)


def unsaid(data: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A post's event data as a reader may see it (its text emptied when it is hidden, its current text when it was
    edited: ``changes``), without whom its words named: the names go with the words (issue 28). The one place the
    timelines (``projections.projector``, ``application.gamestore``) clear a post's mentions."""
    out = {**data, **changes}
    if "mentions" in out:
        out["mentions"] = []
    return out


QUOTE_DEPTH = 20  # replies of replies followed to find what a quote shows: deeper quotes are left as they are


def split_quote(text: str) -> tuple[str, str]:
    """A post's leading quote (its first lines that start with ``>``: what a "Reply" link puts in the draft) and
    the rest, its author's own words."""
    lines = text.splitlines()
    n = 0
    while n < len(lines) and lines[n].lstrip().startswith(">"):
        n += 1
    return "\n".join(lines[:n]), "\n".join(lines[n:])


def requote(text: str, head: str | None) -> str:
    """``text`` with its leading quote replaced by ``head`` (as it is, with ``head`` None or no quote to replace)."""
    quote, rest = split_quote(text)
    if head is None or not quote:
        return text
    return f"{head}\n{rest}" if rest else head


def as_quote(text: str) -> str:
    """Text quoted as a reply quotes it (``> `` before each line)."""
    return "\n".join("> " + line for line in text.splitlines()) or ">"


def quote_heads(facts: dict[str, dict[str, Any]], placeholder: Any) -> dict[str, str]:
    """What the leading quote of each reply must show a reader who may not see hidden posts, where it may not show
    the words it copied (issue 28), by post id: ``placeholder(reason)`` (quoted) for a quote of a hidden post; the
    quoted post's current text for a quote of a post edited since (unless the game shows earlier text) or of a
    reply whose own quote is replaced so. ``facts``: post id -> its ``text`` now, ``reply_to``, ``hidden``,
    ``reason``, ``edited`` and ``earlier_shown``. A reply whose quote may stay is not among them."""
    heads: dict[str, str] = {}
    done: set[str] = set()

    def head_of(pid: str, depth: int) -> str | None:
        if pid in done or depth > QUOTE_DEPTH:
            return heads.get(pid)
        done.add(pid)
        f = facts[pid]
        answered = facts.get(str(f.get("reply_to") or ""))
        if answered is None or not split_quote(str(f["text"]))[0]:
            return None
        if answered["hidden"]:
            heads[pid] = as_quote(placeholder(answered.get("reason")))
        else:
            inner = head_of(str(f["reply_to"]), depth + 1)
            if inner is not None or (answered["edited"] and not answered["earlier_shown"]):
                heads[pid] = as_quote(requote(str(answered["text"]), inner))
        return heads.get(pid)

    for pid in list(facts):
        head_of(pid, 0)
    return heads


def dice_ready(state: Any) -> bool:
    """Whether a post may roll ``[roll ...]`` now: the game (its ``state``) has committed its dice (a preview asks
    too, so that it refuses what sending would)."""
    return getattr(state, "seed_commitment", None) is not None and hasattr(state, "next_roll")


def mentions_of(talk: dict[str, Any], post_id: str) -> list[str]:
    """The seats a post mentions (readers of its thread), for its page's highlight and "mentions you"."""
    return list((talk["posts"].get(post_id) or {}).get("mentions") or [])


def replied_to(talk: dict[str, Any], post_id: str) -> tuple[str, str] | None:
    """The post a post answers and its author, or None (the thread page's "in reply to")."""
    answered = (talk["posts"].get(post_id) or {}).get("reply_to")
    found = talk["posts"].get(answered) if answered else None
    return (str(answered), str(found["author"])) if found else None


class Posts:
    """The posting half of ``PlatformGame`` (a mixin: its events become the platform's events)."""

    if TYPE_CHECKING:  # the aggregate supplies these (domain.platform.game.PlatformGame)
        state: Any
        seat: Any
        seats: Any
        may: Any
        roles_of: Any
        _roll_proof: Any
        trigger_event: Any
        ruleset: Any

    # ------------------------------------------------------------------ what the aggregate keeps

    @property
    def talk(self) -> dict[str, Any]:
        """Threads opened (id -> title, members, audience) and posts (id -> thread, author, hidden)."""
        found = self.__dict__.get("talk")
        if found is None:
            found = self.__dict__["talk"] = {"threads": {}, "posts": {}}
        return found

    def has_gm(self) -> bool:
        """Whether the ruleset's table has a GM (else the organiser is an auditor and hosts rule)."""
        return bool(self.ruleset.roles.organiser == GM)

    def hosts(self) -> list[str]:
        """The seats holding the host role."""
        return sorted(p for p in self.seats if HOST in self.roles_of(p))

    def _option(self, name: str) -> bool:
        return bool((getattr(self.state, "options", None) or {}).get(name, False))

    # ------------------------------------------------------------------ threads

    def thread(self, thread_id: str, viewer: str | None = None) -> dict[str, Any]:
        """The thread (id, kind, title, members, audience), or NotFound; with ``viewer``, NotFound also when
        the viewer may not see it, in the same words (a private thread's existence is not disclosed)."""
        if not isinstance(thread_id, str) or len(thread_id) > limits.IDENTIFIER:
            raise NotFound("no such thread", field="thread_id")
        found: dict[str, Any] | None = None
        if thread_id == TABLE:
            found = {"id": TABLE, "kind": "table", "title": "The table", "members": [], "audience": [vis.PUBLIC]}
        elif thread_id == NARRATION:
            found = {
                "id": NARRATION,
                "kind": "narration",
                "title": "Narration",
                "members": [],
                "audience": [vis.PUBLIC],
            }
        elif thread_id.startswith(DESK) and thread_id[len(DESK) :] in self.seats:
            seat = thread_id[len(DESK) :]
            found = {
                "id": thread_id,
                "kind": "desk",
                "title": f"{self.seats[seat].name} and the {'GM' if self.has_gm() else 'host'}",
                "members": [seat],
                "audience": self._desk_audience(seat),
            }
        elif thread_id in self.talk["threads"]:
            found = {"id": thread_id, "kind": "private", **self.talk["threads"][thread_id]}
        if found is None or (viewer is not None and not vis.can_see(found["audience"], viewer)):
            raise NotFound(f"no thread {thread_id!r} that you may read", field="thread_id")
        return found

    def _desk_audience(self, seat: str) -> list[str]:
        return vis.seats([seat] if self.has_gm() else [seat, *self.hosts()])

    def threads_for(self, viewer: str) -> list[dict[str, Any]]:
        """Every thread this viewer may read: the table, the narration, the desks they see, their private threads."""
        ids = [TABLE, NARRATION, *(desk(p) for p in sorted(self.seats)), *sorted(self.talk["threads"])]
        out = []
        for tid in ids:
            t = self.thread(tid)
            if vis.can_see(t["audience"], viewer):
                out.append(t)
        return out

    def open_thread(self, opener: str, seats: list[str], title: str, thread_id: str) -> dict[str, Any]:
        """A seat (or the GM) opens a private thread with the seats it names (an unknown seat is refused,
        naming ``seats``); the GM is never named, it sees every thread."""
        if opener != GM:
            self.seat(opener)
        elif not self.has_gm():
            raise Forbidden("the auditor reads the table; the seats and hosts talk", field="authorization")
        if not isinstance(seats, list) or not 1 <= len(seats) <= limits.ITEMS:
            raise RuleViolation(f"name 1 to {limits.ITEMS} seats to talk with", field="seats")
        for s in seats:
            if not isinstance(s, str) or s not in self.seats:
                shown = s if isinstance(s, str) and len(s) <= limits.IDENTIFIER else "?"
                raise NotFound(f"no seat {shown!r} in this game", field="seats")
        members = sorted({*seats, *([] if opener == GM else [opener])})
        if len(members) < 2 and opener != GM:
            raise RuleViolation("a private thread is among two seats or more: name another seat", field="seats")
        title = limits.check_text(title, "title", THREAD_TITLE, what="a thread's title").strip()
        if not title:
            title = "Private: " + ", ".join(self.seats[m].name for m in members)
        audience_seats = list(members)
        if not self.has_gm() and self._option("host_reads_private_threads"):
            audience_seats += self.hosts()
        audience = vis.seats(audience_seats)
        self.trigger_event(
            self.ThreadOpened,
            thread_id=thread_id,
            title=title,
            members=members,
            actor=opener,
            audience=audience,
        )
        return self.thread(thread_id)

    class ThreadOpened(Aggregate.Event):
        thread_id: str
        title: str
        members: list[str]
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.talk["threads"][self.thread_id] = {
                "title": self.title,
                "members": list(self.members),
                "audience": list(self.audience),
                "opened_by": self.actor,
            }
            super().apply(game)

    # ------------------------------------------------------------------ posts

    def _may_post(self, principal: str, t: dict[str, Any]) -> None:
        """Who may post where: anyone who reads a thread, but only who rules narrates; an auditor reads only."""
        if not vis.can_see(t["audience"], principal):
            raise NotFound(f"no thread {t['id']!r} that you may read", field="thread_id")
        rules = principal == GM or self.may(principal, RULE)
        if principal == GM and not self.has_gm():
            raise Forbidden("the auditor reads the table; the seats and hosts post", field="authorization")
        if t["kind"] == "narration" and not rules:
            raise Forbidden("only the GM narrates (a host, where there is no GM)", field="thread_id")

    def make_post(
        self,
        author: str,
        thread_id: str,
        text: Any,
        *,
        post_id: str,
        roller: Any = None,
        tied_to: str | None = None,
        reply_to: str | None = None,
    ) -> dict[str, Any]:
        """Post to a thread this author may read: refused, recording nothing, if empty, too long, in a thread
        unknown to the author, asking for dice the game has not committed, or answering (``reply_to``) a post
        the author cannot see in this thread (issue 28)."""
        if author not in (GM, SYSTEM):
            self.seat(author)
        t = self.thread(thread_id, None if author == SYSTEM else author)
        if author != SYSTEM:
            self._may_post(author, t)
        text = check_post_text(text)
        tied = check_tied(tied_to)
        answered = self._answerable(reply_to, author, t["id"])
        rolls = self._roll_for_post(rolls_asked(text), roller)
        self.trigger_event(
            self.PostMade,
            post_id=post_id,
            thread_id=t["id"],
            text=text,
            tied_to=tied,
            rolls=rolls,
            actor=author,
            audience=list(t["audience"]),
            reply_to=answered,
            mentions=would_mention(self.seats, author, t["audience"], text),
        )
        return {
            "post_id": post_id,
            "thread_id": t["id"],
            "rolls": [{k: r[k] for k in ("dice", "faces")} for r in rolls],
        }

    def _answerable(self, reply_to: Any, author: str, thread_id: str) -> str | None:
        """The post a reply answers: one in the same thread (so every reader of the reply reads what it
        answers), not hidden unless the GM replies; else NotFound naming ``reply_to``, in the same words
        whether it is missing, elsewhere or hidden."""
        if reply_to is None:
            return None
        found = self.talk["posts"].get(reply_to) if isinstance(reply_to, str) else None
        if found is None or found["thread"] != thread_id or (found["hidden"] and author != GM):
            shown = reply_to if isinstance(reply_to, str) and len(reply_to) <= limits.IDENTIFIER else "?"
            raise NotFound(f"no post {shown!r} in this thread that you may read to reply to", field="reply_to")
        return str(reply_to)

    def _roll_for_post(self, asked: list[tuple[int, int]], roller: Any) -> list[dict[str, Any]]:
        if not asked:
            return []
        s = self.state
        if not dice_ready(s):
            raise RuleViolation(NO_DICE, field="text")
        if roller is None:
            raise RuntimeError("a post that rolls needs the game's roller")
        out = []
        for i, (n, sides) in enumerate(asked):
            roll_no = s.next_roll + i
            proof = self._roll_proof(roll_no)
            faces = list(roller.faces(roll_no, n, sides))
            out.append(
                {
                    "dice": f"{n}d{sides}",
                    "sides": sides,
                    "faces": faces,
                    "roll_no": roll_no,
                    "commitment": s.seed_commitment,
                    "key": proof.get("key"),
                    "path": proof.get("path"),
                }
            )
        return out

    class PostMade(Aggregate.Event):
        class_version = 3  # 2: ``reply_to``, the post it answers; 3: ``mentions``, the seats it names (issue 28)
        upcast_v1_v2 = staticmethod(_upcast_reply)
        upcast_v2_v3 = staticmethod(_upcast_mentions)

        post_id: str
        thread_id: str
        text: str
        tied_to: str | None
        rolls: list[dict[str, Any]]
        actor: str
        audience: list[str]
        reply_to: str | None
        mentions: list[str]

        def apply(self, game: Any) -> None:
            game.talk["posts"][self.post_id] = {
                "thread": self.thread_id,
                "author": self.actor,
                "hidden": False,
                "reply_to": self.reply_to,
                "mentions": list(self.mentions),
            }
            if self.rolls:
                game.state.next_roll = max(r["roll_no"] for r in self.rolls) + 1
            super().apply(game)

    def _post(self, post_id: Any, viewer: str) -> dict[str, Any]:
        """The post, if the viewer may read its thread; else NotFound in the same words as a missing one."""
        found: dict[str, Any] | None = self.talk["posts"].get(post_id) if isinstance(post_id, str) else None
        if found is None or not vis.can_see(self.thread(found["thread"])["audience"], viewer):
            shown = post_id if isinstance(post_id, str) and len(post_id) <= limits.IDENTIFIER else "?"
            raise NotFound(f"no post {shown!r} that you may read", field="post_id")
        return found

    def edit_post(self, editor: str, post_id: str, text: Any) -> None:
        """The author rewrites a post (a new event: readers see it was edited); dice are not rolled again."""
        p = self._post(post_id, editor)
        if p["author"] != editor:
            raise Forbidden("only its author edits a post", field="post_id")
        if p["hidden"]:
            raise RuleViolation("this post is hidden; it cannot be edited", field="post_id")
        text = check_post_text(text)
        if ROLL.search(text):
            raise RuleViolation("an edit rolls no dice: post again to roll", field="text")
        self.trigger_event(
            self.PostEdited,
            post_id=post_id,
            thread_id=p["thread"],
            text=text,
            actor=editor,
            audience=list(self.thread(p["thread"])["audience"]),
        )

    class PostEdited(Aggregate.Event):
        post_id: str
        thread_id: str
        text: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            # Whom the post mentions is whom its words name now: the edited text's (the earlier text's, once the
            # earlier text is not shown, would tell its readers what it said; issue 28).
            p = game.talk["posts"].get(self.post_id)
            if p is not None:
                audience = game.thread(p["thread"])["audience"]
                p["mentions"] = would_mention(game.seats, self.actor, audience, self.text)
            super().apply(game)

    def hidden_by(self, post_id: str) -> str | None:
        """Who hid a post (``gm``, or the host's seat), for its placeholder; None if it is not hidden."""
        p = self.talk["posts"].get(post_id)
        if not p or not p["hidden"]:
            return None
        return str(p.get("hidden_by") or (GM if self.has_gm() else HOST))

    def hide_post(self, moderator: str, post_id: str, reason: Any) -> None:
        """The GM (a host, where there is no GM) hides a post from the players, with a reason; the audit keeps it."""
        moderates = moderator == GM if self.has_gm() else moderator != GM and HOST in self.roles_of(moderator)
        if not moderates:
            raise Forbidden(f"only the {'GM' if self.has_gm() else 'host'} hides a post", field="authorization")
        p = self._post(post_id, moderator)
        reason = limits.check_text(reason, "reason", limits.REASON, required=True, what="a reason").strip()
        if p["hidden"]:
            return
        self.trigger_event(
            self.PostHidden,
            post_id=post_id,
            thread_id=p["thread"],
            reason=reason,
            actor=moderator,
            audience=list(self.thread(p["thread"])["audience"]),
        )

    class PostHidden(Aggregate.Event):
        post_id: str
        thread_id: str
        reason: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.talk["posts"][self.post_id]["hidden"] = True
            game.talk["posts"][self.post_id]["hidden_by"] = self.actor  # the placeholder names who hid it
            super().apply(game)

    def narrate(self, text: str, *, post_id: str, actor: str = GM, tied_to: str | None = None) -> dict[str, Any]:
        """The GM's narration: a post in the public narration thread (Powers' Tidings)."""
        return self.make_post(actor, NARRATION, text, post_id=post_id, tied_to=tied_to)
