"""gpu_starved's figures per process/device (sql/diagnose/gpu_starved.sql), joined a slice of time at a time.

Each idle gap is joined to the operation after it (in the stored _range_ops) for its launching call's start. The
hash join holds every gap: at 50 M kernels 11.9 M of them went out of core in diagnose's 700 MB pool. Where the
cache stores _range_ops (in time order, so a filter on its start reads only the row groups of a slice), the gaps
are cut into slices of time with about SLICE_GAPS each, joined in turn, and their sums added here. Without it,
each slice would compute _range_ops again: one join.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...data.profile import Profile

SLICE_GAPS = 3_000_000  # gaps per slice: 50 M kernels' 11.9 M gaps in four slices (3.5 s; whole, 6.0 s)
_QUANTILES = 64  # _gap_slices.sql's grid of ends


def starved_rows(profile: Profile, min_gap_ns: int) -> list[dict]:
    """gpu_starved.sql's rows: pid, device, starved_ns, starved_gaps, pending_ns, worst ([start, end] of the three
    longest starved gaps, the earliest of equal ones), by pid and device."""
    params = {"min_gap_ns": min_gap_ns, "lo": None, "hi": None}
    bounds = _slices(profile, min_gap_ns) if profile.stores("_range_ops") else []
    if len(bounds) < 3:
        return profile.run_file("diagnose", "gpu_starved", params).to_records()
    totals: dict[tuple[int, int], dict] = {}
    for lo, hi in zip(bounds, bounds[1:]):
        for r in profile.run_file("diagnose", "gpu_starved", {**params, "lo": lo, "hi": hi}).to_records():
            total = totals.setdefault((r["pid"], r["device"]), {"pid": r["pid"], "device": r["device"],
                                                                "starved_ns": 0, "starved_gaps": 0, "pending_ns": 0,
                                                                "worst": []})
            for k in ("starved_ns", "starved_gaps", "pending_ns"):
                total[k] += r[k]
            total["worst"] += [tuple(w) for w in r["worst"] or []]
    for total in totals.values():  # each slice's three longest hold the whole's: the same order everywhere
        total["worst"] = [list(w) for w in sorted(total["worst"], key=lambda w: (w[0] - w[1], w[0]))[:3]] or None
    return [totals[k] for k in sorted(totals)]


def _slices(profile: Profile, min_gap_ns: int) -> list[int]:
    """The bounds of the slices of time, [first end, ..., last end + 1]: one slice where the gaps are few."""
    gaps, first, last, ends = profile.run_file("diagnose", "_gap_slices", {"min_gap_ns": min_gap_ns}).rows[0]
    parts = min(_QUANTILES, math.ceil(gaps / SLICE_GAPS)) if gaps else 0
    if parts < 2:
        return []
    inner = (ends[round(i * _QUANTILES / parts) - 1] for i in range(1, parts))
    return sorted({first, *(e for e in inner if first < e <= last), last + 1})
