"""`breakdown --by range`: operations attributed to NVTX ranges by the process rule, one column per range.

An operation belongs to a range when the CUDA API call that launched it ran inside the range's window, on
any thread of the same process (so backward kernels launched by autograd's thread count in `backward`): the
`process` mode of the NVTX reports (nvtx_attributed_ops, docs/nvtx.md), counted once per range name.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...data import sql_files
from ..categories.rules import RuleSet
from ...core.errors import MissingDataError
from ...core.filters import KernelFilter, unknown_range
from ..categories.data import NameTime, create_ops_view, query_name_times
from ..nvtx.report import require_ranges

if TYPE_CHECKING:
    from ...data.profile import Profile

DEFAULT_RANGES = 8  # columns when --range-names is not given: the ranges with the most GPU time


@dataclass(frozen=True)
class Span:
    """One NVTX range instance."""

    pid: int
    range: str
    start_ns: int
    end_ns: int


def range_spans(profile: Profile) -> list[Span]:
    """Every push/pop and start/end range of the profile."""
    require_ranges(profile)
    return [Span(*row) for row in profile.run_file("breakdown", "breakdown_range_spans").rows]


def check_ranges(spans: list[Span], names: list[str]) -> list[str]:
    """`names`, each of which must be a range of the profile, without repeats."""
    known = {s.range for s in spans}
    missing = [n for n in names if n not in known]
    if missing:
        raise unknown_range(missing[0], known)
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


def range_name_times(profile: Profile, rules: RuleSet, filters: KernelFilter, memory_ops: bool,
                     chosen: list[str], busy: bool) -> list[NameTime]:
    """GPU time per kernel name, device and chosen range (`NameTime.part`)."""
    create_ops_view(profile, filters, memory_ops, view="_breakdown_base")
    names = ", ".join(sql_files.sql_literal(n) for n in chosen)
    profile.sql(f"CREATE OR REPLACE TEMP TABLE _breakdown_chosen AS SELECT unnest([{names}]::VARCHAR[]) AS part")
    placed = sql_files.read("breakdown", "breakdown_range_ops").text
    profile.sql(f"CREATE OR REPLACE TEMP VIEW _breakdown_ops AS {placed}")
    return query_name_times(profile, rules, busy)


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
