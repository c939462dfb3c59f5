"""Catalog answers as `Result` tables and the CI gate's decision (no I/O): run lists, one run, metric series."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.result import Result
from .gate import GateDecision

if TYPE_CHECKING:
    from ..diff.report import DiffReport

LIST_HEADERS = {
    "id": "ID", "added_at": "Added (UTC)", "label": "Label", "ranks": "Ranks", "kernels": "Kernels",
    "kernel_ms": "Kernel Time (ms)", "step_range": "Step Range", "step_avg_ms": "Step Avg (ms)",
    "tags": "Tags", "hash": "Hash",
}
METRICS = ("step_time", "kernel_time", "kernel", "category", "range")


def runs_result(rows: list[dict[str, Any]]) -> Result:
    out = [(r["id"], _when(r["added_at"]), r["label"], r["ranks"], r["kernels"], _ms(r["kernel_ns"]),
            r["step_range"], _ms(r["step_avg_ns"]), _tags(r["tags"]), r["content_hash"][:12]) for r in rows]
    return Result(list(LIST_HEADERS), out, headers=list(LIST_HEADERS.values()))


def run_result(details: dict[str, Any]) -> Result:
    """One run as a two-column table: field, value."""
    run = details["run"]
    rows = [("id", run["id"]), ("label", run["label"]), ("added (UTC)", _when(run["added_at"])),
            ("content hash", run["content_hash"]), ("tags", _tags(details["tags"])), ("ranks", run["ranks"]),
            ("nsys version", run["nsys_version"]), ("capture (ms)", _ms(run["capture_ns"])),
            ("kernels", run["kernels"]), ("kernel time (ms)", _ms(run["kernel_ns"])),
            ("step range", run["step_range"]), ("step instances", run["step_instances"]),
            ("step avg (ms)", _ms(run["step_avg_ns"])), ("step median (ms)", _ms(run["step_med_ns"])),
            ("NVTX attribution (whole capture)", run["attribution"] or "none (the steady state has diff's)"),
            ("diagnose findings", len(details["findings"]) if run["diagnosed"] else "not stored")]
    rows += [(f"profile rank {p['rank']}", f"{p['path']} ({p['file_hash'][:12]}, {p['gpus'] or 'GPU unknown'})")
             for p in details["profiles"]]
    return Result(["field", "value"], rows, headers=["Field", "Value"])


def findings_result(details: dict[str, Any]) -> Result:
    rows = [(f["rank"], f["severity"], f["rule"], _ms(f["at_stake_ns"]), f["summary"]) for f in details["findings"]]
    return Result(["rank", "severity", "rule", "at_stake_ms", "summary"], rows,
                  headers=["Rank", "Severity", "Rule", "At stake (ms)", "Finding"])


def trend_result(runs: list[dict[str, Any]], series: dict[int, tuple], metric: str) -> Result:
    """One row per run (oldest first) with the metric's value in ms and its change against the previous run."""
    rows, previous = [], None
    for r in sorted(runs, key=lambda r: r["id"]):
        if r["id"] not in series:
            continue
        value, instances = series[r["id"]]
        change = 100.0 * (value - previous) / previous if previous else None
        rows.append((r["id"], _when(r["added_at"]), r["label"], _tags(r["tags"]), value / 1e6, instances, change))
        previous = value
    return Result(["id", "added_at", "label", "tags", "value_ms", "instances", "change_pct"], rows,
                  headers=["ID", "Added (UTC)", "Label", "Tags", f"{metric} (ms)", "Instances", "Change (%)"],
                  notes=[_METRIC_NOTES.get(metric.split(":", 1)[0], "")])


_METRIC_NOTES = {
    "step_time": "step_time: mean duration of the step-like NVTX range family's instances (step_*, iter...).",
    "kernel_time": "kernel_time: summed GPU time of all kernels.",
    "kernel": "kernel:NAME: summed GPU time of the kernels of that demangled or short name.",
    "category": "category:NAME: summed GPU time of the kernels of that category.",
    "range": "range:NAME: mean duration of the instances of that NVTX range (name, :text or family step_*).",
}


