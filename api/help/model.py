"""What the help pages say, made from the code (issue 28): each registered ruleset (the registry, in its plugins'
order), its commands as it declares them (``Ruleset.commands``, and ``api.declare``'s web form and JSON route of
each), the lines of its mail grammar (its API package's ``help`` module) and its rules text (``api.help.rules``).

Importing this module imports no FastAPI."""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from markupsafe import Markup, escape

from api import rulesets
from api.help.mail import MailLine
from api.help.rules import MENTION, Rules, rules_of
from domain import rulesets as installed
from domain.platform.ruleset import registered

MAIL = "mail"  # the anchor of a ruleset page's mail section


@dataclass(frozen=True)
class CommandHelp:
    """A command as its ruleset declares it."""

    name: str
    what: str  # its docstring's first paragraph (English), or nothing
    fields: tuple[str, ...]
    form: str | None  # the web form that sends it (``POST /play/{game_id}/{form}``), if any
    gm: bool  # that form is the GM's (or the host's) alone
    route: str | None  # its own JSON route, if any, besides ``POST /games/{game_id}/commands``
    mail: tuple[tuple[str, str], ...] = ()  # the mail lines that send it: (the anchor of its verb, the line)

    @property
    def anchor(self) -> str:
        return f"cmd-{self.name}"


@dataclass(frozen=True)
class MailHelp:
    """A line of the mail grammar: its example, the grammar's usage of each verb it shows, and what it does."""

    anchors: tuple[str, ...]  # ``mail-<verb>`` of each verb whose first example this is (may be none)
    example: str
    usage: tuple[str, ...]
    note: str
    who: str  # "gm", "host" or "" (anyone seated)
    sends: tuple[str, ...] = ()  # the commands it sends


@dataclass(frozen=True)
class RulesetHelp:
    name: str
    version: str
    description: str
    listed: bool  # offered for new games (the fake ruleset of the tests is hosted, never offered)
    commands: tuple[CommandHelp, ...]
    takes_mail: bool  # it has a mail grammar
    mail: tuple[MailHelp, ...]
    forms: tuple[str, ...]  # its pages' forms that no command declares (``web.FORMS``)
    rules: Rules | None

    @property
    def verbs(self) -> frozenset[str]:
        """The verbs that have an anchor on the page (a refusal's link names one)."""
        return frozenset(a.removeprefix("mail-") for line in self.mail for a in line.anchors)


def names() -> list[str]:
    """Every registered ruleset, its plugins' order first (the offered, then the hosted), then any other."""
    order = [p.ruleset.name for p in installed.PLUGINS]
    known = registered()
    return [n for n in order if n in known] + sorted(n for n in known if n not in order)


def _what(cls: type) -> str:
    doc = cls.__doc__ or ""
    if doc.startswith(f"{cls.__name__}("):  # a dataclass's own signature, no docstring
        return ""
    return " ".join(inspect.cleandoc(doc).split("\n\n", 1)[0].split()).replace("``", "")


def _commands(name: str) -> tuple[CommandHelp, ...]:
    from api.declare import declared_of  # imports FastAPI's router only when a page asks

    declared = {d.command: d for d in declared_of(name)}
    out = []
    for cls in registered()[name].commands:
        d = declared.get(cls)
        form = d.form if d is not None else None
        route = d.route if d is not None else None
        out.append(
            CommandHelp(
                name=cls.__name__,
                what=_what(cls),
                fields=tuple(f.name for f in dataclasses.fields(cls) if f.init and not f.name.startswith("_")),
                form=form.name if form is not None else None,
                gm=bool(form is not None and form.gm),
                route=f"{route.method} /games/{{game_id}}{route.path}" if route is not None else None,
            )
        )
    return tuple(out)


def _mail(module: ModuleType | None) -> tuple[MailHelp, ...]:
    if module is None:
        return ()
    usage: Mapping[str, str] = getattr(module, "USAGE", {})
    gm: frozenset[str] = frozenset(getattr(module, "GM_ONLY", ()))
    host: frozenset[str] = frozenset(getattr(module, "HOST_ONLY", ()))
    seen: set[str] = set()
    out = []
    line: MailLine
    for line in module.MAIL:
        fresh = [v for v in line.verbs if v not in seen]
        seen.update(fresh)
        out.append(
            MailHelp(
                anchors=tuple(f"mail-{v}" for v in fresh),
                example=line.example,
                usage=tuple(dict.fromkeys(usage[v] for v in line.verbs if v in usage)),
                note=line.note,
                who="gm" if line.verb in gm else "host" if line.verb in host else "",
                sends=line.sends,
            )
        )
    return tuple(out)


@functools.cache
def ruleset_help(name: str) -> RulesetHelp:
    """A ruleset's help; KeyError if no ruleset of that name is registered."""
    ruleset = registered()[name]
    package = rulesets.API_PACKAGES.get(name)
    web = rulesets.part(name, "web") if package else None
    plugin = next((p for p in installed.PLUGINS if p.ruleset.name == name), None)
    mail = _mail(rulesets.part(name, "help") if package else None)
    by_command: dict[str, list[tuple[str, str]]] = {}
    for line in mail:
        first = line.example.splitlines()[0]
        for command in line.sends:
            by_command.setdefault(command, []).append((f"mail-{first.split()[0].lower().rstrip(':')}", first))
    commands = tuple(dataclasses.replace(c, mail=tuple(by_command.get(c.name, ()))) for c in _commands(name))
    return RulesetHelp(
        name=name,
        version=ruleset.version,
        description=ruleset.description,
        listed=plugin.listed if plugin is not None else False,
        commands=commands,
        takes_mail=ruleset.mail_grammar is not None,
        mail=mail,
        forms=tuple(sorted(getattr(web, "FORMS", {}))),
        rules=rules_of(package) if package else None,
    )


def line_help(base_url: str, ruleset: str, *verbs: str | None) -> str:
    """The absolute address of a mail line's help: the first of these verbs that has an example on the ruleset's
    page (the line's first word as written, then the verb its grammar read), else the page's mail section (a line
    the grammar could not read)."""
    known = ruleset_help(ruleset).verbs if ruleset in registered() else frozenset()
    verb = next((v for v in verbs if v in known), None)
    return f"{base_url.rstrip('/')}/help/{ruleset}#{f'mail-{verb}' if verb else MAIL}"


def linked(text: str, ruleset: str) -> Markup:
    """A text with each rule id it cites that the ruleset's rules index holds linked to that rule on its rules
    page; the rest escaped."""
    rules = ruleset_help(ruleset).rules if ruleset in registered() else None
    out: list[Any] = []
    last = 0
    for m in MENTION.finditer(text):
        out.append(escape(text[last : m.start()]))
        anchor = rules.anchor(m.group(0)) if rules is not None else None
        if anchor is None:
            out.append(escape(m.group(0)))
        else:
            out.append(Markup('<a href="/help/{}/rules#{}">{}</a>').format(ruleset, anchor, m.group(0)))
        last = m.end()
    out.append(escape(text[last:]))
    return Markup("").join(out)
