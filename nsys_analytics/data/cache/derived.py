"""Everything else the cache folder derives from profiles, beside the columnar caches and WAL copies: the SQLite
exports of `.nsys-rep` reports (`exports/`), the results remembered per profile (`summaries/`, `kernel-checks*/`,
`event-checks-*/`, `missing-strings-*/`: one file per profile version, named by its path prefix), the digests of
files (`digests/`, named by file facts) and the spill folders of DuckDB connections (`.duckdb-tmp-<pid>-<hex>`).
`cache list|info|clear` count and remove them with the caches."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from ...core.files import pid_alive
from .folder import cache_dir

EXPORTS = "exports"  # source.py: one SQLite export per report version
DIGESTS = "digests"  # digest.py: keyed by a file's facts, not its path: only a whole clear removes them
_OWN_FOLDERS = {"columnar", "wal-copies"}  # counted and removed by store.py
_SPILL = re.compile(r"^\.duckdb-tmp-(\d+)-[0-9a-f]+$")  # database.py


def memo_folders() -> list[Path]:
    """The cache folder's folders of per-profile files (exports included), sorted by name."""
    try:
        found = [p for p in cache_dir().iterdir() if p.is_dir() and not p.name.startswith(".")]
    except OSError:
        return []
    return sorted(p for p in found if p.name not in _OWN_FOLDERS)


def exports() -> list[Path]:
    """The exports of reports in the cache folder (whole ones; a partial one is a killed export's)."""
    folder = cache_dir() / EXPORTS
    return sorted(p for p in folder.glob("*.sqlite") if not p.name.startswith(".")) if folder.is_dir() else []


def files(prefix: str = "") -> list[Path]:
    """The per-profile files of the profiles whose path prefix is `prefix` (every one, digests included: "")."""
    found = []
    for folder in memo_folders():
        if prefix and folder.name == DIGESTS:
            continue
        # a hidden file is one being written (`.<name>.<pid>...partial`): orphans.py removes it once its writer is gone
        found += [p for p in folder.iterdir() if p.is_file() and p.name.startswith(prefix) and p.name[0] != "."]
    return found


def size(paths: list[Path]) -> int:
    total = 0
    for p in paths:
        try:
            total += p.stat().st_size
        except OSError:
            pass
    return total


def remove(paths: list[Path]) -> None:
    for p in paths:
        p.unlink(missing_ok=True)
        for side in ("-wal", "-shm", "-journal"):  # SQLite's files beside an export opened by nsys or us
            p.with_name(p.name + side).unlink(missing_ok=True)


def dead_spills() -> list[Path]:
    """Spill folders of DuckDB connections whose process is gone (killed: its own close never ran)."""
    try:
        found = list(cache_dir().iterdir())
    except OSError:
        return []
    return [p for p in found if (m := _SPILL.match(p.name)) and p.is_dir() and not pid_alive(int(m.group(1)))]


def remove_dead_spills() -> list[Path]:
    gone = dead_spills()
    for p in gone:
        shutil.rmtree(p, ignore_errors=True)
    return gone
