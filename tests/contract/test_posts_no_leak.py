"""The no-leak property for posts (issue 16), on every registered ruleset and the fake one: whatever seats
open, post, edit and hide, nobody learns a private thread's text, its existence or its participants unless
they are in it (or the GM, or the auditor of a game without a GM): not from their events, their view, their
thread list, their unread counts, a thread's pages, search, nor the mail they are sent (notifications, and so
the daily digests made of them).

The model of who may read what is written here from issue 16, independently of ``domain.platform.posts``:
every text is a unique marker word and ``allowed[marker]`` the seats that may read it. A private thread is
read by its members (the opener and the seats it names); a seat's desk by the seat, and, where the ruleset
has no GM, by its hosts; the table and the narration by everyone. A hidden post leaves every seat's pages,
counts, search and the mail read now (``workers.mail.moderated``: what a ledger, a digest and a late sending show).
A post may mention seats (``@name`` or ``@id``, issue 28): the seats named that read its thread, its author aside,
are told of it as ``mention`` (mail and push read the kind so), and nobody else is: a seat named in a private thread
it is not in is told nothing. A reply quotes the post it answers as its replier reads it (what the "Reply" link puts
in the draft, issue 28): the quoted words stay the quoted post's markers, so once that post is hidden (or edited)
they may reach nobody through the reply either, and a reply made to a post already hidden (the GM may) mails no
player its words. ``test_the_checker_catches_a_planted_leak`` (and ``..._a_planted_mention``,
``..._a_planted_quote``) show the checker fails on a leak.
"""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from api.compose import build_projector
from application.notify_policy import kind_of
from application.service import Caller, Games
from domain.errors import DomainError, Forbidden, NotFound
from domain.ids import GM
from domain.platform import posts as domain_posts
from domain.platform.commands import EditPost, HidePost, MakePost, OpenThread
from tests.contract.conftest import RULESETS, registered
from tests.contract.drivers import DRIVERS
from workers.mail import moderated

_marks = itertools.count()

op = st.tuples(
    st.sampled_from(["open", "post", "post", "mention", "desk", "edit", "hide", "reply", "reply"]),
    st.integers(0, 9),  # who
    st.lists(st.integers(0, 9), min_size=1, max_size=3),  # seats named / which thread
    st.integers(0, 99),  # which post
)


