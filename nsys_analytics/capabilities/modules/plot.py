"""`modules --plot FILE.png`: one horizontal bar per module, forward and backward GPU ms per step stacked, in the
style of plotstyle.py (the modules table's rows, in its order: fold deep trees with --depth)."""

from __future__ import annotations

from pathlib import Path

from ...output import plotstyle
from .report import ModulesReport

FORWARD, BACKWARD = plotstyle.PALETTE[0], plotstyle.PALETTE[1]
MAX_BARS = 60  # a taller picture is unreadable: the heaviest 60 modules, the plot's title says so


def plot_modules(report: ModulesReport, path: str | Path) -> Path:
    """Write the modules' forward and backward ms per step to a PNG; return its path."""
    path = plotstyle.check_png(path)
    rows = report.modules.rows
    col = report.modules.columns.index
    if len(rows) > MAX_BARS:
        heaviest = sorted(rows, key=lambda r: -(r[col("forward_ms")] + (r[col("backward_ms")] or 0)))[:MAX_BARS]
        rows = [r for r in rows if r in heaviest]
    names = [r[col("module")] for r in rows]
    forward = [r[col("forward_ms")] for r in rows]
    backward = [r[col("backward_ms")] or 0 for r in rows]  # blank (None): inside the parent's backward
    with plotstyle.style() as plt:
        fig, ax = plt.subplots(figsize=(plotstyle.WIDTH_IN, 1.4 + 0.32 * len(names)))
        y = range(len(names))
        ax.barh(y, forward, color=FORWARD, height=0.65, label="forward")
        ax.barh(y, backward, left=forward, color=BACKWARD, height=0.65, label="backward")
        ax.set_yticks(list(y), [plotstyle.label(n) for n in names])
        ax.invert_yaxis()
        ax.set_xlabel("GPU ms per step")
        ax.grid(axis="x", alpha=plotstyle.GRID_ALPHA)
        shown = "" if len(rows) == len(report.modules.rows) else f", the heaviest {len(rows)}"
        ax.set_title(plotstyle.label(f"GPU time per module, forward and backward ({report.source}{shown})"))
        ax.legend(loc="lower right", frameon=False)
        fig.tight_layout()
    return plotstyle.save(fig, path)
