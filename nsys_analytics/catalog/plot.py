"""`runs trend --plot`: a metric over the runs of the catalog (imported only when asked for)."""

from __future__ import annotations

from pathlib import Path

from ..result import Result


def plot_trend(result: Result, metric: str, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ids = [str(r[0]) for r in result.rows]
    values = [r[4] for r in result.rows]
    fig, ax = plt.subplots(figsize=(max(6, 0.25 * len(ids)), 3.5))
    ax.plot(range(len(ids)), values, marker="o", markersize=3, color="#264653")
    step = max(1, len(ids) // 30)
    ax.set_xticks(range(0, len(ids), step), ids[::step], fontsize=7, rotation=90)
    ax.set_xlabel("run id")
    ax.set_ylabel(f"{metric} (ms)")
    ax.set_title(f"{metric} over {len(ids)} runs", fontsize=9)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)
