"""NVTX ranges in `diagnose`: the ranges each finding happens in, and the time span `--range NAME` keeps."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...data import sql_files
from ...data.database import store_arrays
from ...core.errors import UsageError
from ...core.filters import unknown_range
from ..nvtx.report import require_ranges
from .data import Window
from .findings import Finding

if TYPE_CHECKING:
    from ...data.profile import Profile

MAX_RANGES = 5  # range names listed per finding


def range_window(profile: Profile, pattern: str, window: Window) -> tuple[Window, dict]:
    """The envelope [first start, last end) of the instances of the range(s) `pattern` names, within `window`.

    MissingDataError when the profile has no NVTX ranges; UsageError when `pattern` names none.
    """
    require_ranges(profile)
    [span] = profile.run_file("diagnose", "range_span", {"pattern": pattern}).to_records()
    if not span["instances"]:
        raise unknown_range(pattern, profile.range_names())
    restricted = Window(max(window.from_ns, span["start_ns"]), min(window.to_ns, span["end_ns"]))
    if restricted.from_ns >= restricted.to_ns:
        raise UsageError(f"NVTX range {pattern!r} lies outside the --start/--end window")
    return restricted, {"name": pattern, "instances": span["instances"], **restricted.params()}


def attach_ranges(profile: Profile, findings: list[Finding]) -> None:
    """Fill each finding's `ranges`: the NVTX ranges of its process overlapping its windows, outermost first.

    One query for all findings: their windows (at most three each) are joined to the ranges; the nesting depth of
    each range found is counted with numpy (`_depths`), then the names are ranked in SQL.
    """
    windows = [(i, f.pid, s, e) for i, f in enumerate(findings) for s, e in f.windows if e > s]
    if not windows or not profile.has_table("NVTX_EVENTS"):
        return
    values = ", ".join(f"({int(i)}, {'NULL' if pid is None else int(pid)}, {int(s)}, {int(e)})"
                       for i, pid, s, e in windows)
    profile.sql("CREATE OR REPLACE TABLE _diag.finding_windows AS SELECT CAST(finding AS INTEGER) AS finding, "
                "CAST(pid AS BIGINT) AS pid, CAST(start_ns AS BIGINT) AS start_ns, CAST(end_ns AS BIGINT) AS end_ns "
                f"FROM (VALUES {values}) AS w(finding, pid, start_ns, end_ns)")
    profile.sql(f"CREATE OR REPLACE TABLE _diag.finding_hits AS {sql_files.read('diagnose', '_finding_hits').text}")
    _store_depths(profile)
    for row in profile.run_file("diagnose", "finding_ranges", {"max_ranges": MAX_RANGES}).to_records():
        findings[row["finding"]].ranges.append(row["name"])


def _store_depths(profile: Profile) -> None:
    """_diag.hit_depths (finding, range_id, depth) of the ranges in _diag.finding_hits."""
    import numpy as np

    hits = profile.con.execute("SELECT finding, coalesce(pid, -1) AS pid, range_id, start_ns, end_ns "
                               "FROM _diag.finding_hits").fetchnumpy()
    cols = {c: np.asarray(v) for c, v in hits.items()}
    data = {"finding": cols["finding"], "range_id": cols["range_id"],
            "depth": _depths(np, cols["finding"], cols["pid"], cols["range_id"], cols["start_ns"], cols["end_ns"])}
    store_arrays(profile.con, "_diag.hit_depths", data, {"finding": "INTEGER", "range_id": "BIGINT", "depth": "BIGINT"})


def _depths(np, finding, pid, range_id, start, end):
    """The nesting depth of each range among those of the same finding and process: the running sum, at its start,
    of a +1 at every start and a -1 at every end, minus one, taken in the order (time, ends before starts, longer
    first, range id). That is: the starts ahead of its own, minus the ends at or before its start."""
    depth = np.empty(len(start), dtype=np.int64)
    if not len(start):
        return depth
    order = np.lexsort((pid, finding))
    f, p = finding[order], pid[order]
    cut = np.flatnonzero((f[1:] != f[:-1]) | (p[1:] != p[:-1])) + 1
    for rows in np.split(order, cut):
        s, e = start[rows], end[rows]
        ahead = np.empty(len(rows), dtype=np.int64)
        ahead[np.lexsort((range_id[rows], -e, s))] = np.arange(len(rows))
        depth[rows] = ahead - np.searchsorted(np.sort(e), s, "right")
    return depth
