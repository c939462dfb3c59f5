"""`breakdown --plot FILE.png`: one horizontal stacked bar per profile (or NVTX range) of category shares, in the
style of plotstyle.py."""

from __future__ import annotations

from pathlib import Path

from ...output import plotstyle
from .report import IDLE, BreakdownReport

_SHOW_LABEL_PCT = 4.0  # segments at least this wide (%) get their percentage written on them


def plot_report(report: BreakdownReport, categories: list[str], path: str | Path) -> Path:
    """Write the category shares of every column of `report` to a PNG; return its path."""
    path = plotstyle.check_png(path)
    labels = list(report.shares)
    present = [c for c in categories + [IDLE] if any(report.shares[lbl].get(c, 0) > 0 for lbl in labels)]
    with plotstyle.style() as plt:
        fig, ax = plt.subplots(figsize=(plotstyle.WIDTH_IN, 1.6 + 0.7 * len(labels)))
        _draw_bars(ax, report, labels, present, plotstyle.category_colors(present, categories, IDLE))
        ax.set_xlim(0, max(100.0, *(sum(report.shares[lbl].values()) for lbl in labels)))
        ax.set_xlabel(f"% of GPU time (basis: {report.basis})")
        ax.set_title(plotstyle.label(f"GPU time by kernel category: {report.title}"))
        ax.invert_yaxis()
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        fig.tight_layout()
    return plotstyle.save(fig, path)


def _draw_bars(ax, report: BreakdownReport, labels: list[str], present: list[str], colors: dict) -> None:
    left = [0.0] * len(labels)
    for category in present:
        widths = [report.shares[lbl].get(category, 0.0) for lbl in labels]
        bars = ax.barh(range(len(labels)), widths, left=left, color=colors[category],
                       label=plotstyle.label(category), height=0.6)
        for bar, width in zip(bars, widths):
            if width >= _SHOW_LABEL_PCT:
                ax.text(bar.get_x() + width / 2, bar.get_y() + bar.get_height() / 2, f"{width:.0f}%",
                        ha="center", va="center", fontsize=8, color=plotstyle.text_color(colors[category]))
        left = [a + b for a, b in zip(left, widths)]
    ax.set_yticks(range(len(labels)), [plotstyle.label(lbl) for lbl in labels])

