"""What a synchronization call costs the GPU: not the time the CPU was blocked (the GPU is busy then, finishing the
work it was given) but the time the GPU sits idle from the call's start to the first GPU operation after it returned,
at most the call's duration (sql/diagnose/sync_idle.sql). cuda_api_sync's finding is ranked by that idle time, and
is a warning only when it is at least IDLE_WARNING_PCT of the GPU span: a timed loop that synchronizes once per step
while the GPU is busy costs the GPU a few microseconds a step, and is then information, not the top warning."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .findings import Finding, ms, pct

if TYPE_CHECKING:
    from ...data.profile import Profile

IDLE_WARNING_PCT = 5.0


def sync_idle(profile: Profile, finding: Finding) -> None:
    """Charge `finding` (cuda_api_sync's) with the GPU idle time its calls cause: time at stake, worst windows,
    severity and a clause of its summary. The calls and the span are those of the finding's process."""
    row = profile.run_file("diagnose", "sync_idle", {"pid": finding.pid}).to_records()[0]
    idle, span = int(row["idle_ns"]), int(row["span_ns"])
    share = pct(idle, span)
    finding.at_stake_ns = idle
    finding.severity = "warning" if share >= IDLE_WARNING_PCT else "info"
    if row["worst"]:
        finding.windows = sorted((int(s), int(e)) for s, e in row["worst"])
    finding.summary += f"; GPU idle because of them: {ms(idle)} ({share}% of its span)"
    finding.figures.update({"blocked_ns": finding.figures["total_ns"], "gpu_idle_ns": idle, "span_ns": span,
                            "gpu_idle_pct_of_span": share, "idle_calls": row["idle_calls"]})
