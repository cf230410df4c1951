"""A ruleset's rules text, shipped in its API package's ``rules/`` folder: the text as written (``<name>.txt``) and
``ids.json``, each rule id of the rules analysis (ANALYSIS.md, in ``../shared/rules/``) with its title and the lines
of the text it cites. ``ids.json`` is made from the analysis by ``python -m api.help.rules ANALYSIS.md <part> <code>
<folder>/<text>.txt`` (the analysis's part, a letter, and the code it cites that text by: ``[003:12]`` is line 12 of
the text cited as 003); the help pages read both and give each line and each rule id an anchor.

Importing this module imports no FastAPI."""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

RULE_ID = r"[A-Z]+(?:-[A-Z]+)*-\d+[a-z]?"
DEFINED = re.compile(rf"^\*\*(?P<id>{RULE_ID}) — (?P<title>.+?)\*\*")  # **P-ACT-1 — Actions per month.**
# | GM-18 | Nerfs, refunds ... |, or with a column of severity first: | P-AMB-32 | L | Public/private slots ... |
ROW = re.compile(rf"^\| (?P<id>{RULE_ID}) \|(?: [A-Z]{{1,2}} \|)? (?P<title>[^|]+?) \|")
HEADING = re.compile(r"^#{2,4} (?P<id>[PAL]\.\d+(?:\.\d+)*|[PAL]-EX-\d+)(?: —)? (?P<title>.+)$")  # ### P.2.12 ...
CITE = re.compile(r"\[(?P<code>\d{3}):(?P<r>R?)(?P<start>\d+)(?:\s*[-–]\s*(?P<end>\d+))?\]")
SPAN = re.compile(r"\[(?P<code>\d{3}):(?P<start>\d+)\]\s*[-–]\s*\[(?P=code):(?P<end>\d+)\]")  # [003:1]–[003:2]
# A rule id where a text cites one ("P-DICE-1..5" cites P-DICE-1 first; "P.2.12" is a section of the analysis).
MENTION = re.compile(rf"\b(?:{RULE_ID}|[PAL]\.\d+(?:\.\d+)*)\b")


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    summary: str  # what the analysis says of it first, beside its title
    lines: tuple[tuple[int, int], ...]  # the text's lines it cites, each a (first, last) range


@dataclass(frozen=True)
class Rules:
    """A ruleset's rules text, line by line, and its rule ids."""

    source: str  # the text's file name
    lines: tuple[str, ...]
    rules: dict[str, Rule]

    def anchor(self, rule_id: str) -> str | None:
        """The anchor of a rule id on the rules page, or None if the text's index has no such id."""
        return rule_id if rule_id in self.rules else None


def folder_of(package: str) -> Path | None:
    """A package's ``rules/`` folder, found without importing the package's modules; None if it has none."""
    spec = importlib.util.find_spec(package)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        if (Path(folder) / "rules" / "ids.json").is_file():
            return Path(folder) / "rules"
    return None


@functools.cache
def rules_of(package: str) -> Rules | None:
    """The rules a ruleset's API package ships, or None if it ships none."""
    folder = folder_of(package)
    if folder is None:
        return None
    index = json.loads((folder / "ids.json").read_text(encoding="utf-8"))
    lines = tuple((folder / index["text"]).read_text(encoding="utf-8").splitlines())
    rules = {
        i: Rule(i, r["title"], r.get("summary", ""), tuple((a, b) for a, b in r["lines"] if 1 <= a <= len(lines)))
        for i, r in index["rules"].items()
    }
    return Rules(index["text"], lines, rules)


def mentions(text: str) -> list[str]:
    """The rule ids a text cites, in order, each once."""
    return list(dict.fromkeys(MENTION.findall(text)))


# ---------------------------------------------------------------------- ids.json, made from the analysis


def _cites(text: str, code: str, lines: list[str]) -> list[tuple[int, int]]:
    """The ranges of lines a passage cites in the text of this code; a Lodge rule (``[002:R12]``) is its number's
    line and the two below it (its title and its text)."""
    out: list[tuple[int, int]] = []
    for m in CITE.finditer(SPAN.sub(r"[\g<code>:\g<start>-\g<end>]", text)):
        if m["code"] != code:
            continue
        start = int(m["start"])
        if m["r"]:
            where = [i + 1 for i, line in enumerate(lines) if line.strip() == str(start)]
            if where:
                out.append((where[0], where[0] + 2))
            continue
        end = int(m["end"]) if m["end"] else start
        out.append((start, max(start, end)))
    return list(dict.fromkeys(out))


def index(analysis: str, part: str, code: str, text: str) -> dict[str, dict[str, object]]:
    """Each rule id a part of the analysis defines (a bold definition, a table's row, a numbered section or a worked
    example), its title and the lines of the text (cited by ``code``) it cites."""
    lines = text.splitlines()
    body = analysis.split(f"\n# PART {part} ", 1)[1].split("\n# PART ", 1)[0].splitlines()
    found: dict[str, dict[str, object]] = {}
    current: str | None = None
    passage: list[str] = []

    def close() -> None:
        if current is not None:
            found[current]["lines"] = _cites("\n".join(passage), code, lines)

    for line in body:
        defined, row, heading = DEFINED.match(line), ROW.match(line), HEADING.match(line)
        if row:
            if row["id"] not in found:
                found[row["id"]] = {"title": _plain(row["title"]), "summary": "", "lines": _cites(line, code, lines)}
            continue
        if defined or heading or line.startswith("#"):
            close()
            current, passage = None, []
        m = defined or heading
        if m and m["id"] not in found:
            current, passage = m["id"], [line]
            summary = _plain(line[m.end() :]) if defined else ""
            found[current] = {"title": _plain(m["title"]), "summary": summary[:600], "lines": []}
        elif current is not None:
            passage.append(line)
    close()
    return found


def _plain(title: str) -> str:
    """A title without its Markdown marks and its trailing full stop or citation."""
    title = re.sub(r"`\[\d{3}:[^`]*`", "", title).replace("**", "").replace("`", "").replace("*", "")
    return title.strip().rstrip(".").strip()


def main(argv: list[str]) -> int:
    """``python -m api.help.rules <ANALYSIS.md> <part> <code> <folder>/<text>``: write the folder's ``ids.json``."""
    analysis, part, code, text = Path(argv[0]), argv[1], argv[2], Path(argv[3])
    found = index(analysis.read_text(encoding="utf-8"), part, code, text.read_text(encoding="utf-8"))
    out = {"text": text.name, "made_from": f"ANALYSIS.md, part {part}", "rules": found}
    (text.parent / "ids.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{text.parent / 'ids.json'}: {len(found)} rule ids")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
