"""NVTX ranges in `diagnose`: the ranges each finding happens in, and the time span `--range NAME` keeps."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UsageError
from ..filters import unknown_range
from ..nvtx.report import require_ranges
from .data import Window
from .findings import Finding

if TYPE_CHECKING:
    from ..profile import Profile

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

    One query for all findings: their windows (at most three each) are joined to the ranges.
    """
    windows = [(i, f.pid, s, e) for i, f in enumerate(findings) for s, e in f.windows if e > s]
    if not windows or not profile.has_table("NVTX_EVENTS"):
        return
    values = ", ".join(f"({int(i)}, {'NULL' if pid is None else int(pid)}, {int(s)}, {int(e)})"
                       for i, pid, s, e in windows)
    profile.sql("CREATE OR REPLACE TABLE _diag.finding_windows AS SELECT CAST(finding AS INTEGER) AS finding, "
                "CAST(pid AS BIGINT) AS pid, CAST(start_ns AS BIGINT) AS start_ns, CAST(end_ns AS BIGINT) AS end_ns "
                f"FROM (VALUES {values}) AS w(finding, pid, start_ns, end_ns)")
    for row in profile.run_file("diagnose", "finding_ranges", {"max_ranges": MAX_RANGES}).to_records():
        findings[row["finding"]].ranges.append(row["name"])
