"""The viewer's language (issue 17): which catalog translates the pages, and how dates and numbers read.

Every page's words are marked for translation (``{% trans %}`` and ``_()`` in templates, ``_`` from
``domain.platform.i18n`` in code) and extracted with Babel (``make messages``). The catalogs live in
``api/locale/<language>/LC_MESSAGES/messages.po``; they are compiled in memory when first used, so there is
no build step and a ``.po`` a translator edits is what runs.

A request's language is the ``lang`` cookie (chosen in the footer of every page), else the best match of
the browser's ``Accept-Language``, else English. Dates, times and numbers follow the same choice through
Babel's CLDR data, for any language Babel knows, even one no catalog translates yet: a French browser
reads "lun. 30 nov. 2026, 14:05 CET" around English words until a French catalog says more. A browser
that asks for plain English (or for nothing) reads Babel's ``en``: "Mon, Nov 30, 2026, 2:05 PM CET". Times are
always shown in the viewer's own zone (given with each time).
"""

from __future__ import annotations

import functools
from contextvars import ContextVar
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from babel import Locale
from babel.dates import format_skeleton, format_time
from babel.numbers import format_decimal
from jinja2 import Environment, pass_context

from application.i18n import DEFAULT, catalog_of, catalogs, parse, translations_for
from application.i18n import LOCALE_DIR as LOCALE_DIR  # the catalogs' folder, read by the tests
from application.i18n import local_time as application_local_time
from domain.platform import i18n

COOKIE = "lang"

_locale: ContextVar[Locale] = ContextVar("emissary_locale", default=Locale.parse(DEFAULT))


def languages() -> list[tuple[str, str]]:
    """(code, name in that language) for the footer's choice."""
    return [(code, Locale.parse(code).get_display_name(code) or code) for code in catalogs()]


def accepted(header: str) -> list[str]:
    """The languages of an ``Accept-Language`` header, most wanted first (q=0 left out)."""
    ranked = []
    for i, part in enumerate(header.split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if tag and tag != "*" and q > 0:
            ranked.append((-q, i, tag))
    return [tag for _, _, tag in sorted(ranked)]


@functools.lru_cache(maxsize=1024)
def choose(cookie: str | None, accept_language: str | None) -> Locale:
    """The viewer's locale: the chosen one, else the browser's first that Babel knows, else English."""
    for tag in ([cookie] if cookie else []) + accepted(accept_language or ""):
        locale = parse(tag)
        if locale is not None:
            return locale
    return Locale.parse(DEFAULT)


def current_locale() -> Locale:
    return _locale.get()


class Language:
    """ASGI middleware: each request reads in its viewer's language (the catalog and the locale's formats)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        cookie = None
        for part in headers.get("cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == COOKIE and value:
                cookie = value
        locale = choose(cookie, headers.get("accept-language"))
        token = _locale.set(locale)
        try:
            with i18n.use(translations_for(catalog_of(locale))):
                await self.app(scope, receive, send)
        finally:
            _locale.reset(token)


def local_time(iso: str | datetime | None, zone: ZoneInfo | str, *, seconds: bool = False) -> str:
    """A recorded instant as its viewer reads it, in the page's language (``application.i18n.local_time``)."""
    return application_local_time(iso, zone, current_locale(), seconds=seconds)


def readable(iso: str | None) -> str:
    """A local ISO time that carries its own offset, in the viewer's language (no zone is converted)."""
    try:
        moment = datetime.fromisoformat(str(iso))
    except ValueError:
        return str(iso or "")
    locale = current_locale()
    date = format_skeleton("yMMMEd", moment, locale=locale, fuzzy=True)
    time = format_time(moment, "short", locale=locale)
    return str(locale.datetime_formats.get("medium", "{1}, {0}")).replace("'", "").format(time, date)


def number(value: Any) -> str:
    """A number as the viewer's language writes it (1,234.5; 1.234,5)."""
    try:
        return format_decimal(value, locale=current_locale())
    except (TypeError, ValueError, ArithmeticError):
        return str(value)


@pass_context
def _gettext(context: Any, message: str) -> str:
    return i18n.current().gettext(message)


@pass_context
def _ngettext(context: Any, singular: str, plural: str, n: int) -> str:
    return i18n.current().ngettext(singular, plural, n)


def install(env: Environment) -> None:
    """Give templates ``{% trans %}``, ``_()`` and the viewer's formats (``|local_time``, ``|number``)."""
    env.add_extension("jinja2.ext.i18n")
    env.install_gettext_callables(_gettext, _ngettext, newstyle=True)  # type: ignore[attr-defined]
    env.filters["readable"] = readable
    env.filters["local_time"] = local_time  # {{ iso|local_time(zone) }}: in the viewer's zone and language
    env.filters["number"] = number
    env.globals["languages"] = languages
    # <html lang>: the language of the page's words (a catalog's), not of its dates: a French browser with no
    # French catalog reads English words, and a screen reader should speak them as English.
    env.globals["current_language"] = lambda: catalog_of(current_locale())
