"""The steady state of a profile: its step ranges once the warm-up is over. The default window of `breakdown`,
`report` and `diagnose`, defined here once so that the three agree.

A training or inference loop starts with work that a measurement should leave out: CUDA context creation, weight
uploads, cuDNN/cuBLAS autotuning, the first iterations. When the profile has NVTX ranges that mark steps (default
`step_*`, the name or a glob), the steady state is the step instances that are not warm-up: not inside the warm-up
range (default `warmup`) and, with `warmup_steps` N, not among the first N steps. Reports then keep the GPU work
launched inside those instances (`ops_params`) or, for time-based rules, the span from the first kept instance's
start to the last one's end (`from_ns`, `to_ns`). Without step ranges, the steady state is the whole capture.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from ...core.errors import UsageError

if TYPE_CHECKING:
    from ...data.profile import Profile

STEP_RANGE = "step_*"
WARMUP_RANGE = "warmup"
WINDOWS = ("steady", "all")


@dataclass(frozen=True)
class Warmup:
    """What counts as warm-up in one profile: instances of `range`, and everything before `after_ns`."""

    range: str | None
    after_ns: int | None
    text: str  # one sentence for the report

    def params(self) -> dict:
        return {"warmup": self.range, "after_ns": self.after_ns}


_NONE = Warmup(None, None, "")


@dataclass(frozen=True)
class Steady:
    """The window a report covers: the steady-state step instances, or (step_range None) the whole capture."""

    step_range: str | None
    warmup: Warmup
    instances: int = 0      # step instances kept
    excluded: int = 0       # step instances left out as warm-up
    from_ns: int | None = None  # first kept instance's start
    to_ns: int | None = None    # last kept instance's end
    text: str = "the whole capture"  # says which window, for the line every report prints

    @property
    def kind(self) -> str:
        return "steady" if self.step_range else "all"

    def ops_params(self) -> dict:
        """SQL parameters of the operations launched inside the kept instances (sql/macros/steady_ops.sql)."""
        return {"steady_range": self.step_range, "steady_warmup": self.warmup.range,
                "steady_after_ns": self.warmup.after_ns}

    def to_dict(self) -> dict:
        return {"kind": self.kind, "step_range": self.step_range, "warmup_range": self.warmup.range,
                "instances": self.instances, "excluded": self.excluded, "from_ns": self.from_ns,
                "to_ns": self.to_ns, "text": self.text}


def steady_state(profile: Profile, window: str = "steady", step_range: str = STEP_RANGE,
                 warmup_range: str | None = WARMUP_RANGE, warmup_steps: int = 0,
                 names: dict[str, int] | None = None) -> Steady:
    """The steady state of `profile` (window 'steady'), or the whole capture (window 'all', or no step range).
    `names`: range_names(profile) when the caller has it already."""
    if window not in WINDOWS:
        raise UsageError(f"window {window!r}: choose one of {', '.join(WINDOWS)}")
    if window == "all":
        return Steady(None, _NONE, text="the whole capture (--window all)")
    names = range_names(profile) if names is None else names
    if not names:
        return Steady(None, _NONE, text="the whole capture: the profile has no NVTX ranges to find steps in")
    if not matches(names, step_range):
        return Steady(None, _NONE, text=f"the whole capture: no {step_range!r} range marks steps "
                                        "(--step-range names yours)")
    warmup = resolve_warmup(profile, names, warmup_range, warmup_steps, step_range)
    instances = range_instances(profile, step_range, warmup)
    kept = [(start, start + duration) for _, _, start, duration, warm in instances if not warm]
    if not kept:
        return Steady(None, _NONE, text=f"the whole capture: every {step_range!r} range is warm-up")
    excluded = len(instances) - len(kept)
    start, end = min(s for s, _ in kept), max(e for _, e in kept)
    return Steady(step_range, warmup, len(kept), excluded, start, end,
                  f"the steady state: {len(kept)} {step_range!r} range(s), {_warmup_words(warmup, excluded)}, "
                  f"{start / 1e9:.3f}-{end / 1e9:.3f} s (--window all: the whole capture)")


def range_names(profile: Profile) -> dict[str, int]:
    """{range text or full name: instances} (both spellings, ':forward' and 'forward', are keys)."""
    if not profile.has_table("NVTX_EVENTS"):
        return {}
    out: dict[str, int] = {}
    for name, text, n in profile.run_file("nvtx", "range_names").rows:
        for key in {name, text}:
            out[key] = out.get(key, 0) + n
    return out


def matches(names: dict[str, int], pattern: str) -> int:
    """Instances of the ranges `pattern` names (exact text or full name, or a glob over either)."""
    if pattern in names:
        return names[pattern]
    hits = {k: n for k, n in names.items() if fnmatchcase(k, pattern) and not k.startswith(":")}
    return sum(hits.values())


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
    rows = profile.run_file("nvtx", "range_instances",
                            {"range": step_range, "warmup": None, "after_ns": None}).rows
    if len(rows) <= steps:
        raise UsageError(f"--warmup-steps {steps}: the profile has only {len(rows)} {step_range!r} range(s)")
    return step_cutoff([r[2] for r in rows], steps)


def step_cutoff(starts: list[int], steps: int) -> int:
    """Warm-up by count: everything that starts before the (steps+1)-th step (starts in time order) is warm-up."""
    return sorted(starts)[steps]


def step_glob(names: list[str]) -> str:
    """The glob naming a set of step ranges: their common prefix less its digits, then '*' ('step_0' .. 'step_9'
    -> 'step_*', 'train:iter3' .. -> 'train:iter*'); the one name where there is no common prefix."""
    import os.path

    prefix = os.path.commonprefix(sorted(names)).rstrip("0123456789")
    return f"{prefix}*" if prefix else sorted(names)[0]


def warm_flags(profile: Profile | None, starts: list[int], warmup_steps: int, step_names: list[str] | None = None,
               warmup_range: str | None = WARMUP_RANGE, unless_marked: bool = False) -> list[bool]:
    """For each step (its start, in time order; its range name where the steps are NVTX ranges): is it warm-up?
    By this module's one rule: inside the warm-up range (when the profile has it), or among the first
    `warmup_steps` steps; `unless_marked`: those only where the profile has no warm-up range. Steps that are no
    NVTX ranges (detected ones) are inside the warm-up range when they start in one."""
    after = step_cutoff(starts, warmup_steps) if 0 < warmup_steps < len(starts) else None
    flags = [after is not None and start < after for start in starts]
    if profile is None or not profile.has_table("NVTX_EVENTS"):
        return flags
    names = range_names(profile)
    present = warmup_range if warmup_range and matches(names, warmup_range) else None
    if present and unless_marked:  # the job marks its warm-up: its first steps are measured ones
        after, flags = None, [False] * len(starts)
    if step_names:
        warmup = Warmup(present, after, "")
        warm = {start for _id, _n, start, _d, is_warm in range_instances(profile, step_glob(step_names), warmup)
                if is_warm}
        return [f or start in warm for f, start in zip(flags, starts)]
    if present:  # a warm-up range holds few instances (usually one)
        spans = [(s, s + d) for _id, _n, s, d, _w in range_instances(profile, present, _NONE)]
        flags = [f or any(a <= start < b for a, b in spans) for f, start in zip(flags, starts)]
    return flags


def range_instances(profile: Profile, pattern: str, warmup: Warmup) -> list[tuple[int, str, int, int, bool]]:
    """(range_id, name, start_ns, duration_ns, in_warmup) of each instance of the ranges `pattern` names."""
    params = {"range": pattern, **warmup.params()}
    return profile.run_file("nvtx", "range_instances", params).rows


def _warmup_words(warmup: Warmup, excluded: int) -> str:
    parts = []
    if warmup.range:
        parts.append(f"work inside {warmup.range!r}")
    if excluded:
        parts.append(f"{excluded} step(s)")
    return "warm-up excluded (" + " and ".join(parts) + ")" if parts else "no warm-up found to exclude"
