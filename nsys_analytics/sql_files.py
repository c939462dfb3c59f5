"""Read the SQL shipped in sql/: view definitions and report queries, with their header docs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class ColumnDoc:
    name: str
    doc: str


@dataclass(frozen=True)
class SqlFile:
    name: str
    text: str

    @property
    def summary(self) -> str:
        """The first header line after `name:`."""
        first = self.text.splitlines()[0].lstrip("- ").strip()
        return first.split(":", 1)[1].strip() if ":" in first else first

    @property
    def header(self) -> list[str]:
        lines = []
        for line in self.text.splitlines():
            if not line.startswith("--"):
                break
            lines.append(line.lstrip("- ").rstrip())
        return lines

    @property
    def columns(self) -> list[ColumnDoc]:
        """Output columns of the top-level SELECT, from `... AS name, -- doc` lines."""
        docs = []
        for m in _COLUMN_LINE.finditer(self.text):
            docs.append(ColumnDoc(m.group("name"), m.group("doc").strip()))
        return docs


# `    expr AS name,   -- doc` or a bare `    name,  -- doc` at the outer indentation (4 spaces).
_COLUMN_LINE = re.compile(r"^    (?:[^\n]*?\bAS )?(?P<name>[a-z_][a-z0-9_]*),?[ \t]+--(?P<doc>[^\n]*)$", re.M)


@cache
def read(folder: str, name: str) -> SqlFile:
    text = (resources.files("nsys_analytics.sql") / folder / f"{name}.sql").read_text()
    return SqlFile(name, text)


def names(folder: str) -> list[str]:
    root = resources.files("nsys_analytics.sql") / folder
    return sorted(p.name[:-4] for p in root.iterdir() if p.name.endswith(".sql"))
