"""A PNG of one column of an analysis against one parameter, one line per annotation (style: plotstyle.py)."""

from __future__ import annotations

from pathlib import Path

from ...output import plotstyle
from ...core.errors import UsageError
from .analysis import Analysis
from .metrics import closest


def choose_axes(analysis: Analysis, x: str | None, y: str | None) -> tuple[str, str]:
    """(x parameter, y column): the given ones, checked, or the first parameter and the last value column."""
    if not analysis.params:
        raise UsageError("--plot needs parameters in the range names (e.g. matmul[M=1024]) or --config-regex")
    x = x or analysis.params[0]
    y = y or (analysis.value_columns[-1] if analysis.value_columns else None)
    if x not in analysis.params:
        raise UsageError(f"--plot-x {x!r}: not a parameter; the parameters are {', '.join(analysis.params)}")
    if y not in analysis.value_columns:
        raise UsageError(f"--plot-y {y!r}: not a column of the table; closest: "
                         f"{', '.join(closest(str(y), analysis.value_columns)) or ', '.join(analysis.value_columns)}")
    return x, y


def plot(analysis: Analysis, path: Path, x: str, y: str, title: str | None = None) -> int:
    """Draw `y` against `x` for each annotation into `path`; return the number of lines drawn."""
    frame = analysis.frame.dropna(subset=[x, y])
    lines = 0
    with plotstyle.style() as plt:
        fig, ax = plt.subplots(figsize=plotstyle.NARROW_IN)
        for annotation, rows in frame.groupby("annotation", sort=True):
            rows = rows.sort_values(x)
            ax.plot(rows[x].astype(float), rows[y].astype(float), marker="o", label=plotstyle.label(annotation))
            lines += 1
        unit = analysis.units.get(y, "")
        ax.set_xlabel(plotstyle.label(x))
        ax.set_ylabel(plotstyle.label(f"{y} ({unit})" if unit else y))
        ax.set_title(plotstyle.label(title or f"{y} by {x}"))
        ax.grid(True, alpha=plotstyle.GRID_ALPHA)
        if lines:
            ax.legend()
        fig.tight_layout()
    plotstyle.save(fig, path)
    return lines
