"""The Lodge's own ``emissary`` subcommands: ``cards check`` (``add_commands``, named by its entry point in the
group ``emissary.commands``; ``api/cli.py`` loads it, and the Lodge only when the command runs)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_commands(sub: Any) -> None:
    """Add ``emissary cards check`` to the command line's subparsers."""
    p_cards = sub.add_parser("cards", help="Lodge card catalogues")
    cards_sub = p_cards.add_subparsers(dest="cards_command", required=True)
    p_check = cards_sub.add_parser("check", help="validate a catalogue file and print each card's phrases in words")
    p_check.add_argument(
        "file", help="a catalogue file (JSON), e.g. domain/lodge/data/cards.json, or a rules package with its Rooms"
    )
    p_check.set_defaults(func=cards_check_cmd)


def cards_check_cmd(args: argparse.Namespace) -> int:
    """Validate a Lodge card catalogue (or a rules package, which may bring its own Rooms) against its schema and
    print every card's phrases in words; exit 1, naming the card or Room and the field, if the file is wrong: an
    unknown field, a field its phrase does not read, a Room adjacent to itself, a door that leads only one way
    unless declared so, a cycle among Persistent triggers."""
    import json

    from pydantic import ValidationError

    from domain.lodge.catalogue import Catalogue, default_catalogue, describe, problems, with_rooms
    from domain.lodge.package import RulesPackage

    try:
        with open(args.file, encoding="utf-8") as fh:
            raw = json.load(fh)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        print(f"{args.file}: not a readable JSON catalogue: {err}", file=sys.stderr)
        return 1
    try:
        if isinstance(raw, dict) and "phases" in raw:  # a rules package: its Rooms in the installed catalogue
            package = RulesPackage.model_validate(raw)
            rooms = [r.model_dump(mode="json") for r in package.rooms or []]
            catalogue = with_rooms(default_catalogue(), rooms)
        else:
            catalogue = Catalogue.model_validate(raw)
    except ValidationError as err:
        for problem in problems(raw, err):
            print(f"{args.file}: {problem}", file=sys.stderr)
        return 1
    print(f"catalogue {catalogue.version}: {len(catalogue.rooms)} rooms, {len(catalogue.evocations)} evocations")
    for room in catalogue.rooms:
        doors = ", ".join(r + (" (one way)" if r in room.one_way else "") for r in room.adjacent)
        print(f"{room.id} (room, {room.name}; {room.slots} slots; doors to {doors})")
    for kind, cards in (
        ("spell", catalogue.spells),
        ("physical action", catalogue.physical_actions),
        ("black rose", catalogue.black_rose),
    ):
        for card in cards:
            target = card.target.kind + (f" ({card.target.archetype})" if card.target.archetype else "")
            print(f"{card.id} ({kind}, {card.name}; target: {target})")
            for n, phrase in enumerate(card.phrases, 1):
                print(f"  {n}. {describe(phrase)}")
            if card.persistent is not None:
                print(f"  persistent, when {card.persistent.trigger.replace('_', ' ')}:")
                for phrase in card.persistent.phrases:
                    print(f"    - {describe(phrase)}")
    for evocation in catalogue.evocations:
        print(
            f"{evocation.id} (evocation, {evocation.name}; {evocation.archetype}, speed {evocation.speed}, "
            f"strength {evocation.strength}, health {evocation.health})"
        )
    return 0
