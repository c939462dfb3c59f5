"""`breakdown --by range` remembered in the cache folder: its columns (each range's kernel names with their times and
categories) are recomputed from every NVTX range's kernels otherwise, which grows with the profile (19.8 s at 20 M
kernels, where the other warm reports stay under a second). Kept as `summaries/<stem>-<path hash>-<key>.breakdown`,
the key hashing the file's identity with FORMAT, the category rules' fingerprint, the kernel filter, the basis, the
memory option and the ranges named; the rules are as of this run, so a changed TOML file is another key. Only for
profiles of at least the cache's minimum size, never with --no-cache (data/cache/remembered.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

FORMAT = "breakdown-ranges-v1"  # change it when summarize_ranges computes something else
KEEP = 64
MAX_BYTES = 16 * 2**20


def remembered_columns(path: Path, key: tuple, compute: Callable[[], list], from_json: Callable[[Any], Any]) -> list:
    """`compute()` (columns with a `to_json()`), or the columns it gave before, made anew by `from_json`."""
    from ...data.cache.remembered import per_file

    def load(text: str) -> list | None:
        try:
            return [from_json(c) for c in json.loads(text)]
        except (ValueError, KeyError, TypeError):
            return None

    def dump(columns: list) -> str:
        return json.dumps([c.to_json() for c in columns], separators=(",", ":"))

    salt = "\0".join([FORMAT, *map(repr, key)])
    return per_file(path, "breakdown", salt, compute, load, dump, KEEP, MAX_BYTES)
