"""Issue 28 item 8: the help pages, made from the code. The index lists every registered ruleset; each ruleset's page
lists every command the ruleset declares (the list is derived here from its declarations, so a command left off the
page fails), every mail verb with its example, every declared web form, and each rule id it links resolves to an
anchor of the rules page; the routes' reference lists every route of the app. A refused mail links each line to its
help, and the link's anchor exists."""

from __future__ import annotations

import html
import re

import pytest
from fastapi.testclient import TestClient

from api import declare, rulesets
from api.app import api_routers
from api.help import model
from api.mail_intake import MailIntake
from application.service import Caller, new_token
from domain.platform.commands import ReissueLink
from domain.platform.ruleset import registered
from tests.mail.test_smtp import setup_game

LINK = re.compile(r'href="/help/(?P<ruleset>[\w-]+)/rules#(?P<anchor>[^"]+)"')


@pytest.fixture
def client(app):
    return TestClient(app)


def ids(page: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', page))


def test_the_index_lists_every_registered_ruleset_and_links_the_routes_reference(client):
    page = client.get("/help").text
    for name in registered():
        assert f'href="/help/{name}"' in page, name
    assert 'href="/help/routes"' in page and "DeclareReady" in page  # what every game takes
    from api.web.routes import BROWSER_FORMS, COMMAND_FORMS

    assert {f"form-{f.name}" for f in (*COMMAND_FORMS, *BROWSER_FORMS)} <= ids(page)  # the platform's web actions
    assert 'href="/help"' in client.get("/").text  # the footer of every page links it


@pytest.mark.parametrize("name", sorted(registered()))
def test_a_ruleset_page_lists_every_command_its_ruleset_declares(client, name):
    page = client.get(f"/help/{name}").text
    anchors = ids(page)
    declared = set(registered()[name].commands) | {d.command for d in declare.declared_of(name)}
    assert declared
    missing = sorted(c.__name__ for c in declared if f"cmd-{c.__name__}" not in anchors)
    assert missing == [], f"commands of {name} its help page leaves out"
    for d in declare.declared_of(name):
        if d.form is not None:
            assert f"the form “{d.form.name}”" in html.unescape(page), d.form.name
        if d.route is not None:
            assert f"{d.route.method} /games/{{game_id}}{d.route.path}" in page


@pytest.mark.parametrize("name", [n for n in sorted(registered()) if registered()[n].mail_grammar is not None])
def test_a_ruleset_page_shows_every_mail_verb_with_its_example(client, name):
    page = client.get(f"/help/{name}").text
    module = rulesets.part(name, "help")
    assert {f"mail-{v}" for v in module.VERBS} <= ids(page)
    for line in module.MAIL:
        assert line.example in html.unescape(page), line.example


@pytest.mark.parametrize("name", ["powers", "covenants", "lodge"])
def test_every_rule_id_link_resolves_to_an_anchor_of_the_rules_page(client, name):
    page = client.get(f"/help/{name}").text
    links = {(m["ruleset"], m["anchor"]) for m in LINK.finditer(page)}
    assert len(links) > 5 and {r for r, _ in links} == {name}
    rules = client.get(f"/help/{name}/rules")
    assert rules.status_code == 200
    anchors = ids(rules.text)
    assert {a for _, a in links} - anchors == set()
    inner = set(re.findall(r'href="#([^"]+)"', rules.text))
    assert inner - anchors == set()  # every line a rule cites is on the page
    assert "P-ACT-1" not in anchors or "Actions per month" in rules.text


def test_the_routes_reference_lists_every_route_of_the_app(client):
    page = html.unescape(client.get("/help/routes").text)
    api_paths = {r.path for router in api_routers() for r in router.routes if hasattr(r, "methods")}
    assert len(api_paths) > 40
    assert {p for p in api_paths if p not in page} == set()
    for path in ("/help", "/help/{ruleset}/rules", "/play/{game_id}", "/new", "/static/…"):
        assert f" {path}</code>" in page, path


def test_the_help_reads_in_german(client):
    client.cookies.set("lang", "de")
    assert "<h1>Hilfe</h1>" in client.get("/help").text
    assert "Per E-Mail" in client.get("/help/lodge").text


def test_an_unknown_ruleset_has_no_help_page(client):
    assert client.get("/help/nope").status_code == 404
    assert client.get("/help/nope/rules").status_code == 404
    if "table" in registered():
        assert client.get("/help/table/rules").status_code == 404  # the table ships no rules text


def test_a_refused_mail_links_each_line_to_its_help_whose_anchor_exists(games, client):
    """MAIL-1: the reply to a refused turn gives each refused line the absolute address of its command's help."""
    gid, _pid, token = setup_game(games)
    intake = MailIntake(games, "emissary.local", public_url="https://emissary.example")
    text = "discard #7\nfrobnicate now\nwaive"
    reply = intake.receive(intake.address_for(gid, token), "<help-1@x>", text)
    assert not reply.accepted
    body = reply.body.splitlines()
    line1 = body.index(next(b for b in body if b.startswith("line 1:")))
    assert body[line1 + 1] == "  Help: https://emissary.example/help/powers#mail-discard"
    line2 = body.index(next(b for b in body if b.startswith("line 2:")))
    assert body[line2 + 1] == "  Help: https://emissary.example/help/powers#mail"  # no such command: the section
    page = ids(client.get("/help/powers").text)
    assert {"mail-discard", "mail"} <= page
    plain = MailIntake(games, "emissary.local").receive(intake.address_for(gid, token), "<help-2@x>", text)
    assert "Help:" not in plain.body  # no address known for the service: no link rather than a wrong one
    assert model.line_help("http://127.0.0.1:8000", "powers", "discard").endswith("/help/powers#mail-discard")


def test_a_refused_key_of_an_action_block_links_to_the_actions_help_through_inbound_email(app, games):
    """P-ACT-1: a refused ``slot:`` line of an ``action:`` block links to the action's help; the hosted provider's
    endpoint links from the address the request came to when no public address is set."""
    gid, _pid, token = setup_game(games)
    local = TestClient(app, client=("127.0.0.1", 40000))  # no inbound key here: only this machine may post mail
    to = MailIntake(games, "emissary.local").address_for(gid, token)
    text = "action: Duel the Balrog\n  slot: middle\n  skill: might\nfrobnicate"
    mail = {"to": to, "from": "g@example.org", "subject": "turn", "text": text, "message_id": "<help-3@x>"}
    body = local.post("/inbound/email", json=mail).json()["body"].splitlines()
    slot = body.index(next(b for b in body if b.startswith("line 2:")))
    assert "(P-ACT-1)" in body[slot] and body[slot + 1] == "  Help: http://testserver/help/powers#mail-action"
    unknown = body.index(next(b for b in body if b.startswith("line 4:")))
    assert body[unknown + 1] == "  Help: http://testserver/help/powers#mail"


@pytest.mark.parametrize("name", [n for n in sorted(registered()) if registered()[n].mail_grammar is not None])
def test_a_mail_lines_command_and_a_commands_mail_line_link_to_anchors_that_exist(client, name):
    page = client.get(f"/help/{name}").text
    here, index = ids(page), ids(client.get("/help").text)
    inner = set(re.findall(r'href="#((?:cmd|mail)-[^"]+)"', page))
    assert any(a.startswith("cmd-") for a in inner) and any(a.startswith("mail-") for a in inner)
    assert inner - here == set()
    assert set(re.findall(r'href="/help#(cmd-[^"]+)"', page)) - index == set()  # the platform's commands


def _covenant_seat(games) -> tuple[str, str]:
    from tests.covenants.play import seat_three

    table = seat_three(games)
    return table.game_id, table.turn()[0]


def _lodge_seat(games) -> tuple[str, str]:
    from domain.lodge.ruleset import AddMage, BeginGame

    gid, _gm, _ = games.create_game("Lodge", ruleset="lodge")
    games.run_many(Caller.of("gm"), gid, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    return gid, "ann"


@pytest.mark.parametrize(("name", "seated"), [("covenants", _covenant_seat), ("lodge", _lodge_seat)])
def test_a_refused_mail_line_of_every_ruleset_links_to_its_help_whose_anchor_exists(games, client, name, seated):
    """MAIL-1, issue 28 item 8 on the covenant game and the Lodge too (the test above plays Powers): the reply to a
    refused turn gives each refused line its command's help on the game's own ruleset page, or the page's mail
    section for a line no command reads; each anchor is on that page."""
    gid, seat = seated(games)
    refused = "move"  # a verb of both grammars, its line unreadable
    token, digest = new_token()
    games.run(Caller.of("gm"), gid, ReissueLink(seat, digest))
    intake = MailIntake(games, "emissary.local", public_url="https://emissary.example")
    reply = intake.receive(intake.address_for(gid, token), f"<help-{name}@x>", f"{refused} nowhere at all\nfrobnicate")
    assert not reply.accepted
    body = reply.body.splitlines()
    helps = [body[i + 1] for i, line in enumerate(body[:-1]) if re.match(r"line [12]:", line)]
    assert helps == [
        f"  Help: https://emissary.example/help/{name}#mail-{refused}",
        f"  Help: https://emissary.example/help/{name}#mail",
    ], reply.body
    assert {f"mail-{refused}", "mail"} <= ids(client.get(f"/help/{name}").text)


def _powers_seat(games) -> tuple[str, str]:
    gid, pid, _token = setup_game(games)
    return gid, pid


@pytest.mark.parametrize(
    ("name", "seated"), [("powers", _powers_seat), ("covenants", _covenant_seat), ("lodge", _lodge_seat)]
)
def test_a_boards_footer_help_opens_its_own_rulesets_help(app, games, name, seated):
    """Issue 28 item 8: on a board (the GM's and a seat's) the footer's Help opens the help of the game's own ruleset,
    whose page answers; elsewhere it opens the index."""
    gid, seat = seated(games)
    for who in ("gm", seat):
        token, digest = new_token()
        games.run(Caller.of("gm"), gid, ReissueLink(who, digest))
        client = TestClient(app)
        assert client.get(f"/signin/{gid}/{token}").status_code == 200
        board = client.get(f"/play/{gid}").text
        assert f'<a class="help-link" href="/help/{name}">' in board, who
        assert client.get(f"/help/{name}").status_code == 200
        assert '<a class="help-link" href="/help">' in client.get("/").text
