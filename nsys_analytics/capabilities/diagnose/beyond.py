"""Rules beyond nsys: launch-bound, starved GPU, copy bottleneck, GPU utilization over time.

Each rule reads the per-chunk figures its SQL file (sql/diagnose/<rule>.sql) returns for every
process/device, sums them, and reports a `Finding` when a documented threshold is crossed (see
docs/diagnose.md). The windows are the chunks where the problem weighs most.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .data import Window
from .findings import Finding, cpu_advice, ms, pct, uses_pytorch
from .launch_wait import launch_wait
from .starved import starved_rows

if TYPE_CHECKING:
    from ...data.profile import Profile


@dataclass(frozen=True)
class Thresholds:
    """Where the beyond-nsys rules fire (warning; the `error` level is in each rule's docstring)."""

    chunks: int = 30  # time grid: chunks per process/device GPU span
    short_kernel_us: float = 10.0  # launch_bound: a kernel shorter than this is short
    short_share_pct: float = 30.0  # launch_bound: share of kernels that are short AND shorter than their launch
    min_kernels: int = 100  # launch_bound: fewer kernels than this never fire
    # launch_bound: a launch call longer than this is no launch overhead (a first launch loading its module, a full
    # launch queue) and counts neither as a kernel shorter than its launch nor in the time at stake
    long_launch_us: float = 100.0
    # launch_bound: a wait for the launches below this share of the GPU span is no problem (info): the kernels were
    # queued while the GPU ran earlier work
    launch_wait_pct: float = 1.0
    min_gap_us: float = 20.0  # gpu_starved: shortest idle gap considered
    starved_pct: float = 10.0  # gpu_starved: share of the GPU span idle with no launch issued
    exposed_copy_pct: float = 10.0  # copy_bottleneck: share of the span in copies no kernel overlaps
    pageable_pct: float = 5.0  # copy_bottleneck: share of the span in pageable host copies
    utilization_pct: float = 50.0  # gpu_utilization: busy union below this share of the span


Rows = list[dict]


def _by_device(rows: Rows) -> dict[tuple[int, int], Rows]:
    groups: dict[tuple[int, int], Rows] = defaultdict(list)
    for r in rows:
        groups[(r["pid"], r["device"])].append(r)
    return dict(groups)


def _worst(rows: Rows, key: Callable[[dict], float], n: int = 3) -> list[tuple[int, int]]:
    """The `n` chunks where `key` is largest (and positive), in time order."""
    top = sorted((r for r in rows if key(r) > 0), key=key, reverse=True)[:n]
    return sorted((r["chunk_start_ns"], r["chunk_end_ns"]) for r in top)


def _span_ns(profile: Profile, chunks: int) -> dict[tuple[int, int], int]:
    rows = profile.sql(f"SELECT pid, device, sum(chunk_end_ns - chunk_start_ns) FROM _diag.chunks({chunks}) "
                       "GROUP BY pid, device").rows
    return {(p, d): s for p, d, s in rows}


def launch_bound(profile: Profile, window: Window, t: Thresholds) -> list[Finding]:
    """Many kernels shorter than `short_kernel_us` that also ran shorter than their launch call.

    Fires when such kernels are >= short_share_pct of the kernels (error at twice that), as info only where the GPU
    waits for them less than launch_wait_pct of its span (they were queued behind earlier work).
    At stake: the GPU's idle time before them, in gaps shorter than gpu_starved's min_gap_us, beyond the spacing it
    leaves between queued kernels (launch_wait.py; diag_faults' launch-bound loop: 183.1 ms, against 195.5 ms waited
    by the workload's CUDA events and 172.6 ms of launch calls beyond their kernels' run time;
    tests/test_diagnose_truth.py).
    """
    params = {**window.params(), "short_ns": round(t.short_kernel_us * 1000), "chunks": t.chunks,
              "long_launch_ns": round(t.long_launch_us * 1000)}
    rows = profile.run_file("diagnose", "launch_bound", params).to_records()
    findings = []
    for (pid, device), group in _by_device(rows).items():
        total = {k: sum(r[k] for r in group) for k in ("kernels", "kernel_ns", "short_kernels", "short_kernel_ns",
                                                        "launched", "shorter_than_launch", "launch_excess_ns",
                                                        "long_launches")}
        share = pct(min(total["short_kernels"], total["shorter_than_launch"]), total["kernels"])
        if total["kernels"] < t.min_kernels or share < t.short_share_pct:
            continue
        # the gaps from gpu_starved's minimum on are the host doing something else: that rule's
        wait = launch_wait(profile, window, pid, device, params["short_ns"], params["long_launch_ns"],
                           round(t.min_gap_us * 1000), t.chunks)
        total |= {"gpu_wait_ns": wait.wait_ns, "queued_spacing_ns": wait.spacing_ns}
        waits = pct(wait.wait_ns, wait.span_ns) >= t.launch_wait_pct
        severity = ("error" if share >= 2 * t.short_share_pct else "warning") if waits else "info"
        findings.append(Finding(
            "launch_bound", severity,
            f"{total['short_kernels']:,} of {total['kernels']:,} kernels run < {t.short_kernel_us:g} us "
            f"({pct(total['short_kernel_ns'], total['kernel_ns'])}% of kernel time); "
            f"{total['shorter_than_launch']:,} ran shorter than their launch call"
            + (f" ({total['long_launches']:,} launch calls over {t.long_launch_us:g} us left out: module loading or "
               "a full launch queue, not launch overhead)" if total["long_launches"] else "")
            + f"; the GPU sits idle {ms(wait.wait_ns)} before them"
            + (f" beyond the {wait.spacing_ns / 1000:,.1f} us it leaves between queued kernels" if wait.queued else "")
            + f" (their launch calls outlast them by {ms(total['launch_excess_ns'])})"
            + ("" if waits else "; they were queued while the GPU ran earlier work, so it barely waits for them"),
            "Cut launches: capture the loop in a CUDA graph or fuse small kernels"
            + (" (torch.compile, or torch.cuda.graphs)." if uses_pytorch(profile) else "."),
            wait.wait_ns, wait.worst or _worst(group, lambda r: r["launch_excess_ns"]),
            {**total, "short_kernel_time_pct": pct(total["short_kernel_ns"], total["kernel_ns"])}, pid, device,
        ))
    return findings


def gpu_starved(profile: Profile, window: Window, t: Thresholds) -> list[Finding]:
    """Idle gaps >= min_gap_us whose next GPU operation was issued (CUDA call start) only once the GPU was idle.

    Fires when those gaps add up to >= starved_pct of the GPU span (error at three times that).
    At stake: the starved idle time.
    """
    rows = starved_rows(profile, round(t.min_gap_us * 1000))
    spans = _span_ns(profile, t.chunks)
    findings = []
    for r in rows:
        pid, device, starved, pending = r["pid"], r["device"], int(r["starved_ns"]), int(r["pending_ns"])
        share = pct(starved, spans.get((pid, device), 0))
        if share < t.starved_pct:
            continue
        findings.append(Finding(
            "gpu_starved", "error" if share >= 3 * t.starved_pct else "warning",
            f"GPU idle {ms(starved)} ({share}% of its span) in {r['starved_gaps']:,} gaps before the next launch was "
            f"even issued (CPU-bound); {ms(pending)} more idle with a launch pending",
            "Feed the GPU sooner: move CPU work off the launch thread (data loading, Python overhead), "
            "or batch more work per launch.",
            starved, sorted((int(s), int(e)) for s, e in r["worst"] or []),
            {"starved_ns": starved, "starved_gaps": r["starved_gaps"], "pending_ns": pending,
             "starved_pct_of_span": share}, pid, device,
        ))
    return findings


def copy_bottleneck(profile: Profile, window: Window, t: Thresholds) -> list[Finding]:
    """Host<->device copies that no kernel overlaps, or copies from/to pageable memory.

    Fires when un-overlapped copy time >= exposed_copy_pct of the GPU span or pageable copy time >=
    pageable_pct (error when un-overlapped copies reach three times exposed_copy_pct).
    At stake: the un-overlapped copy time.
    """
    rows = profile.run_file("diagnose", "copy_bottleneck", {**window.params(), "chunks": t.chunks}).to_records()
    spans = _span_ns(profile, t.chunks)
    findings = []
    for (pid, device), group in _by_device(rows).items():
        total = {k: int(sum(r[k] for r in group))
                 for k in ("copies", "copy_ns", "bytes", "pageable_ns", "pinned_ns", "overlap_ns")}
        span = spans.get((pid, device), 0)
        exposed = total["copy_ns"] - total["overlap_ns"]
        exposed_pct, pageable_pct = pct(exposed, span), pct(total["pageable_ns"], span)
        if exposed_pct < t.exposed_copy_pct and pageable_pct < t.pageable_pct:
            continue
        findings.append(Finding(
            "copy_bottleneck", "error" if exposed_pct >= 3 * t.exposed_copy_pct else "warning",
            f"host<->device copies take {ms(total['copy_ns'])} ({pct(total['copy_ns'], span)}% of the GPU span), "
            f"{ms(exposed)} with no kernel running; {ms(total['pageable_ns'])} from/to pageable memory",
            "Use pinned host memory" + (" (pin_memory=True, .to(device, non_blocking=True))" if uses_pytorch(profile)
                                        else " (cudaHostAlloc or cudaHostRegister)")
            + " and cudaMemcpyAsync on a side stream so copies overlap compute.",
            exposed, _worst(group, lambda r: r["copy_ns"] - r["overlap_ns"]),
            {**total, "exposed_ns": exposed, "exposed_pct_of_span": exposed_pct,
             "pageable_pct_of_span": pageable_pct}, pid, device,
        ))
    return findings


def gpu_utilization(profile: Profile, window: Window, t: Thresholds) -> list[Finding]:
    """Busy union across streams over the GPU span, per chunk.

    Fires when the span is busy < utilization_pct of the time (error below half of that).
    At stake: the idle time. Windows: the least busy chunks.
    """
    rows = profile.run_file("diagnose", "gpu_utilization", {"chunks": t.chunks}).to_records()
    findings = []
    for (pid, device), group in _by_device(rows).items():
        span = sum(r["chunk_end_ns"] - r["chunk_start_ns"] for r in group)
        busy = sum(r["busy_ns"] for r in group)
        share = pct(busy, span)
        if share >= t.utilization_pct:
            continue
        per_chunk = [pct(r["busy_ns"], r["chunk_end_ns"] - r["chunk_start_ns"]) for r in group]
        findings.append(Finding(
            "gpu_utilization", "error" if share < t.utilization_pct / 2 else "warning",
            f"GPU busy {share}% of its {ms(span)} span (busy union across streams); "
            f"{sum(p < t.utilization_pct for p in per_chunk)} of {len(group)} chunks below {t.utilization_pct:g}%",
            f"See gpu_starved, launch_bound and copy_bottleneck for why; {cpu_advice(profile)}.",
            int(span - busy), _worst(group, lambda r: (r["chunk_end_ns"] - r["chunk_start_ns"]) - r["busy_ns"]),
            {"span_ns": span, "busy_ns": busy, "utilization_pct": share, "chunk_utilization_pct": per_chunk},
            pid, device,
        ))
    return findings


BEYOND_RULES: dict[str, Callable[[Profile, Window, Thresholds], list[Finding]]] = {
    "launch_bound": launch_bound,
    "gpu_starved": gpu_starved,
    "copy_bottleneck": copy_bottleneck,
    "gpu_utilization": gpu_utilization,
}
