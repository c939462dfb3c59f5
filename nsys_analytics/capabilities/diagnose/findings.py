"""`Finding`: one diagnosed problem, with its severity, evidence, time windows, NVTX ranges and a one-line fix."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

SEVERITIES = ("info", "warning", "error")
_has_ranges: WeakKeyDictionary = WeakKeyDictionary()  # profile -> whether it has NVTX ranges
_pytorch: WeakKeyDictionary = WeakKeyDictionary()  # profile -> whether it shows PyTorch


@dataclass
class Finding:
    rule: str
    severity: str  # one of SEVERITIES
    summary: str  # one line: what happens, with the main figure
    fix: str  # one line: what to do
    at_stake_ns: int  # GPU time the problem costs or puts at risk; findings are ordered by it
    windows: list[tuple[int, int]] = field(default_factory=list)  # [(start_ns, end_ns)] where it is worst
    figures: dict[str, Any] = field(default_factory=dict)  # the numbers behind the finding
    pid: int | None = None
    device: int | None = None
    ranges: list[str] = field(default_factory=list)  # NVTX ranges overlapping the windows, outermost first

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["windows"] = [{"start_ns": s, "end_ns": e} for s, e in self.windows]
        return d


def rank(severity: str) -> int:
    return SEVERITIES.index(severity)


def ms(ns: float) -> str:
    return f"{ns / 1e6:,.1f} ms"


def pct(part: float, whole: float) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


def cpu_advice(profile) -> str:
    """Where to look for what the CPU did: the NVTX ranges each finding lists, or how to get some (asked once per
    profile: several findings give the advice)."""
    if profile not in _has_ranges:
        _has_ranges[profile] = profile.has_table("NVTX_EVENTS") and bool(
            profile.sql("SELECT EXISTS (SELECT 1 FROM _nvtx_ranges)").rows[0][0])
    if _has_ranges[profile]:
        return ("the NVTX ranges listed show what the CPU ran then; CPU sampling (`nsys profile --sample=cpu`) "
                "shows more")
    return "add NVTX ranges around the phases of your loop, or sample the CPU (`nsys profile --sample=cpu`)"


def uses_pytorch(profile) -> bool:
    """Whether the profile shows PyTorch (sql/diagnose/framework.sql: ATen kernel names, libtorch, autograd
    threads): its advice (pin_memory, torch.compile) is given only then."""
    if profile not in _pytorch:
        _pytorch[profile] = bool(profile.run_file("diagnose", "framework").rows[0][0])
    return _pytorch[profile]
