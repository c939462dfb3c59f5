"""A profile's summary (what `diff` compares and `runs add` stores), remembered in the cache folder.

Summarizing a 1 M-kernel profile whose columnar cache is built still loads DuckDB and queries it: about 0.15 s of a
`runs add` or of each side of a `diff`, and a `runs gate` after `runs add` in CI, or a baseline diffed against one
change after another, summarizes the same file again. The summary (tens of KB of JSON) is kept in
`summaries/<stem>-<path hash>-<key>.json` in the cache folder and read back in about a millisecond. The key hashes
the file's identity (what the columnar cache trusts to decide that a profile is unchanged: path, size, modification
time, inode and sampled bytes, cache/identity.py) with everything else the summary depends on: its format (FORMAT:
change it when `diff.data.summarize` computes something else), the attribution asked, the category rules and, for
one process of a report split by process, that process. A summary is remembered only if the file did not change
while it was read. Like the columnar cache, it is kept for profiles of at least NSYS_ANALYTICS_CACHE_MIN_SIZE
(4 MiB; smaller ones are summarized in well under a second), goes with the profile's caches (`cache clear`), and
`--no-cache` neither reads nor writes it. The folder holds at most KEEP summaries of at most MAX_BYTES each.
Nothing is written beside the file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ...data.cache.remembered import per_file
from .summary import ProfileSummary

if TYPE_CHECKING:
    from ..categories import RuleSet

FORMAT = "summary-v2"
KEEP = 256  # summaries remembered (tens of KB each); the least recently written go first
MAX_BYTES = 4 * 2**20  # a larger one (thousands of kernel names) is computed each time: the folder stays small


def summary_of(path: str | Path, rules: RuleSet, attribution: str, part: str,
               compute: Callable[[], ProfileSummary]) -> ProfileSummary:
    """`compute()`, or what it returned before for the file's present content (`attribution` and `part` as the
    caller names them; it sets the path, label and rank it asks for: they are not part of the key)."""
    salt = f"{FORMAT}\0{attribution}\0{part}\0{rules.fingerprint()}"
    return per_file(Path(path), "json", salt, compute, _load, _dump, KEEP, MAX_BYTES)


def _load(text: str) -> ProfileSummary | None:
    """The remembered summary; None when it cannot be read whole (computed again then)."""
    try:
        return ProfileSummary.from_json(json.loads(text))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _dump(summary: ProfileSummary) -> str:
    return json.dumps(summary.to_json(), separators=(",", ":"))
