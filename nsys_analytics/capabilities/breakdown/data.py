"""Queries of `breakdown` beyond the time per kernel name (categories/data.py): the window `--basis wall` divides by."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..categories.data import NameTime
from ...core.filters import KernelFilter
from ..nvtx.steady import Steady

if TYPE_CHECKING:
    from ...data.profile import Profile


def window_ns(profile: Profile, filters: KernelFilter, names: list[NameTime], steady: Steady) -> tuple[int, int]:
    """[start, end) for `--basis wall`: the filter's window, else the steady state's span, else the capture, else
    the operations' span."""
    capture_start, capture_end = profile.run_file("breakdown", "breakdown_capture").rows[0]
    if steady.from_ns is not None:
        capture_start, capture_end = steady.from_ns, steady.to_ns
    start = _first(filters.start_ns, capture_start, min((r.first_start_ns for r in names), default=0))
    end = _first(filters.end_ns, capture_end, max((r.last_end_ns for r in names), default=0))
    return start, end


def _first(*values):
    return next(v for v in values if v is not None)
