"""Posts as read models (issue 16): threads, their posts in order, unread counts and search.

The projector applies the posting events (``apply``) in the transaction that records its position, so
these tables are rebuilt from the events like every read model. A thread's row is made by the first event
that names it (``ThreadOpened``, or the first post of the table, the narration or a seat's desk) with the
audience that event carries: who may read a thread is fixed when it is opened (domain.platform.posts).

Reads never project and cost the same at any length: a page of a thread is one range of its primary key
(keyset pagination on the post's number in the thread), an unread count a range count from the viewer's
last-read post (``post_reads``, kept outside the event store since reading records no event), and search
goes through SQLite's FTS5 index or PostgreSQL's GIN index over the posts of the threads the viewer may read.

A viewer is ``gm`` or a seat id; ``vis.can_see`` decides, as for every event. A hidden post keeps its place on
a thread's page and under what it is tied to, as a placeholder with its reason (issue 28): for everyone but
``gm`` (the GM, or the auditor of a game without one) its text, HTML, dice and earlier text are emptied. Counts
and search leave it out. A reply that quotes it shows that placeholder, with the reason, in place of the words it
quoted, and one that quotes an edited post its current text (unless the game shows earlier text): wherever a
reply's words reach a reader who may not see hidden posts (``shown_heads``: pages, search, the timelines, mail).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable

from domain import visibility as vis
from domain.ids import GM
from domain.platform.i18n import _
from domain.platform.posts import DESK, NARRATION, QUOTE_DEPTH, TABLE, quote_heads, requote
from projections.db import Cursor, ReadModelDB
from projections.render import to_html

Run = Callable[[str, tuple], list]

KINDS = {"ThreadOpened", "PostMade", "PostEdited", "PostHidden"}
PAGE = 50
MAX_PAGE = 200
SEARCH_LIMIT = 50
TIED_SHOWN = 20  # posts a board shows under one action, battle or phase (the newest; the API gives more)
FIXED = {
    TABLE: ("table", "The table"),
    NARRATION: ("narration", "Narration"),
}


def _kind_title(thread_id: str) -> tuple[str, str]:
    if thread_id in FIXED:
        return FIXED[thread_id]
    if thread_id.startswith(DESK):
        return "desk", f"{thread_id[len(DESK) :]} and the GM"
    return "private", thread_id


# ---------------------------------------------------------------------- writes (the projector)


def apply(
    cur: Cursor,
    dialect: str,
    kind: str,
    gid: str,
    version: int,
    at: str,
    actor: str,
    audience: list,
    data: dict,
    show_earlier: bool = False,
) -> dict | None:
    """Apply one posting event to the read models; for a post, the notification its readers are sent.
    ``show_earlier``: the game's ``show_earlier_text`` option, kept with each post for the timelines."""
    if kind == "ThreadOpened":
        cur.execute(
            "INSERT INTO rm_threads (game_id, thread_id, kind, title, members, audience, version, posts, last_at) "
            "VALUES (?,?,?,?,?,?,?,0,NULL) ON CONFLICT (game_id, thread_id) DO NOTHING",
            (
                gid,
                data["thread_id"],
                "private",
                data["title"],
                json.dumps(data["members"]),
                ",".join(audience),
                version,
            ),
        )
    elif kind == "PostMade":
        tid = data["thread_id"]
        k, title = _kind_title(tid)
        members = [tid[len(DESK) :]] if k == "desk" else []
        cur.execute(
            "INSERT INTO rm_threads (game_id, thread_id, kind, title, members, audience, version, posts, last_at) "
            "VALUES (?,?,?,?,?,?,?,0,NULL) ON CONFLICT (game_id, thread_id) DO NOTHING",
            (gid, tid, k, title, json.dumps(members), ",".join(audience), version),
        )
        row = cur.execute(
            "UPDATE rm_threads SET posts = posts + 1, last_at = ? WHERE game_id = ? AND thread_id = ? RETURNING posts",
            (at, gid, tid),
        ).fetchone()
        seq = row[0] if row else 1
        rolls = data.get("rolls") or []
        cur.execute(
            "INSERT INTO rm_posts (game_id, thread_id, seq, post_id, version, author, at, text, html, rolls, tied_to, "
            "edited_at, earlier, hidden, hidden_reason, earlier_shown) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,NULL,'[]',0,NULL,?)",
            (
                gid,
                tid,
                seq,
                data["post_id"],
                version,
                actor,
                at,
                data["text"],
                to_html(data["text"], rolls),
                json.dumps(rolls),
                data.get("tied_to"),
                int(show_earlier),
            ),
        )
        if dialect == "sqlite":
            _index(cur, gid, data)
        found = cur.execute("SELECT title FROM rm_threads WHERE game_id = ? AND thread_id = ?", (gid, tid)).fetchone()
        said = notification(actor, tid, found[0] if found else title, _quoted_now(cur, gid, data), rolls)
        return {**said, "mentions": list(data.get("mentions") or [])}
    elif kind == "PostEdited":
        row = cur.execute(
            "SELECT text, html, COALESCE(edited_at, at), earlier FROM rm_posts WHERE game_id = ? AND post_id = ?",
            (gid, data["post_id"]),
        ).fetchone()
        if row is None:
            return None
        earlier = [*json.loads(row[3]), {"text": row[0], "html": row[1], "at": row[2]}]
        cur.execute(
            "UPDATE rm_posts SET text = ?, html = ?, edited_at = ?, earlier = ? WHERE game_id = ? AND post_id = ?",
            (data["text"], to_html(data["text"]), at, json.dumps(earlier), gid, data["post_id"]),
        )
        if dialect == "sqlite":
            cur.execute("DELETE FROM rm_post_search WHERE game_id = ? AND post_id = ?", (gid, data["post_id"]))
            _index(cur, gid, data)
    elif kind == "PostHidden":
        cur.execute(
            "UPDATE rm_posts SET hidden = 1, hidden_reason = ? WHERE game_id = ? AND post_id = ?",
            (data["reason"], gid, data["post_id"]),
        )
    return None


