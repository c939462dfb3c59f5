"""`runs trend --plot`: a metric over the runs of the catalog (drawn with plotstyle.py)."""

from __future__ import annotations

from pathlib import Path

from ...output import plotstyle
from ...core.result import Result


def plot_trend(result: Result, metric: str, path: Path) -> Path:
    path = plotstyle.check_png(path)
    ids = [str(r[0]) for r in result.rows]
    values = [r[4] for r in result.rows]
    with plotstyle.style() as plt:
        fig, ax = plt.subplots(figsize=plotstyle.NARROW_IN)
        ax.plot(range(len(ids)), values, marker="o", markersize=3, color=plotstyle.PALETTE[0])
        step = max(1, len(ids) // 30)
        ax.set_xticks(range(0, len(ids), step), ids[::step], fontsize=7, rotation=90)
        ax.set_xlabel("run id")
        ax.set_ylabel(plotstyle.label(f"{metric} (ms)"))
        ax.set_title(plotstyle.label(f"{metric} over {len(ids)} runs"), fontsize=9)
        ax.grid(alpha=plotstyle.GRID_ALPHA)
        fig.tight_layout()
        return plotstyle.save(fig, path)
