"""The queries behind `classify` and `breakdown`: GPU time per kernel name, each name classified once.

One query groups the operations (a million kernels: one scan) by kernel name and device; the few
hundred distinct demangled names of the result are then classified in Python (`categories.RuleSet`),
so no regular expression runs per kernel and the SQL needs no category table.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ...data import sql_files
from .rules import MEMORY, RuleSet
from ...core.errors import MissingDataError
from ...core.filters import KernelFilter

if TYPE_CHECKING:
    from ...data.profile import Profile


@dataclass(frozen=True)
class NameTime:
    """GPU time of one kernel name (or memcpy/memset kind) on one device, with its classification."""

    category: str
    rule: str | None       # the rule that matched; 'memcpy'/'memset' for those; None: no rule (other)
    tags: tuple[str, ...]
    device: int
    instances: int
    total_ns: int          # summed durations
    busy_ns: float | None  # share of the device's busy time (None unless asked for)
    first_start_ns: int
    last_end_ns: int
    name: str              # as chosen by --name, or the memcpy/memset label
    part: str = ""         # the NVTX range with --by range


def name_times(
    profile: Profile, rules: RuleSet, filters: KernelFilter | None = None, *,
    memory_ops: bool = True, busy: bool = False, steady: dict | None = None,
) -> list[NameTime]:
    """GPU time per kernel name and device (and per memcpy/memset kind when `memory_ops`), heaviest first.

    `busy` also computes each name's share of the busy time (overlaps shared equally; see
    sql/categories/breakdown_by_name_busy.sql), which costs a sort of all operations. `steady`: the SQL
    parameters of a steady-state window (nvtx/steady.py `Steady.ops_params()`); None: every operation.
    """
    require_kernels(profile)
    create_ops_view(profile, filters or KernelFilter(), memory_ops, steady=steady)
    return query_name_times(profile, rules, busy)


def query_name_times(profile: Profile, rules: RuleSet, busy: bool) -> list[NameTime]:
    """Group the operations of the current `_breakdown_ops` view by name (through the view `_breakdown_groups`;
    `busy` groups `_breakdown_ops` itself), and classify each name once."""
    if not busy:
        body = sql_files.read("categories", "breakdown_groups").text
        profile.sql(f"CREATE OR REPLACE TEMP VIEW _breakdown_groups AS {body}")
    result = profile.run_file("categories", "breakdown_by_name_busy" if busy else "breakdown_by_name")
    rows = [dict(zip(result.columns, row)) for row in result.rows]
    matches = rules.classify_all(r["demangled"] for r in rows if not r["rule"])
    return [_name_time(r, matches) for r in rows]


_EVERY_OPERATION = {"steady_range": None, "steady_warmup": None, "steady_after_ns": None}


def create_ops_view(profile: Profile, filters: KernelFilter, memory_ops: bool, view: str = "_breakdown_ops",
                    steady: dict | None = None) -> None:
    """(Re)create the temp view `view` (a fixed identifier): the operations that pass the filters (and lie in the
    steady state, with `steady`)."""
    params = {**filters.params(), "memory_ops": memory_ops, **(steady or _EVERY_OPERATION)}
    body = sql_files.inline_params(sql_files.read("categories", "breakdown_ops").text, params)
    profile.sql(f"CREATE OR REPLACE TEMP VIEW {view} AS {body}")


def require_kernels(profile: Profile) -> None:
    if not profile.has_table("CUPTI_ACTIVITY_KIND_KERNEL"):
        raise MissingDataError(
            f"{profile.path}: has no CUDA kernels; profile with `nsys profile --trace=cuda` "
            "(on WSL2 kernel tracing may be unavailable)"
        )


def _name_time(row: dict, matches: dict) -> NameTime:
    common = {
        "device": row["device"], "instances": row["instances"], "total_ns": int(row["total_time_ns"]),
        "busy_ns": row.get("busy_time_ns"), "first_start_ns": row["first_start_ns"],
        "last_end_ns": row["last_end_ns"], "name": row["name"], "part": row["part"],
    }
    if row["rule"]:
        return NameTime(MEMORY, row["rule"], (), **common)
    match = matches[row["demangled"]]
    return NameTime(match.category, match.rule, match.tags, **common)


def with_counts(row: NameTime, instances: int, total_ns: int) -> NameTime:
    """The same name with other totals (rows merged over devices)."""
    return replace(row, instances=instances, total_ns=total_ns)
