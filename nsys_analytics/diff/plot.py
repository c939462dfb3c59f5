"""`diff --plot`: the largest kernel and category changes as horizontal bars (imported only when asked for)."""

from __future__ import annotations

from pathlib import Path

from ..render import shorten_name
from .report import DiffReport

TOP = 15


def plot_report(report: DiffReport, path: Path, top: int = TOP) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kernels = report.kernels.rows[:top]
    categories = [r for r in report.categories.rows if r[0] != "total"][:top]
    fig, axes = plt.subplots(2, 1, figsize=(10, 2 + 0.32 * (len(kernels) + len(categories))),
                             gridspec_kw={"height_ratios": [max(len(kernels), 1), max(len(categories), 1)]})
    _bars(axes[0], [f"{shorten_name(r[-1], 70)} [{r[0]}]" for r in kernels], [r[5] / 1e6 for r in kernels],
          "Largest kernel changes (ms, new - base)")
    _bars(axes[1], [r[0] for r in categories], [r[3] / 1e6 for r in categories], "Change by category (ms)")
    fig.suptitle(report.verdict if len(report.verdict) < 140 else report.verdict[:137] + "...", fontsize=8)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _bars(ax, labels: list[str], values: list[float], title: str) -> None:
    y = list(range(len(labels)))[::-1]
    ax.barh(y, values, color=["#2a9d8f" if v < 0 else "#e76f51" for v in values])
    ax.set_yticks(y, labels, fontsize=7)
    ax.axvline(0, color="black", linewidth=0.6)
    ax.set_title(title, fontsize=9)
    ax.tick_params(axis="x", labelsize=7)
