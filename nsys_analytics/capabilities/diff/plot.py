"""`diff --plot`: the largest kernel and category changes as horizontal bars (drawn with plotstyle.py)."""

from __future__ import annotations

from pathlib import Path

from ...output import plotstyle
from .report import DiffReport

TOP = 15
LABEL_PT = 7   # the bars' labels
BARS_IN = 6.0  # the least width left for the bars beside the labels
FASTER, SLOWER = plotstyle.PALETTE[2], plotstyle.PALETTE[3]


def plot_report(report: DiffReport, path: Path, top: int = TOP) -> Path:
    path = plotstyle.check_png(path)
    kernels = report.kernels.rows[:top]
    categories = [r for r in report.categories.rows if r[0] != "total"][:top]
    names = [f"{name} [{r[0]}]" for name, r in zip(plotstyle.name_labels([r[-1] for r in kernels]), kernels)]
    width = max(plotstyle.WIDTH_IN, plotstyle.labels_width_in(names, LABEL_PT) + BARS_IN)
    with plotstyle.style() as plt:
        fig, axes = plt.subplots(2, 1, figsize=(width, 2 + 0.3 * (len(kernels) + len(categories))),
                                 gridspec_kw={"height_ratios": [max(len(kernels), 1), max(len(categories), 1)]})
        _bars(axes[0], names, [r[5] / 1e6 for r in kernels],
              "Largest kernel changes (ms, new - base)")
        _bars(axes[1], [plotstyle.label(r[0]) for r in categories], [r[3] / 1e6 for r in categories],
              "Change by category (ms)")
        verdict = report.verdict if len(report.verdict) < 150 else report.verdict[:147] + "..."
        fig.suptitle(plotstyle.label(verdict), fontsize=8)
        fig.tight_layout()
        room = (plotstyle.labels_width_in(names, LABEL_PT) + 0.3) / width  # tight_layout alone cut the longest
        fig.subplots_adjust(left=min(0.6, max(fig.subplotpars.left, room)))
        return plotstyle.save(fig, path)


def _bars(ax, labels: list[str], values: list[float], title: str) -> None:
    y = list(range(len(labels)))[::-1]
    ax.barh(y, values, color=[FASTER if v < 0 else SLOWER for v in values])
    ax.set_yticks(y, labels, fontsize=LABEL_PT)
    ax.axvline(0, color="black", linewidth=0.6)
    ax.set_title(title, fontsize=9)
    ax.grid(axis="x", alpha=plotstyle.GRID_ALPHA)
