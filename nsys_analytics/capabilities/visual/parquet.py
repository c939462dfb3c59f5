"""`export --to parquet`: every public view of the normalized schema as one Parquet file (DuckDB's own writer),
into a new folder that appears whole or not at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from ...core import files
from ...core.errors import UsageError
from ...data.schema_objects import PUBLIC_VIEWS
from .window import WHOLE_PROFILE, TimeWindow

if TYPE_CHECKING:
    from ...data.profile import Profile

MANIFEST = "nsys-analytics-export.json"  # marks a folder this command wrote (and may replace)
TIMED_VIEWS = ("kernels", "cuda_api", "nvtx_events", "memcpy", "memset", "syncs")  # have start_ns / end_ns


def check_target(folder: str | Path) -> Path:
    """A folder we may write: new, empty, or an earlier export of ours (it is replaced)."""
    folder = Path(folder)
    if folder.exists():
        if not folder.is_dir():
            raise UsageError(f"-o {folder}: is a file; --to parquet writes a folder")
        if any(folder.iterdir()) and not (folder / MANIFEST).exists():
            raise UsageError(f"-o {folder}: the folder exists and holds other files; give a new or empty folder")
    return folder


def export_parquet(profile: Profile, folder: str | Path, window: TimeWindow, views=PUBLIC_VIEWS) -> dict[str, int]:
    """Write `views` of `profile` to FOLDER/<view>.parquet; return {view: rows}. Timed views keep the rows that
    overlap `window` (all rows for the whole profile)."""
    folder = check_target(folder)
    with files.replacing_folder(folder) as tmp:
        rows = {view: _write_view(profile, view, tmp / f"{view}.parquet", window) for view in views}
        manifest = {"profile": str(profile.path), "views": rows, "window_ns": None if window.source == WHOLE_PROFILE
                    else [window.start_ns, window.end_ns]}
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return rows


def _write_view(profile: Profile, view: str, path: Path, window: TimeWindow) -> int:
    where = ""
    if view in TIMED_VIEWS and window.source != WHOLE_PROFILE:
        where = f" WHERE start_ns < {int(window.end_ns)} AND coalesce(end_ns, start_ns) >= {int(window.start_ns)}"
    target = str(path).replace("'", "''")
    result = profile.sql(f"COPY (SELECT * FROM {view}{where}) TO '{target}' (FORMAT parquet, COMPRESSION zstd)")
    return int(result.rows[0][0]) if result.rows else 0