class Table:
    """A played game of one ruleset, its read models, and the model of who may read each marker."""

    def __init__(self, ruleset: str) -> None:
        self.games = Games(snapshot_interval=7)
        self.projector = build_projector(self.games)
        played = DRIVERS[ruleset].play(self.games)
        self.game_id = played.game_id
        self.seats = [v for v in played.viewers if v != GM]
        game = self.games.get_game(self.game_id, for_update=False)
        self.key = str(game.id)
        self.has_gm = game.ruleset.roles.organiser == GM
        self.hosts = {s for s in self.seats if "host" in game.roles_of(s)}
        self.names = {s: game.seats[s].name for s in self.seats}
        self.allowed: dict[str, set[str]] = {}  # marker -> seats that may read it (the GM reads all)
        self.told: dict[str, set[str]] = {}  # marker -> seats it may have been mailed to (before any hiding)
        self.threads: dict[str, set[str]] = {"table": set(self.seats), "narration": set(self.seats)}
        for s in self.seats:
            self.threads[f"desk-{s}"] = {s} | (set() if self.has_gm else self.hosts)
        self.posts: dict[str, dict] = {}  # post id -> thread, author, hidden
        self.quiet: dict[str, set[str]] = {}  # a reply's own marker -> the markers nobody could read when it was sent

    def marker(self, readers: set[str]) -> str:
        m = f"MARK{next(_marks):05d}X"
        self.allowed[m] = set(readers)
        self.told[m] = set(readers)
        return m

    def run(self, who: str, command) -> dict:
        before = self.games.recorder.max_notification_id()
        try:
            return self.games.run(Caller.of(who), self.game_id, command).result
        except DomainError:
            assert self.games.recorder.max_notification_id() == before, "a refused command records nothing"
            raise

    def apply(self, o: tuple) -> None:
        kind, who_i, picks, post_i = o
        everyone = [GM, *self.seats]
        who = everyone[who_i % len(everyone)]
        may_post = who != GM or self.has_gm
        if kind == "open" and not may_post:
            with pytest.raises(Forbidden):  # the auditor of a game without a GM reads, and talks to nobody
                self.run(who, OpenThread([self.seats[0]], "x"))
        elif kind == "open":
            named = sorted({self.seats[i % len(self.seats)] for i in picks})
            members = set(named) | ({who} if who != GM else set())
            if who != GM and len(members) < 2:
                with pytest.raises(DomainError):
                    self.run(who, OpenThread(named, "x"))
                return
            title = self.marker(members)
            tid = self.run(who, OpenThread(named, title))["thread_id"]
            self.allowed[tid] = set(members)  # its id: who learns it, learns that it exists
            self.threads[tid] = set(members)
        elif kind in ("post", "desk", "mention"):
            ids = sorted(self.threads)
            tid = f"desk-{self.seats[picks[0] % len(self.seats)]}" if kind == "desk" else ids[picks[0] % len(ids)]
            readers = self.threads[tid]
            text = self.marker(readers)
            named = {self.seats[i % len(self.seats)] for i in picks[1:]} if kind == "mention" else set()
            # by name, or by id in capitals: both name the seat
            text += "".join(f" @{self.names[n] if post_i % 2 else n.upper()}," for n in sorted(named))
            if who != GM and who not in readers:
                with pytest.raises(NotFound):  # as if the thread did not exist
                    self.run(who, MakePost(tid, text))
                return
            rules = who == GM if self.has_gm else who in self.hosts
            if not may_post or (tid == "narration" and not rules):
                with pytest.raises(Forbidden):
                    self.run(who, MakePost(tid, text))
                return
            pid = self.run(who, MakePost(tid, text))["post_id"]
            told = (named & readers) - {who}  # the model: only a reader of the thread, never the author
            self.posts[pid] = {
                "thread": tid,
                "author": who,
                "hidden": False,
                "text": text,
                "said": [text],
                "named": told,
            }
        elif kind == "reply" and self.posts:
            self.reply(who, sorted(self.posts)[post_i % len(self.posts)], may_post)
        elif kind == "edit" and self.posts:
            pid = sorted(self.posts)[post_i % len(self.posts)]
            p = self.posts[pid]
            if p["author"] != who or p["hidden"]:
                with pytest.raises(DomainError):
                    self.run(who, EditPost(pid, "an edit"))
                return
            text = self.marker(self.threads[p["thread"]])
            self.run(who, EditPost(pid, text))
            for m in p["said"]:  # readers see it was edited, not what it said (the games here show no earlier text)
                self.allowed[m] = set()
            p["text"] = text
            p["said"].append(text)
        elif kind == "hide" and self.posts:
            pid = sorted(self.posts)[post_i % len(self.posts)]
            p = self.posts[pid]
            moderator = who == GM if self.has_gm else who in self.hosts
            readers = self.threads[p["thread"]]
            if not moderator or (who != GM and who not in readers):
                with pytest.raises(DomainError):
                    self.run(who, HidePost(pid, "no"))
                return
            self.run(who, HidePost(pid, "moderated"))
            p["hidden"] = True
            for m in p["said"]:  # hidden from the players everywhere (their timeline too); the GM keeps it
                self.allowed[m] = set()

    def reply(self, who: str, pid: str, may_post: bool) -> None:
        """``who`` answers post ``pid``, quoting it as ``who`` reads it (the GM reads a hidden post too)."""
        p = self.posts[pid]
        tid = p["thread"]
        readers = self.threads[tid]
        if who != GM and (who not in readers or p["hidden"]):
            with pytest.raises(NotFound):  # as if the post did not exist
                self.run(who, MakePost(tid, "x", reply_to=pid))
            return
        rules = who == GM if self.has_gm else who in self.hosts
        if not may_post or (tid == "narration" and not rules):
            with pytest.raises(Forbidden):
                self.run(who, MakePost(tid, "x", reply_to=pid))
            return
        self.projector.catch_up()
        quoted = self.projector.posts.one(self.key, who, pid)["text"]
        own = self.marker(readers)
        new = self.run(who, MakePost(tid, f"{domain_posts.as_quote(quoted)}\n\n{own}", reply_to=pid))["post_id"]
        self.posts[new] = {"thread": tid, "author": who, "hidden": False, "text": own, "said": [own], "named": set()}
        self.quiet[own] = {m for m, may in self.allowed.items() if not may}

    def surfaces(self, v: str) -> tuple[str, str]:
        """Everything ``v`` is shown (events and view; read models: threads, pages, search), as text; and the
        read models alone."""
        self.projector.catch_up()
        reads = self.projector.posts
        threads = reads.threads(self.key, v)
        pages = [reads.page(self.key, v, t["id"], limit=200) for t in threads]
        found = [reads.search(self.key, v, m) for m in self.allowed]
        models = json.dumps([threads, pages, found], default=str)
        shown = json.dumps(
            [self.games.visible_events(self.game_id, v, limit=100_000), self.games.view(self.game_id, v)], default=str
        )
        return shown + models, models

    def check(self) -> None:
        for v in self.seats:
            text, models = self.surfaces(v)
            leaked = [m for m, who in self.allowed.items() if v not in who and m in text]
            assert leaked == [], (v, leaked)
            threads = {t["id"]: t for t in self.projector.posts.threads(self.key, v)}
            for tid, readers in self.threads.items():
                # a desk nobody has written to yet is listed to its own seat only
                quiet_desk = tid.startswith("desk-") and tid != f"desk-{v}" and not self._posted_in(tid)
                assert (tid in threads) == (v in readers and not quiet_desk), (v, tid)
                if tid in threads and tid.startswith("thr-"):
                    assert sorted(threads[tid]["members"]) == sorted(readers), (v, tid)
            # unread counts: exactly the posts of others, not hidden, in the threads v reads (v never read them)
            expected = {
                tid: sum(1 for p in self.posts.values() if p["thread"] == tid and p["author"] != v and not p["hidden"])
                for tid in self.threads
                if v in self.threads[tid]
            }
            assert {t: threads.get(t, {"unread": 0})["unread"] for t in expected} == expected, v
            # a member reads what is not hidden in its threads (so the check cannot pass by showing nothing)
            for p in self.posts.values():
                if v in self.threads[p["thread"]] and not p["hidden"]:
                    assert p["text"] in models, (v, p)
        # the mail: each post's notification goes to its thread's other readers, and carries only their share
        for row in self.projector.outbox(self.key):
            leaked = [m for m, who in self.told.items() if row["recipient"] not in who and m in json.dumps(row)]
            assert leaked == [], (row["recipient"], leaked)
        # a reply's mail carries nothing nobody could read when it was sent (the GM's answer to a hidden post)
        for row in self.projector.outbox(self.key):
            said = json.dumps(row["body"])
            leaked = [m for own, banned in self.quiet.items() if own in said for m in banned if m in said]
            assert leaked == [], (row["recipient"], "reply", leaked)
        told = {
            (r["recipient"], r["body"]["thread_id"]) for r in self.projector.outbox(self.key) if r["kind"] == "post"
        }
        for p in self.posts.values():
            for v in self.seats:
                if v != p["author"] and v in self.threads[p["thread"]]:
                    assert (v, p["thread"]) in told, (v, p)
        # mentions: exactly the readers the post names are told of it as a mention, once each
        rows = self.projector.outbox(self.key)
        for p in self.posts.values():
            mine = [r for r in rows if r["kind"] == "post" and p["said"][0] in r["body"]["text"]]
            mentioned = [r["recipient"] for r in mine if kind_of(None, "post", r["body"], r["recipient"]) == "mention"]
            assert sorted(mentioned) == sorted(p["named"]), p
        # the mail read now (a ledger, a digest, a late sending): only what the seat may read now
        for v in self.seats:
            now = moderated(
                self.projector.db, [{**r, "body": json.dumps(r["body"])} for r in rows if r["recipient"] == v]
            )
            leaked = [m for m, who in self.allowed.items() if v not in who and any(m in r["body"] for r in now)]
            assert leaked == [], (v, "mail now", leaked)
        gm_text, _ = self.surfaces(GM)
        assert all(p["text"] in gm_text for p in self.posts.values()), "the GM (or auditor) reads every post"

    def _posted_in(self, tid: str) -> bool:
        return any(p["thread"] == tid for p in self.posts.values())

    def close(self) -> None:
        self.games.close()


