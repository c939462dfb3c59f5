"""Results remembered per profile file (`per_file`): named by the file's identity and what the result depends on,
kept in the cache folder's SUMMARIES with the profile's other caches (memo.py writes and bounds them)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from .folder import cache_dir, enabled, min_size
from .identity import identity, path_prefix
from .memo import SUMMARIES, recalled

T = TypeVar("T")


def per_file(path: Path, suffix: str, salt: str, compute: Callable[[], T], load: Callable[[str], T | None],
                dump: Callable[[T], str], keep: int, max_bytes: int) -> T:
    """`compute()`, or what it returned before for the profile file's present content and `salt`, kept in
    SUMMARIES as `<path prefix><key>.<suffix>`. Computed each time without the cache (`--no-cache`), for a profile
    below the cache's minimum size (it is quick to read), for anything but a file, and where the text is larger
    than `max_bytes`."""
    if not enabled():
        return compute()
    try:
        if not path.is_file() or path.stat().st_size < min_size():
            return compute()
        memo = cache_dir() / SUMMARIES / f"{path_prefix(path)}{identity(path, salt)}.{suffix}"
    except OSError:
        return compute()

    def bounded(result: T) -> str | None:
        text = dump(result)
        return text if len(text) <= max_bytes else None

    return recalled(path, memo, compute, load, bounded, keep)
