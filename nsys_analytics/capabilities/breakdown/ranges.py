"""`breakdown --by range`: operations attributed to NVTX ranges by the process rule, one column per range.

An operation belongs to a range when the CUDA API call that launched it ran inside the range's window, on
any thread of the same process (so backward kernels launched by autograd's thread count in `backward`): the
`process` mode of the NVTX reports (nvtx_attributed_ops, docs/nvtx.md), counted once per range name.
"""

from __future__ import annotations

from collections import Counter
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
class RangeName:
    """One NVTX range name: its first instance's start and how long an instance was open (per process, overlaps
    once, summed over processes)."""

    first_start_ns: int
    open_ns: int


def range_names(profile: Profile) -> dict[str, RangeName]:
    """Every range name of the profile's push/pop and start/end ranges (their instances stay in DuckDB: 2.5 M of
    them as Python objects took 600 MB at 50 M kernels)."""
    require_ranges(profile)
    rows = profile.run_file("breakdown", "breakdown_range_names").rows
    return {name: RangeName(int(first), int(open_ns)) for name, first, open_ns in rows}


def check_ranges(known: dict[str, RangeName], names: list[str]) -> list[str]:
    """`names`, each of which must be a range of the profile, without repeats."""
    missing = [n for n in names if n not in known]
    if missing:
        raise unknown_range(missing[0], set(known))
    return list(dict.fromkeys(names))


def heaviest_ranges(known: dict[str, RangeName], rows: list[NameTime], limit: int = DEFAULT_RANGES) -> list[str]:
    """The `limit` ranges with the most GPU time attributed (`rows` of all ranges), in order of first start."""
    time: Counter[str] = Counter()
    for r in rows:
        time[r.part] += r.total_ns
    if not time:
        raise MissingDataError("no GPU operation was launched inside an NVTX range; nothing to break down by range")
    heaviest = [name for name, _ in time.most_common(limit)]
    return sorted(heaviest, key=lambda n: (known[n].first_start_ns, n))


def range_name_times(profile: Profile, rules: RuleSet, filters: KernelFilter, memory_ops: bool,
                     chosen: list[str], busy: bool) -> list[NameTime]:
    """GPU time per kernel name, device and chosen range (`NameTime.part`)."""
    create_ops_view(profile, filters, memory_ops, view="_breakdown_base")
    names = ", ".join(f"({sql_files.sql_literal(n)}::VARCHAR)" for n in chosen)
    profile.sql(f"CREATE OR REPLACE TEMP TABLE _breakdown_chosen AS SELECT part FROM (VALUES {names}) AS chosen(part)")
    body = sql_files.inline_params(sql_files.read("breakdown", "breakdown_range_ops").text, filters.params())
    profile.sql(f"CREATE OR REPLACE TEMP VIEW _breakdown_ops AS {body}")
    return query_name_times(profile, rules, busy)
