"""`breakdown --by range`: operations attributed to NVTX ranges by the process rule, one column per range.

An operation belongs to a range when the CUDA API call that launched it started inside the range's
window, on any thread of the same process (so backward kernels launched by autograd's thread count in
`backward`). The chosen ranges are cut here into disjoint segments, each carrying the set of ranges open
over it (a sweep over the few thousand ranges); sql/reports/breakdown_range_ops.sql then places every
operation in its segment with one ASOF join on its launch time, never a join of kernels against ranges.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .. import sql_files
from ..categories import RuleSet
from ..errors import MissingDataError, UsageError
from ..filters import KernelFilter
from .breakdown_data import NameTime, create_ops_view, query_name_times

if TYPE_CHECKING:
    from ..profile import Profile

DEFAULT_RANGES = 8  # columns when --range-names is not given: the ranges with the most GPU time


@dataclass(frozen=True)
class Span:
    """One NVTX range instance."""

    pid: int
    range: str
    start_ns: int
    end_ns: int


@dataclass(frozen=True)
class Segment:
    """A stretch of one process's timeline over which the same set of chosen ranges is open."""

    pid: int
    start_ns: int
    end_ns: int
    ranges: frozenset[str]


def range_spans(profile: Profile) -> list[Span]:
    """Every closed push/pop and start/end range of the profile."""
    if not profile.has_table("NVTX_EVENTS"):
        raise MissingDataError(f"{profile.path}: has no NVTX ranges; --by range needs `nsys profile --trace=nvtx`")
    return [Span(*row) for row in profile.run_file("reports", "breakdown_range_spans").rows]


def check_ranges(spans: list[Span], names: list[str]) -> list[str]:
    """`names`, each of which must be a range of the profile, without repeats."""
    known = {s.range for s in spans}
    missing = [n for n in names if n not in known]
    if missing:
        shown = ", ".join(sorted(known)[:20]) + (" ..." if len(known) > 20 else "")
        raise UsageError(f"no NVTX range named {', '.join(map(repr, missing))}; ranges: {shown}")
    return list(dict.fromkeys(names))


def heaviest_ranges(spans: list[Span], rows: list[NameTime], limit: int = DEFAULT_RANGES) -> list[str]:
    """The `limit` ranges with the most GPU time attributed (`rows` of all ranges), in order of first start."""
    time: Counter[str] = Counter()
    for r in rows:
        time[r.part] += r.total_ns
    if not time:
        raise MissingDataError("no GPU operation was launched inside an NVTX range; nothing to break down by range")
    first: dict[str, int] = {}
    for s in spans:
        first.setdefault(s.range, s.start_ns)
    heaviest = [name for name, _ in time.most_common(limit)]
    return sorted(heaviest, key=lambda n: (first[n], n))


def range_windows(spans: list[Span], chosen: list[str]) -> dict[str, int]:
    """How long each chosen range was open: the union of its instances, summed over processes."""
    by_key: dict[tuple[int, str], list[tuple[int, int]]] = defaultdict(list)
    for s in spans:
        if s.range in chosen:
            by_key[(s.pid, s.range)].append((s.start_ns, s.end_ns))
    total: dict[str, int] = defaultdict(int)
    for (_, name), intervals in by_key.items():
        total[name] += _union_length(intervals)
    return {name: total[name] for name in chosen}


def segments(spans: list[Span], chosen: list[str]) -> list[Segment]:
    """Disjoint stretches of each process's timeline with the set of chosen ranges open over them."""
    wanted = set(chosen)
    events: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for s in spans:
        if s.range in wanted and s.end_ns > s.start_ns:
            events[s.pid] += [(s.start_ns, 1, s.range), (s.end_ns, -1, s.range)]
    out: list[Segment] = []
    for pid, pid_events in events.items():
        out += _sweep(pid, sorted(pid_events))
    return out


def range_name_times(profile: Profile, rules: RuleSet, filters: KernelFilter, memory_ops: bool,
                     spans: list[Span], chosen: list[str], busy: bool) -> list[NameTime]:
    """GPU time per kernel name, device and chosen range (`NameTime.part`)."""
    create_ops_view(profile, filters, memory_ops, view="_breakdown_base")
    sets = _load_segments(profile, segments(spans, chosen))
    placed = sql_files.read("reports", "breakdown_range_ops").text
    if not busy:  # group per set of ranges, then spread each group over its ranges (fewer rows to group)
        profile.sql(f"CREATE OR REPLACE TEMP VIEW _breakdown_ops AS {placed}")
        return [replace(r, part=name) for r in query_name_times(profile, rules, False) for name in sets[r.part]]
    profile.sql(f"CREATE OR REPLACE TEMP VIEW _breakdown_placed AS {placed}")
    exploded = sql_files.read("reports", "breakdown_range_explode").text
    profile.sql(f"CREATE OR REPLACE TEMP VIEW _breakdown_ops AS {exploded}")
    return query_name_times(profile, rules, True)


def _sweep(pid: int, events: list[tuple[int, int, str]]) -> list[Segment]:
    """Segments of one process from its sorted (time, +1/-1, range) events; touching equal ones merged."""
    count: Counter[str] = Counter()
    out: list[Segment] = []
    for i, (t, step, name) in enumerate(events):
        count[name] += step
        next_t = events[i + 1][0] if i + 1 < len(events) else t
        if next_t == t:
            continue  # more events at this instant: the set is final after the last one
        current = frozenset(n for n, c in count.items() if c > 0)
        if out and out[-1].end_ns == t and out[-1].ranges == current:
            out[-1] = Segment(pid, out[-1].start_ns, next_t, current)
        elif current:
            out.append(Segment(pid, t, next_t, current))
    return out


def _load_segments(profile: Profile, segs: list[Segment]) -> dict[str, list[str]]:
    """Load `_range_segments` and `_range_sets`; return {set id as text: its range names}."""
    import numpy as np  # a dependency of pandas and matplotlib; registering arrays needs no pandas

    set_ids: dict[frozenset[str], int] = {}
    ids = [set_ids.setdefault(s.ranges, len(set_ids)) for s in segs]
    _load(profile, "_range_segments", {
        "pid": np.array([s.pid for s in segs], dtype=np.int64),
        "start_ns": np.array([s.start_ns for s in segs], dtype=np.int64),
        "end_ns": np.array([s.end_ns for s in segs], dtype=np.int64),
        "set_id": np.array(ids, dtype=np.int64),
    })
    pairs = [(i, name) for ranges, i in set_ids.items() for name in sorted(ranges)]
    _load(profile, "_range_sets", {
        "set_id": np.array([i for i, _ in pairs], dtype=np.int64),
        "part": np.array([n for _, n in pairs], dtype=object),
    })
    return {str(i): sorted(ranges) for ranges, i in set_ids.items()}


def _load(profile: Profile, table: str, columns: dict) -> None:
    """A temp table from numpy columns (`table` is one of the fixed names above)."""
    profile.con.register("_incoming", columns)
    try:
        profile.sql(f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT * FROM _incoming")
    finally:
        profile.con.unregister("_incoming")


def _union_length(intervals: list[tuple[int, int]]) -> int:
    total, reach = 0, None
    for start, end in sorted(intervals):
        if reach is None or start >= reach:
            total += max(end - start, 0)
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total
