"""Queries shared by `attention` and `report`: kernel time per name inside a range, with the range names and the
warm-up exclusion of nvtx/steady.py. Each returns plain Python values; no printing here."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...data import sql_files
from ...core.errors import MissingDataError, UsageError
from ...core.filters import closest_first
from ..nvtx.steady import Warmup, matches, range_instances, range_names, resolve_warmup
from ...data.sql_files import Relation

__all__ = ["Warmup", "matches", "range_instances", "range_names", "resolve_warmup"]  # used by report and attention

if TYPE_CHECKING:
    from ...data.profile import Profile

_TABLE_NUMBERS = itertools.count()
OP_RANGES = "_op_ranges"  # the NVTX attribution of every GPU operation (sql/views/_op_ranges.sql)
NO_NVTX_FIX = "profile with `nsys profile --trace=cuda,nvtx` and NVTX ranges in the code (e.g. `nvtx.annotate`)"
NO_KERNELS_FIX = ("profile with `nsys profile --trace=cuda,nvtx` on a machine where CUDA kernel tracing works "
                  "(not under WSL2, where nsys records no kernels)")


@dataclass(frozen=True)
class KernelTime:
    """GPU time of one kernel name."""

    name: str
    instances: int
    total_ns: int

    @property
    def avg_ns(self) -> float:
        return self.total_ns / self.instances if self.instances else 0.0


def has_nvtx(profile: Profile) -> bool:
    return profile.has_table("NVTX_EVENTS") and bool(range_names(profile))


def has_kernels(profile: Profile) -> bool:
    return profile.has_table("CUPTI_ACTIVITY_KIND_KERNEL")


def known_ranges(names: dict[str, int], near: str, limit: int = 12) -> str:
    """The profile's range names for an error message, closest to `near` first."""
    full = closest_first(near, [k for k in names if ":" in k])
    return ", ".join(full[:limit]) + (" ..." if len(full) > limit else "") if full else "none"


def no_range(where: str, names: dict[str, int], name: str, option: str, default: str, add: str) -> Exception:
    """The error for a range name that names none of the profile's ranges (`where`: the profile, for the message).
    A name the user chose is a usage error (exit 2) listing the ranges closest to it first, to pick from; a default
    name that is missing is missing data (exit 1), fixed by naming the range or by adding it (`add`: how)."""
    listed = known_ranges(names, name)
    if name != default:
        return UsageError(f"{where}no NVTX range named {name!r} (closest first: {listed}); pass one of them with "
                          f"{option}")
    return MissingDataError(f"{where}no NVTX range named {name!r} (closest first: {listed}); name yours with {option},"
                            f" or {add} and profile with `nsys profile --trace=cuda,nvtx`")


def require_nvtx(profile: Profile, what: str, names: dict[str, int] | None = None) -> dict[str, int]:
    """The range names (`names`, when the caller has them already), or MissingDataError saying how to record
    NVTX."""
    names = range_names(profile) if names is None else names
    if not names:
        raise MissingDataError(f"{profile.path}: has no NVTX ranges, which {what} needs; {NO_NVTX_FIX}")
    return names


def require_kernels(profile: Profile) -> None:
    if not has_kernels(profile):
        raise MissingDataError(f"{profile.path}: has no CUDA kernels; {NO_KERNELS_FIX}")


def kernel_times(profile: Profile, pattern: str | None, warmup: Warmup, attribution: str,
                 ops: str = OP_RANGES) -> list[KernelTime]:
    """GPU time per kernel name of the kernels launched inside ranges `pattern` names (None: every kernel), warm-up
    left out, heaviest first. `ops`: the attribution read (see attributed_ops)."""
    params = {"attribution": attribution, "range": pattern, "ops": Relation(ops), **warmup.params()}
    rows = profile.run_file("attention", "kernel_names", params).rows
    return [KernelTime(name, int(n), int(total)) for name, n, total in rows]


def attributed_ops(profile: Profile, attribution: str, patterns: list[str]) -> str:
    """A temp table of the _op_ranges rows of `attribution` in the ranges any of `patterns` names (text, full name
    or a glob over either), with the columns the range queries read (kernel_names, attention_pieces,
    range_gpu_times): the attribution computed once for queries that would each compute it again. Returns its name,
    their `ops`."""
    table = f"_attributed_ops_{next(_TABLE_NUMBERS)}"
    params = {"attribution": attribution, "table": Relation(table), "patterns": list(patterns)}
    profile.sql(sql_files.inline_params(sql_files.read("attention", "attributed_ops").text, params))
    return table


def gpu_names(profile: Profile) -> list[str]:
    """The product names of the GPUs that ran kernels (devices view), for the ridge point."""
    return [name for (name,) in profile.run_file("attention", "gpu_names").rows]
