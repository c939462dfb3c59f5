"""Results remembered per profile file (`per_file`): named by the file's identity and what the result depends on,
kept in the cache folder's SUMMARIES with the profile's other caches (memo.py writes and bounds them).
`per_profile` does it for a report computed from an open Profile, with the notes its reading printed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .folder import cache_dir, enabled, min_size
from .identity import identity, path_prefix
from .memo import SUMMARIES, recalled

if TYPE_CHECKING:
    from ..profile import Profile

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
        try:
            text = dump(result)
        except (TypeError, ValueError):  # a value JSON cannot hold: computed again next time
            return None
        return text if len(text) <= max_bytes else None

    return recalled(path, memo, compute, load, bounded, keep)


def per_profile(profile: "Profile", suffix: str, salt: str, compute: Callable[[], T], load: Callable[[Any], T],
                dump: Callable[[T], Any], keep: int, max_bytes: int) -> T:
    """`per_file` for a result computed from `profile`: kept as JSON (`dump` gives what json writes, `load` makes
    the result from it again, raising KeyError, TypeError or ValueError where it cannot), together with the notes
    the reading printed, which are printed again when the result is recalled. The key holds the path the profile
    was opened by and the process a rank's profile keeps."""
    printed = getattr(profile, "on_note", None)
    computed = False

    def noted() -> dict:
        nonlocal computed
        computed = True
        notes: list[str] = []
        if printed is not None:
            profile.on_note = lambda note: (notes.append(note), printed(note))
        try:
            return {"result": compute(), "notes": notes}
        finally:
            if printed is not None:
                profile.on_note = printed

    def load_text(text: str) -> dict | None:
        try:
            found = json.loads(text)
            notes = found["notes"]
            if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
                return None
            return {"result": load(found["result"]), "notes": notes}
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def dump_text(kept: dict) -> str:
        return json.dumps({"result": dump(kept["result"]), "notes": kept["notes"]}, separators=(",", ":"))

    key = f"{salt}\0{profile.path}\0{getattr(profile, 'pid', None)}"
    kept = per_file(profile.sqlite_path, suffix, key, noted, load_text, dump_text, keep, max_bytes)
    if not computed and printed is not None:  # remembered: its notes are printed as the reading printed them
        for note in kept["notes"]:
            printed(note)
    return kept["result"]
