"""The time window a picture or an export shows: --start/--end, an NVTX range (--range/--instance) or everything."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.errors import MissingDataError, UsageError
from ...core.filters import parse_time_ns

if TYPE_CHECKING:
    from ...data.profile import Profile


WHOLE_PROFILE = "whole profile"


@dataclass(frozen=True)
class TimeWindow:
    """[start_ns, end_ns) on the profile's clock, and how it was chosen (shown in titles)."""

    start_ns: int
    end_ns: int
    source: str = ""

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns


@dataclass(frozen=True)
class WindowRequest:
    """What the user asked for; `resolve` turns it into a TimeWindow for one profile."""

    start: str | None = None
    end: str | None = None
    range_name: str | None = None
    instance: int | None = None

    def __post_init__(self):
        if self.range_name is not None and (self.start is not None or self.end is not None):
            raise UsageError("give either --start/--end or --range, not both")
        if self.instance is not None and self.range_name is None:
            raise UsageError("--instance picks one instance of --range NAME; give --range too")
        if self.instance is not None and self.instance < 1:
            raise UsageError("--instance counts from 1 (the first instance in time order)")
        if self.start is not None and self.end is not None and parse_time_ns(self.end) <= parse_time_ns(self.start):
            raise UsageError(f"--end {self.end} is not after --start {self.start}")

    @property
    def is_everything(self) -> bool:
        return self.start is None and self.end is None and self.range_name is None


def resolve(profile: Profile, request: WindowRequest) -> TimeWindow:
    """The window for `profile`: the NVTX range instance(s), the given bounds, or the span of its GPU work."""
    if request.range_name is not None:
        return _range_window(profile, request.range_name, request.instance)
    span = None
    if request.start is None or request.end is None:
        span = profile.run_file("visual", "timeline_span").rows[0]
        if span[0] is None:
            raise MissingDataError(f"{profile.path}: no GPU work and no NVTX ranges to draw; profile with "
                                   "`nsys profile --trace=cuda,nvtx`")
    start = parse_time_ns(request.start) if request.start is not None else span[0]
    end = parse_time_ns(request.end) if request.end is not None else span[1]
    if end <= start:
        raise UsageError(f"the window [{start}, {end}) ns is empty; the profile's GPU work spans "
                         f"[{span[0] if span else '?'}, {span[1] if span else '?'}) ns")
    label = WHOLE_PROFILE if request.is_everything else f"{_ms(start)} - {_ms(end)}"
    return TimeWindow(start, end, label)


def _range_window(profile: Profile, pattern: str, instance: int | None) -> TimeWindow:
    from ..nvtx.report import require_ranges

    require_ranges(profile)
    rows = profile.run_file("visual", "range_instances", {"pattern": pattern}).rows
    if not rows:
        names = profile.sql("SELECT name FROM _nvtx_ranges GROUP BY name ORDER BY min(start_ns), name LIMIT 6")
        listed = ", ".join(repr(n) for (n,) in names.rows)
        raise UsageError(f"no NVTX range is named {pattern!r}; ranges in the profile include {listed} "
                         "(`nsys-analytics nvtx` lists them all)")
    if instance is None:
        start, end = min(r[2] for r in rows), max(r[3] for r in rows)
        what = f"{rows[0][1]}" if len(rows) == 1 else f"{len(rows)} instances of {pattern}"
        return TimeWindow(start, end, f"NVTX {what}")
    if instance > len(rows):
        raise UsageError(f"--instance {instance}: {pattern!r} has {len(rows)} instance(s)")
    _, name, start, end = rows[instance - 1]
    return TimeWindow(start, end, f"NVTX {name} #{instance}")


def _ms(ns: int) -> str:
    return f"{ns / 1e6:,.3f} ms"
