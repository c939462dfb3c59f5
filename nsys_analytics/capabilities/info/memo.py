"""`info` remembered in the cache folder: a first `info` reads the export directly instead of building the cache
(report.py), which is a scan of every event table; its answer, a few kilobytes, is kept as
`summaries/<stem>-<path hash>-<key>.info`, the key hashing the file's identity with FORMAT and the path it was opened
by. The notes the reading printed (rows left out, names missing) are kept with it and printed again. Only for
profiles of at least the cache's minimum size, never with --no-cache (data/cache/remembered.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...data.profile import Profile

FORMAT = "info-v2"  # change it when profile_info computes something else
KEEP = 64
MAX_BYTES = 2**20


def remembered_info(profile: "Profile", compute: Callable[[], dict]) -> dict:
    """`compute()`, or what it returned before for this file, with the notes it printed printed again."""
    from ...data.cache.remembered import per_profile

    def load(found) -> dict:
        if not isinstance(found, dict):
            raise TypeError("not an info answer")
        return found

    return per_profile(profile, "info", FORMAT, compute, load, lambda info: info, KEEP, MAX_BYTES)