def hidden_quote(reason: str | None) -> str:
    """What a reply's quote of a hidden post shows instead of its words (issue 28), in the reader's language."""
    if reason:
        return _("[The post quoted here was hidden: {reason}]").format(reason=reason)
    return _("[The post quoted here was hidden.]")


def quote_facts(run: Run, gid: str, ids: Iterable[str]) -> dict[str, dict]:
    """What ``domain.platform.posts.quote_heads`` needs of the posts ``ids`` and of those they answer, down the
    chain of replies: each one's text now, whether it is hidden (and why) or edited, and the post it answers (the
    audit keeps its ``PostMade``). ``run``: a query on the read models."""
    facts: dict[str, dict] = {}
    asked: set[str] = set()
    want = {i for i in ids if i}
    for _depth in range(QUOTE_DEPTH + 1):
        new = sorted(want - asked)
        if not new:
            break
        asked |= set(new)
        for i in range(0, len(new), 500):
            part = new[i : i + 500]
            rows = run(
                "SELECT p.post_id, p.text, p.hidden, p.hidden_reason, p.edited_at, p.earlier_shown, a.data "
                "FROM rm_posts p LEFT JOIN rm_audit a ON a.game_id = p.game_id AND a.version = p.version "
                f"WHERE p.game_id = ? AND p.post_id IN ({','.join('?' for _ in part)})",
                (gid, *part),
            )
            for post_id, text, hidden, reason, edited_at, earlier_shown, data in rows:
                facts[post_id] = {
                    "text": text,
                    "hidden": bool(hidden),
                    "reason": reason,
                    "edited": edited_at is not None,
                    "earlier_shown": bool(earlier_shown),
                    "reply_to": json.loads(data).get("reply_to") if data else None,
                }
        want = {f["reply_to"] for f in facts.values() if f["reply_to"]}
    return facts


