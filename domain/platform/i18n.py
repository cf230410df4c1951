"""Words ready for translation (issue 17): ``_`` and ``ngettext`` mark a phrase for extraction and look it
up in the translations of the request being served.

The web layer chooses the viewer's language per request (``api.web.i18n``) and installs its catalog here
with ``use``; everything else (a worker's mail, a test, the CLI) reads English, the language every phrase is
written in. A phrase with values takes them by name after translation, so a translator can move them:
``_("{who} resisted").format(who=name)``, never an f-string, which would be extracted with its values in.
"""

from __future__ import annotations

import gettext
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any

ENGLISH = gettext.NullTranslations()
_current: ContextVar[gettext.NullTranslations] = ContextVar("emissary_translations", default=ENGLISH)
Clock = Callable[[datetime], str]  # an instant (aware, in its reader's zone) as its reader reads it
_clock: ContextVar[Clock | None] = ContextVar("emissary_clock", default=None)


def _(message: str) -> str:
    """``message`` in the current language (itself in English, or where no translation is known)."""
    return _current.get().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural of a phrase for ``n`` (as the current language counts), translated."""
    return _current.get().ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks a phrase for extraction where it is defined (a table of words) and translated where shown."""
    return message


def word_of(table: Mapping[str, str], name: Any) -> str:
    """A named thing (a step, a state, a colour) in the current language: its phrase in ``table`` (each marked
    with ``N_`` where the table is written), else its name as it is."""
    return _(table[name]) if isinstance(name, str) and name in table else str(name)


def moment(when: datetime, english: str) -> str:
    """An instant (aware, in its reader's zone) in the current language: through the clock installed with the
    translations (a mail's reader's, ``application.mails.Reader.words``), else formatted by ``english`` (strftime)."""
    clock = _clock.get()
    return clock(when) if clock is not None else when.strftime(english)


def current() -> gettext.NullTranslations:
    return _current.get()


@contextmanager
def use(translations: gettext.NullTranslations, clock: Clock | None = None) -> Iterator[None]:
    """Serve ``translations`` for the phrases looked up inside the block (one request, one mail), and ``clock``
    for its instants (``moment``; None: the English format of whoever formats it)."""
    token, clock_token = _current.set(translations), _clock.set(clock)
    try:
        yield
    finally:
        _clock.reset(clock_token)
        _current.reset(token)
