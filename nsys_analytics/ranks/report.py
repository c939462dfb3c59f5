"""`RanksReport` -> the tables and lines the `ranks` command shows. No I/O."""

from __future__ import annotations

from ..result import Result

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
        "collectives": lambda: _ms_table(report.collectives, ["rank", "op", "ordinal", "start_ns", "duration_ns",
                                                              "wait_ns", "last_rank", "name"], keep_ns=("start_ns",)),
        "findings": lambda: Result(["severity", "message"], [(f["severity"], f["message"]) for f in report.findings]),
    }
    return {name: build[name]() for name in names}


def _ms_table(df, columns, keep_ns=()) -> Result:
    """ns columns shown as ms (`step_ns` -> `step_ms`), three decimals; others as they are."""
    out_cols, rows = [], []
    for c in columns:
        out_cols.append(c if (not c.endswith("_ns") or c in keep_ns) else c[:-3] + "_ms")
    for row in df[columns].itertuples(index=False, name=None):
        rows.append(tuple(round(float(v) / MS, 3) if c.endswith("_ns") and c not in keep_ns else _plain(v)
                          for c, v in zip(columns, row)))
    return Result(out_cols, rows)


def _phase_table(report) -> Result:
    p = report.phases
    if p.empty:
        return Result(["phase"], [])
    wide = p.pivot_table(index="phase", columns="rank", values="mean_ns", aggfunc="sum").fillna(0.0)
    ranks = list(wide.columns)
    columns = ["phase", *[f"rank_{r}_ms" for r in ranks]]
    rows = [(name, *(round(float(wide.loc[name, r]) / MS, 3) for r in ranks)) for name in wide.index]
    return Result(columns, sorted(rows, key=lambda r: -max(r[1:])))


def _plain(v):
    return v.item() if hasattr(v, "item") else v
