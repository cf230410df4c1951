"""A line of a ruleset's mail grammar as its help page shows it: an example, read by the grammar as written (the tests
feed every example to the ruleset's ``mail_grammar``), and what it does, citing its rule ids. A ruleset's API package
lists them in its ``help`` module as ``MAIL``, beside ``VERBS`` (every first word its grammar takes: each has an
example) and, if its grammar has them, ``USAGE`` (verb -> the line's shape) and ``GM_ONLY`` (the GM's verbs)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MailLine:
    example: str  # one line, or a block of lines (an action and its keys)
    note: str = ""  # what it does, in English, with the rule ids it cites
    sends: tuple[str, ...] = ()  # the commands it sends (their class names; the tests check each is one)

    @property
    def verb(self) -> str:
        """Its first word, as the grammar reads it (any case, ``action:`` as ``action``)."""
        return self.verbs[0]

    @property
    def verbs(self) -> tuple[str, ...]:
        """The first word of each of its lines (a ``heal`` line below a ``cast``), the block's keys aside."""
        lines = self.example.splitlines()
        keys = [line for line in lines[1:] if line[:1].isspace() and ":" in line]
        return tuple(dict.fromkeys(line.split()[0].lower().rstrip(":") for line in lines if line not in keys))
