"""`breakdown --by range` remembered in the cache folder: its columns (each range's kernel names with their times and
categories) are recomputed from every NVTX range's kernels otherwise, which grows with the profile (19.8 s at 20 M
kernels, where the other warm reports stay under a second). Kept as `summaries/<stem>-<path hash>-<key>.breakdown`,
the key hashing the file's identity with FORMAT, the category rules' fingerprint, the kernel filter, the basis, the
memory option and the ranges named; the rules are as of this run, so a changed TOML file is another key. Only for
profiles of at least the cache's minimum size, never with --no-cache (data/cache/memo.py, for_profile).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import astuple
from pathlib import Path

from ..categories.data import NameTime
from .report import Basis, Column

FORMAT = "breakdown-ranges-v1"  # change it when summarize_ranges computes something else
KEEP = 64
MAX_BYTES = 16 * 2**20


def remembered_columns(path: Path, key: tuple, compute: Callable[[], list[Column]]) -> list[Column]:
    from ...data.cache.memo import for_profile

    salt = "\0".join([FORMAT, *map(repr, key)])
    return for_profile(path, "breakdown", salt, compute, _load, _dump, KEEP, MAX_BYTES)


def _dump(columns: list[Column]) -> str:
    return json.dumps([{"label": c.label, "names": [astuple(n) for n in c.names], "basis": astuple(c.basis),
                        "window": c.window} for c in columns], separators=(",", ":"))


def _load(text: str) -> list[Column] | None:
    try:
        return [Column(c["label"], [_name_time(n) for n in c["names"]], Basis(*c["basis"]), c["window"])
                for c in json.loads(text)]
    except (ValueError, KeyError, TypeError):
        return None


def _name_time(row: list) -> NameTime:
    category, rule, tags, *rest = row
    return NameTime(category, rule, tuple(tags), *rest)
