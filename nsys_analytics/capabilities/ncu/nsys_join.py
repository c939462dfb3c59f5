"""Join ncu results to the nsys kernels of the same program: hardware metrics next to timeline totals.

A result matches the nsys kernel with the same name (mangled when the report has it, else the bare
function name) and the same place in the order of launches of that name. This holds when ncu profiled
every launch of that name from the start of the program; with `--launch-skip`, `-c` or `-k` filters it
may pair different launches of one name, which share the name's totals all the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from .report import NcuReport

COLUMNS = ("nsys_duration_ns", "nsys_total_ns", "nsys_instances", "nsys_time_pct")


@dataclass
class Join:
    frame: pd.DataFrame  # nsys_match rows, one per ncu result
    matched_by: str  # 'mangled' or 'function'
    notes: list[str] = field(default_factory=list)


def join_nsys(report: NcuReport, nsys_path: str | Path) -> Join:
    """Match every result of `report` to the kernels of the nsys profile; notes say what did not match."""
    from ...data.profile import Profile

    with Profile(nsys_path) as profile:
        kernels = profile.frame("SELECT start_ns, duration_ns, mangled_name, short_name FROM kernels")
    has_mangled = report.sql("SELECT count(*) FROM ncu_kernels WHERE mangled_name IS NULL").rows[0][0] == 0
    by = "mangled" if has_mangled else "function"
    report.con.register("_nsys_kernels", kernels)
    try:
        frame = report.run_file("ncu", "nsys_match", {"by": by}).to_pandas()
        notes = _notes(report, frame, by)
    finally:
        report.con.unregister("_nsys_kernels")
    return Join(frame, by, notes)


def _notes(report: NcuReport, frame: pd.DataFrame, by: str) -> list[str]:
    unmatched = frame[frame["nsys_start_ns"].isna()]
    names = "mangled names" if by == "mangled" else "function names"
    matched = len(frame) - len(unmatched)
    notes = [f"matched {matched} of {len(frame)} ncu kernels to nsys kernels by {names} and order of launch"]
    if len(unmatched):
        ids = ", ".join(str(i) for i in unmatched["kernel_id"].head(10))
        more = " …" if len(unmatched) > 10 else ""
        notes.append(f"no nsys kernel for ncu kernels {ids}{more} (nsys has fewer launches of that name, or none)")
    extra = report.run_file("ncu", "nsys_unprofiled", {"by": by}).rows[0]
    if extra[0]:
        notes.append(f"{extra[0]} nsys kernels ({extra[1]:,} ns) have a name that ncu did not profile")
    return notes


def add_columns(analysis, join: Join) -> None:
    """Put the nsys columns next to the per-kernel rows of an `Analysis` (group_by none)."""
    by_id = join.frame.set_index("kernel_id")
    units = {"nsys_duration_ns": "ns", "nsys_total_ns": "ns", "nsys_instances": "", "nsys_time_pct": "%"}
    for column, unit in units.items():
        analysis.frame[column] = analysis.frame["id"].map(by_id[column]).astype("float64")
        analysis.value_columns.append(column)
        analysis.units[column] = unit
    analysis.notes.extend(join.notes)