def shown_heads(run: Run, gid: str, ids: Iterable[str]) -> dict[str, str]:
    """The leading quote each of the replies ``ids`` must show a reader who may not see hidden posts, where it may
    not show what it copied (``quote_heads``), by post id."""
    ids = set(ids)
    heads = quote_heads(quote_facts(run, gid, ids), hidden_quote)
    return {pid: head for pid, head in heads.items() if pid in ids}


def _quoted_now(cur: Cursor, gid: str, data: dict) -> str:
    """A new post's text as its notification may carry it: a quote of a post hidden (or edited) before it was
    answered shows what its readers may see of that post."""
    answered = data.get("reply_to")
    if not answered:
        return str(data["text"])
    facts = quote_facts(lambda sql, p: cur.execute(sql, p).fetchall(), gid, [answered])
    facts[data["post_id"]] = {
        "text": data["text"],
        "hidden": False,
        "reason": None,
        "edited": False,
        "earlier_shown": False,
        "reply_to": answered,
    }
    return requote(str(data["text"]), quote_heads(facts, hidden_quote).get(data["post_id"]))


def notification(author: str, thread_id: str, title: str, text: str, rolls: list) -> dict:
    """The mail a post's readers are sent (the worker adds the reply address of each reader's thread)."""
    dice = "".join(f"\n[roll {r['dice']}: {', '.join(map(str, r['faces']))} = {sum(r['faces'])}]" for r in rolls)
    who = "The GM" if author == GM else author
    return {
        "subject": f"New post: {title}",
        "text": f"{who} wrote in {title}:\n\n{text}{dice}",
        "thread_id": thread_id,
        "title": title,
        "author": author,  # the mail names its author by the seat's name, in its reader's language (issue 28)
    }


def _index(cur: Cursor, gid: str, data: dict) -> None:
    cur.execute(
        "INSERT INTO rm_post_search (text, game_id, post_id) VALUES (?,?,?)", (data["text"], gid, data["post_id"])
    )


# ---------------------------------------------------------------------- reads


