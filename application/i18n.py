"""The catalogs and the formats of a reader's language, for whoever words something outside a request: a worker's
mail (issue 28) as well as the web pages (``api.web.i18n`` chooses a request's language and reads these).

The catalogs live in ``api/locale/<language>/LC_MESSAGES/messages.po`` (files, not code: the application layer
imports nothing of ``api``); each is compiled in memory when first used.
"""

from __future__ import annotations

import functools
import gettext
import io
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from babel import Locale, UnknownLocaleError
from babel.dates import format_skeleton, format_time
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

from domain.platform import i18n

LOCALE_DIR = Path(__file__).resolve().parent.parent / "api" / "locale"
DEFAULT = "en"


@functools.cache
def catalogs() -> list[str]:
    """The languages with a catalog (``api/locale/<lang>/LC_MESSAGES/messages.po``), and English; read once
    per process (catalogs ship with the code)."""
    found = sorted(p.parent.parent.name for p in LOCALE_DIR.glob("*/LC_MESSAGES/messages.po"))
    return [DEFAULT, *[c for c in found if c != DEFAULT]]


@functools.lru_cache(maxsize=32)
def translations_for(code: str) -> gettext.NullTranslations:
    """The compiled catalog of ``code`` (a catalog's language, or English: no translation)."""
    po = LOCALE_DIR / code / "LC_MESSAGES" / "messages.po"
    if code == DEFAULT or not po.is_file():
        return i18n.ENGLISH
    with po.open("rb") as f:
        catalog = read_po(f, locale=code)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(buffer)


def parse(tag: str | None) -> Locale | None:
    """A language tag ("de", "de-AT", "de_AT") as Babel's locale, or None if Babel knows no such language."""
    if not tag:
        return None
    try:
        return Locale.parse(tag.strip().replace("-", "_"))
    except (ValueError, TypeError, UnknownLocaleError):
        return None


@functools.lru_cache(maxsize=256)
def catalog_of(locale: Locale) -> str:
    """The catalog that serves ``locale``: its own (``de_AT`` -> ``de``) if we ship one, else English."""
    shipped = catalogs()
    for code in (str(locale), locale.language):
        if code in shipped:
            return code
    return DEFAULT


def local_time(iso: str | datetime | None, zone: ZoneInfo | str, locale: Locale, *, seconds: bool = False) -> str:
    """A recorded instant as its reader reads it: in their zone, in their language's format, with the zone's
    abbreviation ("Mon, 30 Nov 2026, 14:05 CET" for en-GB; "Mo., 30. Nov. 2026, 14:05 CET"). A naive time is UTC;
    ``seconds`` shows them too."""
    if not iso:
        return ""
    moment = iso if isinstance(iso, datetime) else datetime.fromisoformat(str(iso))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    zone = ZoneInfo(zone) if isinstance(zone, str) else zone
    moment = moment.astimezone(zone)
    date = format_skeleton("yMMMEd", moment, locale=locale, fuzzy=True)
    time = format_time(moment, "medium" if seconds else "short", locale=locale)
    both = str(locale.datetime_formats.get("medium", "{1}, {0}")).replace("'", "")
    return f"{both.format(time, date)} {moment.strftime('%Z')}".strip()
