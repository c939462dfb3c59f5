"""Small results remembered in the cache folder, one file each: written whole (a temporary file renamed into place),
bounded in number. A folder that cannot be written is no error: the caller computes again next time.

Those named after a profile (`<path prefix><key>`, identity.path_prefix) live in FOLDERS and go with that
profile's caches (`nsys-analytics cache clear [PROFILE]`)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .folder import cache_dir

FOLDERS = ("summaries",)  # diff/memo.py


def remember(memo: Path, text: str, keep: int) -> None:
    """Write `text` to `memo`; then at most `keep` files of its suffix stay in its folder, the most recently
    written."""
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=memo.parent, prefix=".tmp-", suffix=memo.suffix)
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


def forget(prefix: str = "") -> None:
    """Remove what FOLDERS remember of the profiles whose names start with `prefix` (every one: "")."""
    for name in FOLDERS:
        try:
            found = list((cache_dir() / name).iterdir())
        except OSError:
            continue
        for path in found:
            if path.name.startswith(prefix):
                path.unlink(missing_ok=True)
