"""Small results remembered in the cache folder, one file each: written whole (a temporary file renamed into place),
bounded in number. A folder that cannot be written is no error: the caller computes again next time.

`recalled` is the whole pattern: the result remembered for a file's present content, else computed and remembered
if the file did not change while it was read. Results named after a profile (`<path prefix><key>`,
identity.path_prefix) live in SUMMARIES and go with that profile's caches (`nsys-analytics cache clear [PROFILE]`)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from .folder import cache_dir

SUMMARIES = "summaries"  # diff/memo.py
T = TypeVar("T")


def recalled(source: Path, memo: Path, compute: Callable[[], T], load: Callable[[str], T | None],
             dump: Callable[[T], str | None], keep: int) -> T:
    """What `memo` holds (`load` of its text; None: not believed), else `compute()`, written to `memo` as
    `dump(result)` (None: not kept) when `source` did not change while it was computed."""
    try:
        known = load(memo.read_text())
    except OSError:
        known = None
    if known is not None:
        return known
    from .facts import settle, stat_key

    before = stat_key(source)
    result = compute()
    settle(source)  # a change after this check gets another change time, hence another memo
    if stat_key(source) == before:
        text = dump(result)
        if text is not None:
            remember(memo, text, keep)
    return result


def remember(memo: Path, text: str, keep: int) -> None:
    """Write `text` to `memo`; then at most `keep` files of its suffix stay in its folder, the most recently
    written."""
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=memo.parent, prefix=f".memo.{os.getpid()}.", suffix=f".partial{memo.suffix}")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, memo)
        _bound(memo.parent, memo.suffix, keep)
    except OSError:
        Path(tmp).unlink(missing_ok=True)


def _bound(folder: Path, suffix: str, keep: int) -> None:
    names = [p for p in folder.iterdir() if p.suffix == suffix and not p.name.startswith(".")]
    if len(names) <= keep:
        return
    names.sort(key=lambda p: p.stat().st_mtime_ns)
    for old in names[: len(names) - keep]:
        old.unlink(missing_ok=True)


def forget(prefix: str = "", kind: str = SUMMARIES) -> None:
    """Remove what the folder `kind` remembers of the profiles whose names start with `prefix` (every one: "")."""
    try:
        found = list((cache_dir() / kind).iterdir())
    except OSError:
        return
    for path in found:
        if path.name.startswith(prefix):
            path.unlink(missing_ok=True)
