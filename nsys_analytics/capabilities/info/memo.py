"""`info` remembered in the cache folder: a first `info` reads the export directly instead of building the cache
(report.py), which is a scan of every event table; its answer, a few kilobytes, is kept as
`summaries/<stem>-<path hash>-<key>.info`, the key hashing the file's identity with FORMAT and the path it was opened
by. The notes the reading printed (rows left out, names missing) are kept with it and printed again. Only for
profiles of at least the cache's minimum size, never with --no-cache (data/cache/remembered.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...data.profile import Profile

FORMAT = "info-v1"  # change it when profile_info computes something else
KEEP = 64
MAX_BYTES = 2**20


def remembered_info(profile: "Profile", compute: Callable[[], dict]) -> dict:
    """`compute()`, or what it returned before for this file, with the notes it printed printed again."""
    from ...data.cache.remembered import per_file

    printed = getattr(profile, "on_note", None)
    computed = False

    def noted() -> dict:
        nonlocal computed
        computed = True
        notes: list[str] = []
        if printed is not None:
            profile.on_note = lambda note: (notes.append(note), printed(note))
        try:
            return {"info": compute(), "notes": notes}
        finally:
            if printed is not None:
                profile.on_note = printed

    def load(text: str) -> dict | None:
        try:
            found = json.loads(text)
            return found if isinstance(found.get("info"), dict) and isinstance(found.get("notes"), list) else None
        except (ValueError, AttributeError):
            return None

    kept = per_file(profile.sqlite_path, "info", f"{FORMAT}\0{profile.path}", noted, load,
                    lambda found: json.dumps(found, separators=(",", ":")), KEEP, MAX_BYTES)
    if not computed and printed is not None:  # remembered: its notes are printed as the reading printed them
        for note in kept["notes"]:
            printed(note)
    return kept["info"]