FIXED_THREADS = {"table", "narration"}


@pytest.fixture(params=RULESETS)
def ruleset(request: pytest.FixtureRequest):
    with registered(request.param):
        yield request.param


@pytest.fixture
def table(ruleset: str):
    t = Table(ruleset)
    yield t
    t.close()


@settings(max_examples=10, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=st.lists(op, min_size=1, max_size=10))
def test_nobody_learns_a_private_threads_text_existence_or_members_unless_in_it(ruleset, ops):
    t = Table(ruleset)  # a fresh game each example: a failing example replays alone
    try:
        for o in ops:
            t.apply(o)
        t.check()
    finally:
        t.close()


def test_a_scripted_negotiation_on_every_ruleset(table):
    """Two seats talk privately, one edits, the moderator hides, a seat writes to its desk: then the check."""
    a, b = table.seats[-2:]
    for o in [
        ("open", 1 + table.seats.index(a), [table.seats.index(b)], 0),
        ("post", 1 + table.seats.index(b), [3], 0),
        ("post", 1 + table.seats.index(a), [3], 0),
        ("desk", 1 + table.seats.index(b), [table.seats.index(b)], 0),
        ("post", 1 + table.seats.index(a), [0], 0),
    ]:
        table.apply(o)
    private = [t for t in table.threads if t.startswith("thr-")]
    assert len(private) == 1 and table.threads[private[0]] == {a, b}
    table.check()


