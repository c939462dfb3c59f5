"""The registry of commands: one record per command, kept in the folder that holds it.

Each capability folder (`capabilities/<name>/`, and `cli/` for the house's own `cache`) carries a `capability.json`
whose `commands` list holds one record per command it defines. The registry reads those files with the stdlib's json
(already loaded at start-up; reading them all takes about 0.5 ms) and imports no command: `--help` lists the
commands from the records alone. The CLI imports a record's module when that command runs, and the ranks machinery
imports a record's merge only when several ranks are merged.

A record's fields (those marked * are required):

- `name`*: the command's name;
- `order`*: its place in `--help` (smallest first; gaps of 10 leave room);
- `module`*: its module in the folder, `<command>_cmd` (the CLI layer);
- `summary`*: the `--help` listing line, equal to the command's own first help line (tests/test_registry.py);
- `doc`: its page, `docs/<x>.md`;
- `ranks`: whether it takes several profiles as the ranks of one run;
- `merge`: its exact merge over ranks, `"module:function"` called as `function(pset, **options)`;
- `merge_unless`: options that turn the merge off when given (the ranks are then stacked instead).
"""

from __future__ import annotations

import functools
import json
import os
from typing import NamedTuple

RECORD_FILE = "capability.json"
PACKAGE = "nsys_analytics"
_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the package folder


class Record(NamedTuple):
    """One command as the registry knows it."""

    name: str
    order: int
    module: str  # the full dotted name, nsys_analytics.capabilities.<cap>.<command>_cmd
    folder: str  # its folder inside the package, e.g. capabilities/kernels
    summary: str
    doc: str | None = None
    ranks: bool = False
    merge: str | None = None
    merge_unless: tuple[str, ...] = ()


def folders(root: str = _HERE) -> list[str]:
    """The folders that may hold commands, relative to the package: each capability's, and cli/."""
    base = os.path.join(root, "capabilities")
    caps = sorted(e.name for e in os.scandir(base) if e.is_dir() and not e.name.startswith(("_", ".")))
    return [f"capabilities/{c}" for c in caps] + ["cli"]


def read(root: str = _HERE) -> list[Record]:
    """Every record under `root` (a package folder), in `--help` order."""
    records = []
    for folder in folders(root):
        path = os.path.join(root, folder, RECORD_FILE)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                records += [_record(folder, entry, path) for entry in json.load(f)["commands"]]
    return sorted(records, key=lambda r: (r.order, r.name))


def _record(folder: str, entry: dict, path: str) -> Record:
    fields = dict(entry)
    try:
        fields["module"] = f"{PACKAGE}.{folder.replace('/', '.')}.{fields['module']}"
        fields["merge_unless"] = tuple(fields.get("merge_unless", ()))
        return Record(folder=folder, **fields)
    except (KeyError, TypeError) as e:  # a record this module cannot read: the package itself is broken
        raise ValueError(f"{path}: bad record {entry.get('name', '?')!r}: {e}") from e


@functools.lru_cache(maxsize=1)
def records() -> tuple[Record, ...]:
    """The package's records, read once."""
    return tuple(read())


def names() -> list[str]:
    return [r.name for r in records()]


def find(name: str) -> Record | None:
    return next((r for r in records() if r.name == name), None)


def by_module(module: str) -> Record | None:
    return next((r for r in records() if r.module == module), None)


def resolve(dotted: str):
    """`"package.module:function"` -> the function (its module imported now)."""
    import importlib

    module, _, attr = dotted.partition(":")
    return getattr(importlib.import_module(module), attr)
