"""The filters that kernel reports share (device, stream, pid, time window, name regex, NVTX range)."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields
from difflib import SequenceMatcher

from .errors import UsageError

NAME_KINDS = ("demangled", "short", "mangled")
ATTRIBUTIONS = ("thread", "process", "gpu")  # how kernels belong to NVTX ranges (docs/nvtx.md)
_UNITS_NS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
_TIME = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[+-]?\d+)?)\s*(ns|us|ms|s)?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class KernelFilter:
    """Which kernels a report covers. None means no filter; times are ns on the profile's clock."""

    name_kind: str = "demangled"
    device: int | None = None
    stream: int | None = None
    pid: int | None = None
    start_ns: int | None = None
    end_ns: int | None = None
    match: str | None = None
    range_name: str | None = None  # only kernels in an NVTX range of this name (or glob)
    exclude_range_name: str | None = None  # leave out kernels in such a range
    attribution: str = "thread"  # how kernels belong to ranges, for the two above

    def __post_init__(self):
        if self.name_kind not in NAME_KINDS:
            raise UsageError(f"name kind {self.name_kind!r}: choose one of {', '.join(NAME_KINDS)}")
        if self.match is not None:
            try:
                re.compile(self.match)
            except re.error as e:
                raise UsageError(f"--match {self.match!r} is not a valid regular expression ({e})") from e
        if self.attribution not in ATTRIBUTIONS:
            raise UsageError(f"attribution {self.attribution!r}: choose one of {', '.join(ATTRIBUTIONS)}")
        if self.start_ns is not None and self.end_ns is not None and self.start_ns > self.end_ns:
            raise UsageError(f"--start {self.start_ns / 1e9:g}s is later than --end {self.end_ns / 1e9:g}s: "
                             "give the earlier time as --start")

    @classmethod
    def from_keywords(cls, **filters) -> "KernelFilter":
        """The filter a Python call's keywords name: an unknown keyword or a time that is not a whole number of ns
        is a UsageError naming the keywords there are (not a TypeError about this class)."""
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(filters) - set(known))
        if unknown:
            raise UsageError(f"unknown filter {', '.join(map(repr, unknown))}: the filters are {', '.join(known)}")
        for key in ("device", "stream", "pid", "start_ns", "end_ns"):
            value = filters.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise UsageError(f"{key}={value!r}: give a whole number" + (" of nanoseconds on the profile's clock"
                                                                          if key.endswith("_ns") else ""))
        return cls(**filters)

    @property
    def by_range(self) -> bool:
        """True when the filter keeps or drops kernels by NVTX range."""
        return self.range_name is not None or self.exclude_range_name is not None

    def params(self) -> dict:
        return asdict(self)


def check_limit(limit) -> int | None:
    """A Python call's `limit`: None or a whole number of at least 1, as the command line's --limit."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise UsageError(f"limit={limit!r}: give a whole number of at least 1 (or None for every row)")
    return limit


def closest_first(pattern: str, names) -> list[str]:
    """Range names ordered by likeness to `pattern` (the whole name or its text after the domain), then by name."""
    names = sorted(set(names))
    closeness = {n: max(SequenceMatcher(None, pattern.lower(), part.lower()).ratio()
                        for part in (n, n.rpartition(":")[2])) for n in names}
    return sorted(names, key=lambda n: -closeness[n])


def unknown_range(pattern: str, names, limit: int = 10) -> UsageError:
    """The error for a range name that names no range: the profile's range names, closest to `pattern` first."""
    ranked = closest_first(pattern, names)
    listed = ", ".join(repr(n) for n in ranked[:limit]) + (", ..." if len(ranked) > limit else "")
    return UsageError(f"no NVTX range is named {pattern!r}; the profile's ranges, closest first: {listed} "
                      "(`nsys-analytics nvtx` lists them all)")


def parse_time_ns(text: str) -> int:
    """'1.5s', '200ms', '30us', '1000ns' or a plain number of seconds -> nanoseconds."""
    m = _TIME.match(text)
    if not m:
        raise UsageError(f"time {text!r}: write a number with a unit, e.g. 1.5s, 200ms, 30us, 1000ns")
    return round(float(m.group(1)) * _UNITS_NS[(m.group(2) or "s").lower()])


def kernel_filter_from(**options) -> KernelFilter:
    """The KernelFilter of the CLI's kernel filter options (times as text, e.g. '1.5s'); other keys are ignored."""
    start, end = options.get("start"), options.get("end")
    return KernelFilter(
        name_kind=options.get("name_kind") or "demangled", device=options.get("device"),
        stream=options.get("stream"), pid=options.get("pid"), match=options.get("match"),
        start_ns=parse_time_ns(start) if start else None, end_ns=parse_time_ns(end) if end else None,
        range_name=options.get("range_name"), exclude_range_name=options.get("exclude_range_name"),
        attribution=options.get("attribution") or "thread",
    )
