"""`breakdown --plot FILE.png`: one horizontal stacked bar per profile (or NVTX range) of category shares.

matplotlib is imported here only, when a plot is asked for, with the file-only Agg backend.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from .report import IDLE, BreakdownReport

_SHOW_LABEL_PCT = 4.0  # segments at least this wide (%) get their percentage written on them
# Matmul stands out in blue; the other categories take the remaining colours in category order.
_PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22",
            "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2"]
_IDLE_COLOR = "#dddddd"
_OTHER_COLOR = "#7f7f7f"


def plot_report(report: BreakdownReport, categories: list[str], path: str | Path) -> Path:
    """Write the category shares of every column of `report` to a PNG; return its path."""
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise UsageError(f"--plot {path}: give a file name ending in .png")
    plt = _pyplot()
    labels = list(report.shares)
    present = [c for c in categories + [IDLE] if any(report.shares[lbl].get(c, 0) > 0 for lbl in labels)]
    fig, ax = plt.subplots(figsize=(11, 1.6 + 0.7 * len(labels)))
    _draw_bars(ax, report, labels, present, _colors(present, categories))
    ax.set_xlim(0, max(100.0, *(sum(report.shares[lbl].values()) for lbl in labels)))
    ax.set_xlabel(f"% of GPU time (basis: {report.basis})")
    ax.set_title(f"GPU time by kernel category: {report.title}")
    ax.invert_yaxis()
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=9)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120)
    except OSError as e:
        raise UsageError(f"--plot {path}: cannot be written ({e.strerror})") from e
    finally:
        plt.close(fig)
    return path


def _draw_bars(ax, report: BreakdownReport, labels: list[str], present: list[str], colors: dict) -> None:
    left = [0.0] * len(labels)
    for category in present:
        widths = [report.shares[lbl].get(category, 0.0) for lbl in labels]
        bars = ax.barh(labels, widths, left=left, color=colors[category], label=category, height=0.6)
        for bar, width in zip(bars, widths):
            if width >= _SHOW_LABEL_PCT:
                ax.text(bar.get_x() + width / 2, bar.get_y() + bar.get_height() / 2, f"{width:.0f}%",
                        ha="center", va="center", fontsize=8)
        left = [a + b for a, b in zip(left, widths)]


def _colors(present: list[str], categories: list[str]) -> dict[str, str]:
    """A stable colour per category: by its place in the rule set, so two plots agree."""
    colors = {}
    for category in present:
        if category == IDLE:
            colors[category] = _IDLE_COLOR
        elif category == "other":
            colors[category] = _OTHER_COLOR
        else:
            colors[category] = _PALETTE[categories.index(category) % len(_PALETTE)]
    return colors


def _pyplot():
    try:
        import matplotlib
    except ImportError as e:
        raise UsageError("--plot needs matplotlib: pip install matplotlib") from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
