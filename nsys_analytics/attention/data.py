"""Queries shared by `attention` and `report`: the profile's range names, warm-up exclusion, and kernel time per
name inside a range. Each returns plain Python values; no printing here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import MissingDataError, UsageError
from ..filters import closest_first

if TYPE_CHECKING:
    from ..profile import Profile

NO_NVTX_FIX = "profile with `nsys profile --trace=cuda,nvtx` and NVTX ranges in the code (e.g. `nvtx.annotate`)"
NO_KERNELS_FIX = ("profile with `nsys profile --trace=cuda,nvtx` on a machine where CUDA kernel tracing works "
                  "(not under WSL2, where nsys records no kernels)")


@dataclass(frozen=True)
class Warmup:
    """What counts as warm-up in one profile: instances of `range`, and everything before `after_ns`."""

    range: str | None
    after_ns: int | None
    text: str  # one sentence for the report

    def params(self) -> dict:
        return {"warmup": self.range, "after_ns": self.after_ns}


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


def range_names(profile: Profile) -> dict[str, int]:
    """{range text or full name: instances} (both spellings, ':forward' and 'forward', are keys)."""
    if not profile.has_table("NVTX_EVENTS"):
        return {}
    out: dict[str, int] = {}
    for name, text, n in profile.run_file("attention", "range_names").rows:
        for key in {name, text}:
            out[key] = out.get(key, 0) + n
    return out


def matches(names: dict[str, int], pattern: str) -> int:
    """Instances of the ranges `pattern` names (exact text or full name, or a glob over either)."""
    from fnmatch import fnmatchcase

    if pattern in names:
        return names[pattern]
    hits = {k: n for k, n in names.items() if fnmatchcase(k, pattern) and not k.startswith(":")}
    return sum(hits.values())


def known_ranges(names: dict[str, int], near: str, limit: int = 12) -> str:
    """The profile's range names for an error message, closest to `near` first."""
    full = closest_first(near, [k for k in names if ":" in k])
    return ", ".join(full[:limit]) + (" ..." if len(full) > limit else "") if full else "none"


def require_nvtx(profile: Profile, what: str) -> dict[str, int]:
    """The range names, or MissingDataError saying how to record NVTX."""
    names = range_names(profile)
    if not names:
        raise MissingDataError(f"{profile.path}: has no NVTX ranges, which {what} needs; {NO_NVTX_FIX}")
    return names


def require_kernels(profile: Profile) -> None:
    if not has_kernels(profile):
        raise MissingDataError(f"{profile.path}: has no CUDA kernels; {NO_KERNELS_FIX}")


def resolve_warmup(profile: Profile, names: dict[str, int], warmup_range: str | None, warmup_steps: int,
                   step_range: str) -> Warmup:
    """Warm-up = the instances of `warmup_range` (when the profile has it) and, with `warmup_steps` N > 0,
    everything that starts before the (N+1)-th instance of `step_range`."""
    present = warmup_range if warmup_range and matches(names, warmup_range) else None
    after_ns = _step_cutoff(profile, step_range, warmup_steps) if warmup_steps else None
    parts = []
    if present:
        parts.append(f"work inside the range {present!r} ({matches(names, present)} instance(s)) is excluded")
    elif warmup_range:
        parts.append(f"no range named {warmup_range!r}, so no warm-up range is excluded (--warmup-steps N drops "
                     "the first N steps)")
    if after_ns is not None:
        parts.append(f"the first {warmup_steps} {step_range!r} step(s) are excluded (everything before "
                     f"{after_ns} ns)")
    text = "Warm-up: " + ("; ".join(parts) if parts else "none excluded") + "."
    return Warmup(present, after_ns, text)


def _step_cutoff(profile: Profile, step_range: str, steps: int) -> int:
    rows = profile.run_file("attention", "range_instances",
                            {"range": step_range, "warmup": None, "after_ns": None}).rows
    if len(rows) <= steps:
        raise UsageError(f"--warmup-steps {steps}: the profile has only {len(rows)} {step_range!r} range(s)")
    return rows[steps][2]


def range_instances(profile: Profile, pattern: str, warmup: Warmup) -> list[tuple[int, str, int, int, bool]]:
    """(range_id, name, start_ns, duration_ns, in_warmup) of each instance of the ranges `pattern` names."""
    params = {"range": pattern, **warmup.params()}
    return profile.run_file("attention", "range_instances", params).rows


def kernel_times(profile: Profile, pattern: str | None, warmup: Warmup, mode: str) -> list[KernelTime]:
    """GPU time per kernel name of the kernels launched inside ranges `pattern` names (None: every kernel), warm-up
    left out, heaviest first."""
    params = {"mode": mode, "range": pattern, **warmup.params()}
    rows = profile.run_file("attention", "kernel_names", params).rows
    return [KernelTime(name, int(n), int(total)) for name, n, total in rows]
