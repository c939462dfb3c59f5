"""`RanksReport` -> the tables and lines the `ranks` command shows. No I/O."""

from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd

from ...core.result import Result
from .paths import prefixes

MS = 1e6
TABLES = ("summary", "steps", "phases", "collectives", "findings")


def tables(report, names=TABLES) -> dict[str, Result]:
    """The tables `names` (only those are built: the collectives table has a row per NCCL kernel and rank,
    hundreds of thousands at 64 ranks)."""
    build = {
        "summary": lambda: _ms_table(report.summary, ["rank", "steps", "step_ns", "gpu_busy_ns", "compute_ns",
                                                      "comm_ns", "overlap_ns", "wait_ns"]),
        "steps": lambda: _ms_table(report.steps, ["rank", "step", "name", "step_ns", "gpu_busy_ns", "compute_ns",
                                                  "comm_ns", "overlap_ns", "wait_ns"]),
        "phases": lambda: _phase_table(report),
        "collectives": lambda: replace(
            _ms_table(report.collectives, ["rank", "op", "ordinal", "start_ns", "duration_ns", "wait_ns", "last_rank",
                                           "name"], keep_ns=("start_ns",)),
            key_columns=("rank", "op", "wait_ms", "last_rank", "ordinal", "duration_ms")),  # who waited for whom
        "findings": lambda: findings_table(report.findings),
    }
    return {name: build[name]() for name in names}


FINDING_COLUMNS = ["severity", "message", "kind", "rank", "phase", "source", "excess_ms_per_step",
                   "caused_wait_ms_per_step", "waits_ms_per_step", "kernel", "more_kernels_per_step",
                   "kernel_excess_ms_per_step", "fix"]


def findings_table(findings: list[dict]) -> Result:
    """The findings with their figures, so that a script need not read the sentences: `kind` (straggler,
    no_straggler, missing_rank, not_one_job, waits_unmeasured, no_analysis), the straggler's `rank` and the range
    (`phase`) and time (`source`: GPU or CPU) that explain its excess, ms per step, the `kernel` that holds most of a
    GPU excess (`more_kernels_per_step` than the other ranks run, 0 where it runs as often but for longer; its
    `kernel_excess_ms_per_step`), and the `fix`. `waits_ms_per_step`, each waiting rank's wait, is JSON text
    (`{"0": 30.1}`): CSV holds one value a cell."""
    def ms(v):
        return None if v is None else round(float(v) / MS, 3)

    rows = []
    for f in findings:
        waits = f.get("waits_ns_per_step")
        rows.append((f["severity"], f["message"], f.get("kind"), f.get("rank"), f.get("phase"), f.get("source"),
                     ms(f.get("excess_ns_per_step")), ms(f.get("caused_wait_ns_per_step")),
                     None if waits is None else json.dumps({str(r): ms(w) for r, w in waits.items()}),
                     f.get("kernel"), f.get("more_kernels_per_step"), ms(f.get("kernel_excess_ns_per_step")),
                     f.get("fix")))
    return Result(FINDING_COLUMNS, rows)


def _ms_table(df, columns, keep_ns=()) -> Result:
    """ns columns shown as ms (`step_ns` -> `step_ms`), three decimals; others as they are."""
    out_cols, rows = [], []
    for c in columns:
        out_cols.append(c if (not c.endswith("_ns") or c in keep_ns) else c[:-3] + "_ms")
    for row in df[columns].itertuples(index=False, name=None):
        rows.append(tuple(round(float(v) / MS, 3) if c.endswith("_ns") and c not in keep_ns else _plain(v)
                          for c, v in zip(columns, row)))
    return Result(out_cols, rows)


PHASE_DEPTH = 2  # ranges shown below the step: the phases and their children, plus the straggler's range


def _phase_table(report) -> Result:
    """Per range path and rank (mean per steady step): CPU time of the top-level phases, GPU compute time of the
    kernels launched inside, NCCL time and waiting. Ranges down to PHASE_DEPTH, and the path the verdict names with
    its ancestors; the order: each phase followed by its children, by the largest compute time."""
    p = report.phases
    columns = ["phase", "rank", "cpu_ms", "gpu_compute_ms", "nccl_ms", "nccl_beside_compute_ms", "wait_ms"]
    if p.empty:
        return Result(columns, [], key_columns=("phase", "rank", "wait_ms", "gpu_compute_ms", "nccl_ms"))
    named = {f.get("phase") for f in report.findings if f.get("phase")}
    keep = {x for path in named for x in prefixes(str(path))}
    shown = p[(p["depth"] <= PHASE_DEPTH) | p["phase"].isin(keep)]
    weight = shown.groupby("phase")["compute_ns"].max() + shown.groupby("phase")["cpu_ns"].max().fillna(0.0)
    order = sorted(weight.index, key=lambda ph: [(-weight.get(a, 0.0), a) for a in prefixes(str(ph))])
    rank_of = {ph: i for i, ph in enumerate(order)}
    rows = []
    for r in shown.sort_values(["phase", "rank"]).itertuples(index=False):
        rows.append((r.phase, _plain(r.rank), None if pd.isna(r.cpu_ns) else round(float(r.cpu_ns) / MS, 3),
                     round(float(r.compute_ns) / MS, 3), round(float(r.comm_ns) / MS, 3),
                     round(float(r.overlap_ns) / MS, 3), round(float(r.wait_ns) / MS, 3)))
    # a narrow terminal keeps the phase, the rank and the wait (the verdict's figure) first
    return Result(columns, sorted(rows, key=lambda row: (rank_of[row[0]], row[1])),
                  key_columns=("phase", "rank", "wait_ms", "gpu_compute_ms", "nccl_ms"))


def _plain(v):
    return v.item() if hasattr(v, "item") else v