def test_the_checker_catches_a_planted_mention(monkeypatch):
    """A post that counts every reader of its thread as mentioned (the author too): the checker fails."""
    monkeypatch.setattr(domain_posts, "mentioned", lambda text, readers, author: sorted(readers))
    t = Table("powers")
    try:
        t.apply(("mention", 1, [sorted(t.threads).index("table"), 1], 0))
        with pytest.raises(AssertionError):
            t.check()
    finally:
        t.close()


def test_a_mention_outside_a_private_thread_and_a_hidden_mention_on_every_ruleset(table):
    """Two seats talk privately and name a third, who is told nothing; a mention at the table tells the seat named;
    the moderator hides it, and its words leave every surface."""
    a, b, c = table.seats[-2], table.seats[-1], table.seats[0]
    i = table.seats.index
    table.apply(("open", 1 + i(a), [i(b)], 0))
    (private,) = [t for t in table.threads if t.startswith("thr-")]
    table.apply(("mention", 1 + i(a), [sorted(table.threads).index(private), i(c), i(b)], 1))  # by name
    table.apply(("mention", 1 + i(b), [sorted(table.threads).index("table"), i(c)], 0))  # by id
    assert [p["named"] for p in table.posts.values()] == [{b}, {c}]
    table.check()
    moderator = 0 if table.has_gm else 1 + i(min(table.hosts))
    said = next(n for n, p in enumerate(sorted(table.posts)) if table.posts[p]["thread"] == "table")
    table.apply(("hide", moderator, [0], said))
    assert [p["hidden"] for p in table.posts.values()] == [False, True]
    table.check()
    # whom the hidden post named went with its words: no player's timeline, nor feed, says it any more
    table.projector.catch_up()
    for v in table.seats:
        for events in (table.games.visible_events(table.game_id, v, limit=100_000), table.projector.feed(table.key, v)):
            made = [e["data"] for e in events if e["type"] == "PostMade" and e["data"]["thread_id"] == "table"]
            assert made and all(d["mentions"] == [] and d["text"] == "" for d in made), (v, made)


def test_the_checker_catches_a_planted_leak(monkeypatch):
    """A desk thread shown to the whole table: the checker fails."""
    monkeypatch.setattr(domain_posts.Posts, "_desk_audience", lambda self, seat: ["public"])
    t = Table("powers")
    try:
        t.apply(("desk", 1, [0], 0))
        with pytest.raises(AssertionError):
            t.check()
    finally:
        t.close()


def test_a_quote_of_a_post_hidden_or_edited_since_and_a_reply_to_a_hidden_post_on_every_ruleset(table):
    """Issue 28: a seat posts at the table, another answers quoting it, a third answers the answer (quoting the
    quote); the post is edited, then the moderator hides it; a GM answers it hidden: then the check (pages, search,
    timelines, view, the mail queued and read now)."""
    a, b, c = table.seats[-2], table.seats[-1], table.seats[0]
    i = table.seats.index
    where = sorted(table.threads).index("table")
    table.apply(("post", 1 + i(a), [where], 0))
    (first,) = table.posts
    table.reply(b, first, True)
    second = sorted(set(table.posts) - {first})[0]
    table.reply(c, second, True)
    table.check()
    table.apply(("edit", 1 + i(a), [0], sorted(table.posts).index(first)))
    table.check()
    moderator = 0 if table.has_gm else 1 + i(min(table.hosts))
    table.apply(("hide", moderator, [0], sorted(table.posts).index(first)))
    table.check()
    if table.has_gm:
        table.reply(GM, first, True)
        assert table.quiet and any(table.quiet.values())
        table.check()


def test_the_checker_catches_a_planted_quote(monkeypatch):
    """Quotes shown as they were written, whatever became of the post they quote: the checker fails."""
    monkeypatch.setattr(domain_posts, "quote_heads", lambda facts, placeholder: {})
    import projections.gamestore
    import projections.posts

    monkeypatch.setattr(projections.posts, "quote_heads", lambda facts, placeholder: {})
    monkeypatch.setattr(projections.gamestore, "quote_heads", lambda facts, placeholder: {})
    t = Table("powers")
    try:
        where = sorted(t.threads).index("table")
        t.apply(("post", 1, [where], 0))
        (first,) = t.posts
        t.reply(t.seats[1], first, True)
        t.apply(("hide", 0, [0], sorted(t.posts).index(first)))
        with pytest.raises(AssertionError):
            t.check()
    finally:
        t.close()