def gate(report: DiffReport, max_regression_pct: float, base_id: int | None, new_name: str) -> GateDecision:
    """A regression is a headline change above `max_regression_pct` that is also beyond noise. When the noise test
    cannot tell (total kernel time: one value per side; too few step instances) the threshold alone decides."""
    h = report.headline
    change = h["change_pct"] or 0.0
    beyond = h["beyond_noise"]
    failed = change > max_regression_pct and beyond is not False
    why = (f"regression {change:+.1f} % > {max_regression_pct:g} %" if failed else
           f"{change:+.1f} % within the {max_regression_pct:g} % budget" if change <= max_regression_pct else
           f"{change:+.1f} % over {max_regression_pct:g} % but within noise")
    if not failed and (kernel := _kernel_regression(h, max_regression_pct)):
        why += f"; {kernel}"
    base = f"run {base_id}" if base_id is not None else "baseline"
    what = (f"Step time ({h['range']}, mean of {h['base_instances']} vs {h['new_instances']}) "
            if h.get("metric") == "step" else "Kernel time ")
    noise = (f"p = {h['p_value']:.2g}, {'beyond' if beyond else 'within'} run-to-run noise" if beyond is not None
             else f"{_runs_words(h.get('runs'))}: the threshold decides")
    figures = f"{what}{h['base_ns'] / 1e6:.3f} ms -> {h['new_ns'] / 1e6:.3f} ms ({change:+.1f} %, {noise})"
    story = report.verdict
    step = h.get("step") or {}
    if failed and beyond is None and h.get("moved") == "none" and step.get("min_effect_pct") is not None:
        # diff's verdict says no change beyond noise: say that the threshold failed it, not the noise test
        story = (f"Failed on the threshold alone: with {_runs_words(h.get('runs'))}, diff calls a step time change "
                 f"beyond run-to-run noise only from {step['min_effect_pct']:g} % (from the spread of identical "
                 "runs), so it calls this one within noise; more runs per side (`runs diff A1 A2 --vs B1 B2`) would "
                 "tell.")
    return GateDecision(failed, f"{'FAIL' if failed else 'PASS'} ({why}; {new_name} vs {base}): {figures}. "
                                f"{story}")


def _runs_words(runs) -> str:
    """'one run per side', or '2 vs 1 runs' where a side has more runs but too few for the noise test."""
    return "one run per side" if not runs or list(runs) == [1, 1] else f"{runs[0]} vs {runs[1]} runs"


def _kernel_regression(headline: dict, max_regression_pct: float) -> str | None:
    """Where the step time passes but diff finds the GPU kernel time per step grown beyond noise and over the budget
    (a CPU-bound step hides a GPU regression in its noise): the words that say so, else None."""
    kernel = headline.get("kernel") or {}
    change = kernel.get("change_pct")
    if headline.get("metric") != "step" or not kernel.get("beyond_noise") or change is None \
            or change <= max_regression_pct:
        return None
    if headline.get("kernel_scope") == "compute":  # the gate's stored kernel time counts NCCL's waits too
        return (f"but GPU compute kernel time per step (NCCL's left out) {change:+.1f} % beyond run-to-run noise, "
                "over the budget: `runs diff` shows where")
    return (f"but GPU kernel time per step {change:+.1f} % beyond run-to-run noise, over the budget: "
            "`--metric kernels` gates on it")


def parse_metric(text: str) -> tuple[str, str | None]:
    kind, _, name = text.partition(":")
    if kind not in METRICS or (kind in ("kernel", "category", "range")) != bool(name):
        from ...core.errors import UsageError

        raise UsageError(f"--metric {text!r}: use step_time, kernel_time, kernel:NAME, category:NAME or range:NAME")
    return kind, name or None


def _ms(ns) -> float | None:
    return None if ns is None else ns / 1e6


def _when(value) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if hasattr(value, "strftime") else str(value)


def _tags(tags: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(tags.items()))