class Posts:
    """The posts read models, for one viewer at a time."""

    def __init__(self, db: ReadModelDB) -> None:
        self.db = db

    def _threads(self, gid: str) -> dict[str, dict]:
        rows = self.db.query(
            "SELECT thread_id, kind, title, members, audience, version, posts, last_at FROM rm_threads "
            "WHERE game_id = ? ORDER BY version",
            (gid,),
        )
        return {
            r[0]: {
                "id": r[0],
                "kind": r[1],
                "title": r[2],
                "members": json.loads(r[3]),
                "audience": r[4].split(","),
                "posts": r[6],
                "last_at": r[7],
            }
            for r in rows
        }

    def thread(self, gid: str, viewer: str, thread_id: str) -> dict | None:
        """The thread if the viewer may read it (a thread nobody has posted to yet shows as empty), else None."""
        seats = [thread_id[len(DESK) :]] if thread_id.startswith(DESK) else None
        return next((t for t in self.threads(gid, viewer, seats=seats, counts=False) if t["id"] == thread_id), None)

    def threads(self, gid: str, viewer: str, *, seats: list[str] | None = None, counts: bool = True) -> list[dict]:
        """The threads the viewer may read, with how many posts each has that the viewer has not read.

        ``seats`` (the game's seats, when the caller knows them) adds the threads nobody has posted to yet:
        the table, the narration, and the viewer's own desk (every desk, for the GM)."""
        found = self._threads(gid)
        always = [TABLE, NARRATION]
        if viewer != GM:
            always.append(f"{DESK}{viewer}")
        elif seats:
            always += [f"{DESK}{s}" for s in seats]
        for tid in always:
            if tid not in found and (tid in FIXED or viewer != GM or seats is not None):
                k, title = _kind_title(tid)
                audience = [vis.PUBLIC] if tid in FIXED else [vis.seat(tid[len(DESK) :])]
                members = [tid[len(DESK) :]] if k == "desk" else []
                found[tid] = {
                    "id": tid,
                    "kind": k,
                    "title": title,
                    "members": members,
                    "audience": audience,
                    "posts": 0,
                    "last_at": None,
                }
        visible = [t for t in found.values() if vis.can_see(t["audience"], viewer)]
        marks = (
            dict(self.db.query("SELECT thread_id, seq FROM post_reads WHERE game_id = ? AND viewer = ?", (gid, viewer)))
            if counts
            else {}
        )
        for t in visible:
            if counts:
                t["unread"] = self._unread(gid, viewer, t["id"], marks.get(t["id"], 0)) if t["posts"] else 0
            t.pop("audience")
        order = {TABLE: 0, NARRATION: 1}
        return sorted(visible, key=lambda t: (order.get(t["id"], 2), t["kind"] != "desk", t["title"], t["id"]))

    def _unread(self, gid: str, viewer: str, thread_id: str, after: int) -> int:
        hidden = "" if viewer == GM else " AND hidden = 0"
        rows = self.db.query(
            f"SELECT COUNT(*) FROM rm_posts WHERE game_id = ? AND thread_id = ? AND seq > ? AND author != ?{hidden}",
            (gid, thread_id, after, viewer),
        )
        return int(rows[0][0]) if rows else 0

    def unread_total(self, gid: str, viewer: str) -> int:
        """Posts the viewer has not read, in every thread they may read (the board shows it)."""
        return sum(t["unread"] for t in self.threads(gid, viewer))

    def page(
        self,
        gid: str,
        viewer: str,
        thread_id: str,
        *,
        before: int | None = None,
        after: int | None = None,
        limit: int = PAGE,
        show_earlier: bool = False,
    ) -> tuple[list[dict], int | None] | None:
        """One page of a thread the viewer may read, oldest first: the newest ``limit`` posts, or those
        ``before`` a post number (older) or ``after`` one (newer); with the number to continue from (None at
        the end). None if the viewer may not read the thread (the caller answers as for a missing one)."""
        t = self.thread(gid, viewer, thread_id)
        if t is None:
            return None
        limit = min(max(int(limit), 1), MAX_PAGE)
        cols = "seq, post_id, author, at, text, html, rolls, tied_to, edited_at, earlier, hidden, hidden_reason"
        if after is not None:
            rows = self.db.query(
                f"SELECT {cols} FROM rm_posts WHERE game_id = ? AND thread_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                (gid, thread_id, int(after), limit + 1),
            )
            more = len(rows) > limit
            rows = rows[:limit]
            cursor = rows[-1][0] if more and rows else None
        else:
            bound = int(before) if before is not None else 2**62
            rows = self.db.query(
                f"SELECT {cols} FROM rm_posts WHERE game_id = ? AND thread_id = ? AND seq < ? "
                "ORDER BY seq DESC LIMIT ?",
                (gid, thread_id, bound, limit + 1),
            )
            more = len(rows) > limit
            rows = list(reversed(rows[:limit]))
            cursor = rows[0][0] if more and rows else None
        return self._requote(gid, viewer, [self._post(r, viewer, show_earlier) for r in rows]), cursor

    @staticmethod
    def _post(r: tuple, viewer: str, show_earlier: bool) -> dict:
        seq, post_id, author, at, text, html, rolls, tied_to, edited_at, earlier, hidden, reason = r
        post = {
            "seq": seq,
            "post_id": post_id,
            "author": author,
            "at": at,
            "text": text,
            "html": html,
            "rolls": json.loads(rolls),
            "tied_to": tied_to,
            "edited": edited_at is not None,
            "edited_at": edited_at,
        }
        if show_earlier or viewer == GM:
            post["earlier"] = json.loads(earlier)
        post["hidden"] = bool(hidden)
        post["hidden_reason"] = reason if hidden else None
        if hidden and viewer != GM:  # the placeholder: who wrote it, when, and why it was hidden; never its words
            post.update(text="", html="", rolls=[])
            post.pop("earlier", None)
        return post

    def _requote(self, gid: str, viewer: str, posts: list[dict]) -> list[dict]:
        """``posts`` as a reader who may not see hidden posts may read them (issue 28, ``shown_heads``): a reply's
        quote of a hidden post is a placeholder with the reason, its quote of an edited post that post's current
        text; in its earlier texts too. The GM reads what was written."""
        if viewer == GM or not posts:
            return posts
        heads = shown_heads(self.db.query, gid, [p["post_id"] for p in posts if not p["hidden"]])
        for p in posts:
            head = heads.get(p["post_id"])
            if head is None:
                continue
            p["text"] = requote(p["text"], head)
            p["html"] = to_html(p["text"], p["rolls"])
            if "earlier" in p:
                p["earlier"] = [
                    {**e, "text": requote(e["text"], head), "html": to_html(requote(e["text"], head))}
                    for e in p["earlier"]
                ]
        return posts

    def one(self, gid: str, viewer: str, post_id: str) -> dict | None:
        """One post the viewer may read, with its thread (a reply's quote, the link to what a reply answers);
        None if there is none, or the viewer may not read its thread. Hidden: a placeholder, as on its page."""
        cols = "seq, post_id, author, at, text, html, rolls, tied_to, edited_at, earlier, hidden, hidden_reason"
        rows = self.db.query(
            f"SELECT thread_id, {cols} FROM rm_posts WHERE game_id = ? AND post_id = ?", (gid, post_id)
        )
        if not rows or self.thread(gid, viewer, rows[0][0]) is None:
            return None
        return self._requote(gid, viewer, [{"thread_id": rows[0][0], **self._post(rows[0][1:], viewer, False)}])[0]

    def mark_read(self, gid: str, viewer: str, thread_id: str, seq: int | None = None) -> int | None:
        """The viewer has read the thread up to post ``seq`` (the latest, if None); the mark never moves back.
        None if the viewer may not read the thread."""
        t = self.thread(gid, viewer, thread_id)
        if t is None:
            return None
        upto = t["posts"] if seq is None else max(0, min(int(seq), t["posts"]))
        with self.db.transaction() as cur:
            cur.execute(
                "INSERT INTO post_reads (game_id, viewer, thread_id, seq) VALUES (?,?,?,?) ON CONFLICT "
                "(game_id, viewer, thread_id) DO UPDATE SET seq = CASE WHEN excluded.seq > post_reads.seq "
                "THEN excluded.seq ELSE post_reads.seq END",
                (gid, viewer, thread_id, upto),
            )
        return upto

    def tied(self, gid: str, viewer: str, tied_to: str, *, limit: int = PAGE) -> list[dict]:
        """The posts tied to a phase, an action or a battle (``phase:<id>``...), oldest first, in the threads the
        viewer may read: what the page of that phase, action or battle shows."""
        visible = {t["id"]: t["title"] for t in self.threads(gid, viewer, counts=False)}
        marks = ",".join("?" for _ in visible)
        cols = "seq, post_id, author, at, text, html, rolls, tied_to, edited_at, earlier, hidden, hidden_reason"
        rows = self.db.query(
            f"SELECT thread_id, {cols} FROM rm_posts WHERE game_id = ? AND tied_to = ? AND thread_id IN ({marks}) "
            "ORDER BY version LIMIT ?",
            (gid, tied_to, *visible, min(max(int(limit), 1), MAX_PAGE)),
        )
        posts = [{"thread_id": r[0], "thread_title": visible[r[0]], **self._post(r[1:], viewer, False)} for r in rows]
        return self._requote(gid, viewer, posts)

    def tied_to_many(
        self, gid: str, viewer: str, ties: list[str], threads: list[dict] | None = None, *, per: int = TIED_SHOWN
    ) -> dict[str, list[dict]]:
        """The posts tied to each of ``ties`` (``action:<id>``...), in the threads the viewer may read, with the
        same visibility as ``tied`` and the thread pages (a hidden post is a placeholder but for ``gm``): the newest
        ``per`` of each, oldest first. One query for a whole page of actions, battles and phases, whatever their number;
        ``threads``, the threads the viewer may read as ``threads`` gives them (a board has them already for its
        talk box), saves reading them again."""
        ties = sorted({t for t in ties if t})
        readable = self.threads(gid, viewer, counts=False) if threads is None else threads
        visible = {t["id"]: t["title"] for t in readable}
        if not ties or not visible:
            return {}
        cols = "seq, post_id, author, at, text, html, rolls, tied_to, edited_at, earlier, hidden, hidden_reason"
        rows = self.db.query(
            f"SELECT thread_id, {cols} FROM (SELECT thread_id, version, {cols}, ROW_NUMBER() OVER "
            "(PARTITION BY tied_to ORDER BY version DESC) AS n FROM rm_posts WHERE game_id = ? "
            f"AND tied_to IN ({','.join('?' for _ in ties)}) AND thread_id IN ({','.join('?' for _ in visible)})"
            ") AS newest WHERE n <= ? ORDER BY version",
            (gid, *ties, *visible, min(max(int(per), 1), MAX_PAGE)),
        )
        found: dict[str, list[dict]] = {}
        posts = [{"thread_id": r[0], "thread_title": visible[r[0]], **self._post(r[1:], viewer, False)} for r in rows]
        for post in self._requote(gid, viewer, posts):
            found.setdefault(post["tied_to"], []).append(post)
        return found

    def search(self, gid: str, viewer: str, query: str, *, limit: int = SEARCH_LIMIT) -> list[dict]:
        """Posts matching every word of ``query``, newest first, among the threads the viewer may read."""
        words = re.findall(r"\w+", query or "")[:20]
        if not words:
            return []
        visible = {t["id"]: t["title"] for t in self.threads(gid, viewer)}
        if not visible:
            return []
        limit = min(max(int(limit), 1), MAX_PAGE)
        marks = ",".join("?" for _ in visible)
        hidden = "" if viewer == GM else " AND p.hidden = 0"
        cols = "p.thread_id, p.seq, p.post_id, p.author, p.at, p.html, p.edited_at"
        if self.db.dialect == "sqlite":
            match = " ".join('"' + w.replace('"', "") + '"' for w in words)
            rows = self.db.query(
                f"SELECT {cols} FROM rm_post_search s "
                "JOIN rm_posts p ON p.game_id = s.game_id AND p.post_id = s.post_id "
                f"WHERE rm_post_search MATCH ? AND s.game_id = ? AND p.thread_id IN ({marks}){hidden} "
                "ORDER BY p.version DESC LIMIT ?",
                (match, gid, *visible, limit),
            )
        else:
            rows = self.db.query(
                f"SELECT {cols} FROM rm_posts p WHERE p.search @@ plainto_tsquery('simple', ?) AND p.game_id = ? "
                f"AND p.thread_id IN ({marks}){hidden} ORDER BY p.version DESC LIMIT ?",
                (" ".join(words), gid, *visible, limit),
            )
        # A reply whose quote a reader may not read as it was written is found by its own words and what its
        # quote shows (issue 28): never by the words of a hidden post, nor by an edited post's earlier words.
        heads = shown_heads(self.db.query, gid, [r[2] for r in rows]) if viewer != GM else {}
        texts = self._texts(gid, list(heads))
        shown = {pid: requote(text, heads[pid]) for pid, (text, _rolls) in texts.items()}
        asked = {w.casefold() for w in words}
        return [
            {
                "thread_id": tid,
                "thread_title": visible[tid],
                "seq": seq,
                "post_id": pid,
                "author": author,
                "at": at,
                "html": to_html(shown[pid], texts[pid][1]) if pid in shown else html,
                "edited": edited is not None,
            }
            for tid, seq, pid, author, at, html, edited in rows
            if pid not in shown or asked <= {w.casefold() for w in re.findall(r"\w+", shown[pid])}
        ]

    def _texts(self, gid: str, ids: list[str]) -> dict[str, tuple[str, list]]:
        """The current text and the dice of the posts ``ids``."""
        if not ids:
            return {}
        marks = ",".join("?" for _ in ids)
        rows = self.db.query(
            f"SELECT post_id, text, rolls FROM rm_posts WHERE game_id = ? AND post_id IN ({marks})", (gid, *ids)
        )
        return {pid: (text, json.loads(rolls)) for pid, text, rolls in rows}
