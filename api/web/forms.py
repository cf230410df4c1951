"""The one way a web form is written (issue 26): a ``Form`` says which command it sends, how the command's fields
read from the posted form, where its receipt or its refusal is shown, and what it says when it worked; the kit
runs it. Every ruleset's forms and the platform's are written so (a ruleset declares its forms beside its
commands, ``api.declare``).

A form gives its command's fields (``args``: checked field by field as the JSON routes check them,
``api.declare.build``) or builds its commands itself (``make``); either way they go through
``Games.run``, so a refusal is the API's error, with its rule and field, shown next to the form that sent it.
Its words are ready for translation (issue 17): a receipt or a question is marked with ``N_`` where the form is
written and translated when the form is answered, in the language of the one who sent it (a form whose words
depend on what was posted gives a function that translates them itself).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request
from fastapi.responses import Response

from api.declare import build, issued
from api.security import web_session
from api.web.kit import attempt, back, confirm_first, flash, refused, sign_in_link
from application.service import Caller, Games, Receipt
from domain.errors import DomainError, RuleViolation
from domain.ids import GM
from domain.platform.commands import Command
from domain.platform.i18n import _

Posted = dict[str, Any]  # a posted form (``api.web.kit.form_of``)
Words = str | Callable[[Posted], str]  # marked with N_ (translated when answered), or a function of the posted form


def listed(f: Posted, key: str) -> list[str]:
    """A multi-valued field (``moves[]``), without its empty choices."""
    values = f.get(key, [])
    return [v for v in (values if isinstance(values, list) else [values]) if v]


def _words(value: Words, f: Posted) -> str:
    return _(value) if isinstance(value, str) else value(f)


@dataclass(frozen=True)
class Confirm:
    """A destructive form asks once more on a page of its own (``api.web.kit.confirm_first``), when ``when``. Its
    words, translated, take their values by name from ``about`` (what the game says of the posted form)."""

    question: Words
    detail: Words
    button: Words
    anchor: str = ""
    when: Callable[[Posted], bool] = lambda f: True
    about: Callable[[Games, str, Posted], dict[str, Any]] | None = None

    def ask(self, request: Request, games: Games, game_id: str, f: Posted) -> Response | None:
        question, detail, button = (_words(w, f) for w in (self.question, self.detail, self.button))
        if self.about is not None:
            values = self.about(games, game_id, f)
            question, detail, button = (w.format(**values) for w in (question, detail, button))
        return confirm_first(request, game_id, f, question, detail, button, self.anchor)


@dataclass(frozen=True)
class Form:
    """A web form of a command: its name (``POST /play/{game_id}/{name}``), where it answers, and its fields."""

    name: str
    section: Words  # the anchor of the section where its receipt or its refusal is shown
    ok: Words  # what it says when it worked
    args: Callable[[Posted, str], dict[str, Any]] | None = None  # (posted form, principal) -> the command's fields
    make: Callable[[Posted, str], Command | Sequence[Command]] | None = None  # or: the commands, built here
    command: type[Command] | None = None  # the command ``args`` gives the fields of (its declaration's)
    gm: bool = False  # the GM's alone: anyone else is told so, and nothing is sent
    confirm: Confirm | None = None
    keep: bool = False  # a refused form is shown again with what was typed
    anchor: str = ""  # where the page returns to, if not the section
    whole: bool = False  # a field missing or ill-formed refuses the form as a whole, naming it
    link: Callable[[Posted, Receipt], str] | None = None  # the seat whose new sign-in link is shown once
    run: Callable[[Games, str, Caller, Posted], Any] | None = None  # a form that sends no command: what it does
    # what this browser does besides once the form worked, given the new sign-in token (a form with ``link``) or
    # what the form gave (its receipt, what ``run`` returned); a response it gives replaces the way back
    after: Callable[[Request, str, Posted, Any], Response | None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # what a page reads of the form besides (its labels)

    def bound(self, command: type[Command]) -> Form:
        """The form of a declared command."""
        return self if self.command is not None else dataclasses.replace(self, command=command)

    def commands(self, f: Posted, me: str) -> list[Command]:
        """The commands the posted form means (a bad field is refused, naming it)."""
        try:
            if self.make is not None:
                made = self.make(f, me)
                return [made] if isinstance(made, Command) else list(made)
            assert self.args is not None and self.command is not None, f"form {self.name} gives no command"
            return [build(self.command, self.args(f, me))]
        except (KeyError, ValueError, TypeError):
            if not self.whole:
                raise
            raise RuleViolation("fill in every field of the form", field=self.name) from None

    def handler(self) -> Callable[[Request, Games, str, Caller, Posted], Response]:
        """What the page's ``POST`` runs (``api.web.routes``)."""

        def handle(request: Request, games: Games, game_id: str, caller: Caller, f: Posted) -> Response:
            if self.gm and caller.principal != GM:
                flash(request, kind="error", form="gm", field=None, rule=None, text=_("only the GM may do this"))
                return back(game_id)
            if self.confirm is not None and self.confirm.when(f):
                ask = self.confirm.ask(request, games, game_id, f)
                if ask is not None:
                    return ask
            section = _words(self.section, f) if callable(self.section) else self.section
            if self.link is not None:
                return self._linked(request, games, game_id, caller, f, section)
            if self.after is not None:
                return self._then(request, games, game_id, caller, f, section)
            return attempt(
                request,
                game_id,
                section,
                lambda: self._send(games, game_id, caller, f),
                _words(self.ok, f),
                self.anchor,
                keep=f if self.keep else None,
            )

        handle.__name__ = f"form_{self.name.replace('-', '_')}"
        return handle

    def _send(self, games: Games, game_id: str, caller: Caller, f: Posted) -> Any:
        if self.run is not None:
            return self.run(games, game_id, caller, f)
        if self.make is None and self.args is None:  # a form of this browser alone (``after``)
            return None
        receipt = None
        for command in self.commands(f, caller.principal):
            receipt = games.run(caller, game_id, command)
        return receipt

    def _linked(
        self, request: Request, games: Games, game_id: str, caller: Caller, f: Posted, section: str
    ) -> Response:
        """A form that seats someone, or gives them a new link: the link is shown once, never a receipt."""
        assert self.link is not None
        token = None
        try:
            receipt = None
            for command in self.commands(f, caller.principal):
                command, fresh = issued(command)
                token = fresh or token
                receipt = games.run(caller, game_id, command)
        except DomainError as err:
            flash(request, kind="error", form=section, field=err.field, rule=err.rule, text=err.message)
            return back(game_id, section)
        assert receipt is not None and token is not None, f"form {self.name} issues no sign-in token"
        if self.after is not None and (response := self.after(request, game_id, f, token)) is not None:
            return response
        web_session(request).set("links", {self.link(f, receipt): sign_in_link(request, game_id, token)})
        flash(request, kind="ok", form=section, text=_words(self.ok, f))
        return back(game_id, section)

    def _then(self, request: Request, games: Games, game_id: str, caller: Caller, f: Posted, section: str) -> Response:
        """A form whose browser does more once it worked (``after``): a refusal is shown next to it as any."""
        assert self.after is not None
        try:
            result = self._send(games, game_id, caller, f)
        except DomainError as err:
            return refused(request, game_id, self.anchor or section, err, keep=f if self.keep else None)
        response = self.after(request, game_id, f, result)
        if response is not None:
            return response
        flash(request, kind="ok", form=section, text=_words(self.ok, f))
        return back(game_id, self.anchor or section)


def handlers(forms: Sequence[Form]) -> dict[str, Callable[..., Response]]:
    """Forms by the name a page posts to."""
    return {form.name: form.handler() for form in forms}
