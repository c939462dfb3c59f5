"""`diff --plot`: the largest kernel and category changes as horizontal bars (drawn with plotstyle.py)."""

from __future__ import annotations

from pathlib import Path

from ...output import plotstyle
from ...output.render import shorten_name
from .report import DiffReport

TOP = 15
FASTER, SLOWER = plotstyle.PALETTE[2], plotstyle.PALETTE[3]


def plot_report(report: DiffReport, path: Path, top: int = TOP) -> Path:
    path = plotstyle.check_png(path)
    kernels = report.kernels.rows[:top]
    categories = [r for r in report.categories.rows if r[0] != "total"][:top]
    with plotstyle.style() as plt:
        fig, axes = plt.subplots(2, 1, figsize=(plotstyle.WIDTH_IN, 2 + 0.3 * (len(kernels) + len(categories))),
                                 gridspec_kw={"height_ratios": [max(len(kernels), 1), max(len(categories), 1)]})
        _bars(axes[0], [plotstyle.label(f"{shorten_name(r[-1], 70)} [{r[0]}]") for r in kernels],
              [r[5] / 1e6 for r in kernels],
              "Largest kernel changes (ms, new - base)")
        _bars(axes[1], [plotstyle.label(r[0]) for r in categories], [r[3] / 1e6 for r in categories],
              "Change by category (ms)")
        verdict = report.verdict if len(report.verdict) < 150 else report.verdict[:147] + "..."
        fig.suptitle(plotstyle.label(verdict), fontsize=8)
        fig.tight_layout()
        return plotstyle.save(fig, path)


def _bars(ax, labels: list[str], values: list[float], title: str) -> None:
    y = list(range(len(labels)))[::-1]
    ax.barh(y, values, color=[FASTER if v < 0 else SLOWER for v in values])
    ax.set_yticks(y, labels, fontsize=7)
    ax.axvline(0, color="black", linewidth=0.6)
    ax.set_title(title, fontsize=9)
    ax.grid(axis="x", alpha=plotstyle.GRID_ALPHA)
