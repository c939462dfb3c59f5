"""A benchmark sweep drawn: the mean over runs of one metric against one parameter, one line per annotation
(style: plotstyle.py)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ...output import plotstyle
from ...core.errors import UsageError


def plot_bench(frame: pd.DataFrame, params: list[str], metric: str | None, x: str | None, relative: bool,
               path: str | Path | None, title: str | None):
    if not params:
        raise UsageError("plot(): the sweep has no configuration parameter to put on the x axis")
    metric = metric or str(frame["metric"].iloc[0])
    x = x or params[0]
    if x not in params:
        raise UsageError(f"plot(x={x!r}): not a parameter; the parameters are {', '.join(params)}")
    y = "relative" if relative else "value"
    if y not in frame:
        raise UsageError("plot(relative=True) needs bench(normalize_against=...)")
    rows = frame[frame["metric"] == metric]
    if rows.empty:
        raise UsageError(f"plot(metric={metric!r}): no such metric; the metrics are "
                         f"{', '.join(map(str, frame['metric'].unique()))}")
    unit = str(rows["unit"].iloc[0])
    with plotstyle.style() as plt:
        fig, ax = plt.subplots(figsize=plotstyle.NARROW_IN)
        for annotation, group in rows.groupby("annotation", sort=True):
            mean = group.groupby(x, sort=True)[y].mean()
            ax.plot(mean.index.astype(float) if _numeric(mean.index) else mean.index.astype(str), mean.to_numpy(),
                    marker="o", label=plotstyle.label(annotation))
        ax.set_xlabel(plotstyle.label(x))
        ylabel = f"{metric} / baseline" if relative else (f"{metric} ({unit})" if unit else metric)
        ax.set_ylabel(plotstyle.label(ylabel))
        ax.set_title(plotstyle.label(title or f"{metric} by {x}"))
        ax.grid(True, alpha=plotstyle.GRID_ALPHA)
        ax.legend()
        fig.tight_layout()
    if path is not None:
        plotstyle.save(fig, plotstyle.check_png(path, "plot(path=...)"), "plot(path=...)")
    return fig


def _numeric(index) -> bool:
    return pd.api.types.is_numeric_dtype(index)
