"""Draw a `Timeline` to PNG or SVG with matplotlib (through plotstyle.py): one row per lane and nesting level,
boxes with their labels where they are wide enough, density bands (height = share of the pixel column busy) for
operations narrower than two pixels, a time axis in ms on the profile's clock, and a legend.

Drawn on a bare Agg figure (plotstyle.figure), without pyplot: a timeline of a window must take under a second,
and importing matplotlib is half of that."""

from __future__ import annotations

import hashlib
import threading
from collections import defaultdict
from pathlib import Path

from .. import plotstyle
from ..errors import UsageError
from .timeline import API_COLOR_KEYS, Timeline

FORMATS = (".png", ".svg")
FIG_WIDTH_IN = 16.0
TITLES_IN = 3.0          # room for the row titles on the left
LEVEL_IN = 0.26          # height of one nesting level
LABEL_MIN_PX = 40        # a box at least this wide gets its label
CHAR_PX = 7.0            # width of one label character at LABEL_FONT (7 pt at 120 dpi)
LABEL_FONT = 7
LABEL_MARGIN_PX = 8      # room left between a label and its box's edges
BAND_MIN_HEIGHT = 0.12   # a band column with any work is at least this share of the row high
NVTX_SHADES = ("#9fb3c8", "#b8c7d9", "#8da4bd", "#c9d4e2", "#a9b9cc")
FIXED_COLORS = {
    "memset": "#4d4d4d",  # dark grey: a brown could not be told from reduction's
    "CUDA graph": "#393b79", "NVTX": NVTX_SHADES[0], "CUDA call": "#b0b0b0",
    API_COLOR_KEYS["launch"]: "#74c476", API_COLOR_KEYS["sync"]: "#e6550d", API_COLOR_KEYS["copy"]: "#fdae6b",
}
MEMCPY_COLORS = {"HtoD": "#e7ba52", "DtoH": "#ad494a", "DtoD": "#a55194", "PtoP": "#7b4173", "HtoH": "#bd9e39",
                 "other": "#d6616b"}


def data_width_px(fig_width_in: float = FIG_WIDTH_IN) -> int:
    """Pixel columns of the time axis of a figure that wide: the grid the timeline queries bucket by."""
    return int((fig_width_in - TITLES_IN - 0.4) * plotstyle.DPI)


def fig_width_in(timeline: Timeline) -> float:
    """The figure width whose time axis has one pixel per column of the timeline's grid."""
    return timeline.width_px / plotstyle.DPI + TITLES_IN + 0.4


def preload() -> threading.Thread:
    """Import matplotlib in a background thread while the queries run: DuckDB works without the GIL, so on two
    cores the import (half a second) and the queries overlap. Drawing imports it again, waiting for this one."""
    thread = threading.Thread(target=plotstyle.import_figure, name="import-matplotlib", daemon=True)
    thread.start()
    return thread


def check_path(path: str | Path, option: str = "-o") -> Path:
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise UsageError(f"{option} {path}: give a file name ending in .png or .svg")
    return path


def colors_for(timeline: Timeline) -> dict[str, str]:
    """A colour per colour key: kernel categories as in every other plot, fixed colours for the rest."""
    keys = timeline.color_keys()
    categories = [k for k in keys if k in timeline.categories]
    colors = plotstyle.category_colors(categories, timeline.categories)
    for key in keys:
        if key in FIXED_COLORS:
            colors[key] = FIXED_COLORS[key]
        elif key.startswith("memcpy "):
            colors[key] = MEMCPY_COLORS.get(key.split(" ", 1)[1], MEMCPY_COLORS["other"])
    return colors


def plot_timeline(timeline: Timeline, path: str | Path, option: str = "-o") -> Path:
    """Write the timeline to `path` (.png or .svg); return the path."""
    path = check_path(path, option)
    with plotstyle.fonts():
        fig = draw(timeline)
        return plotstyle.save(fig, path, option)


def draw(timeline: Timeline):
    """The timeline as a matplotlib figure (draw and save it inside plotstyle.fonts())."""
    from matplotlib.patches import Rectangle

    rows = _row_offsets(timeline)
    total = sum(lane.levels for lane in timeline.lanes) or 1
    colors = colors_for(timeline)
    legend_rows = -(-len(colors) // 6)
    height = 1.1 + LEVEL_IN * total + 0.22 * legend_rows + (0.15 * len(timeline.lanes))
    width = fig_width_in(timeline)
    fig = plotstyle.figure((width, height))
    bottom_in = 0.55 + 0.22 * legend_rows
    ax = fig.add_axes((TITLES_IN / width, bottom_in / height, timeline.width_px / plotstyle.DPI / width,
                       (height - bottom_in - 0.45) / height))
    start_ms, end_ms = timeline.window.start_ns / 1e6, timeline.window.end_ns / 1e6
    _draw_boxes(ax, timeline, rows, colors, start_ms, end_ms)
    _decorate(ax, timeline, rows, total, start_ms, end_ms)
    handles = [Rectangle((0, 0), 1, 1, color=c) for c in colors.values()]
    if handles:
        fig.legend(handles, [plotstyle.label(k) for k in colors], loc="lower center", ncol=min(6, len(handles)),
                   frameon=False, fontsize=8, bbox_to_anchor=(0.5, 0.0))
    return fig


def _row_offsets(timeline: Timeline) -> list[float]:
    """The y of each lane's top; lanes are separated by a small gap."""
    offsets, y = [], 0.0
    for lane in timeline.lanes:
        offsets.append(y)
        y += lane.levels + 0.5
    return offsets


def _draw_boxes(ax, timeline: Timeline, rows: list[float], colors: dict, start_ms: float, end_ms: float) -> None:
    from matplotlib.collections import PolyCollection

    span_ms = end_ms - start_ms
    px_ms = span_ms / timeline.width_px
    polys, facecolors = defaultdict(list), {}
    labels = []
    for b in timeline.boxes:
        x0, x1 = max(b.start_ns / 1e6, start_ms), min(b.end_ns / 1e6, end_ms)
        top = rows[b.lane] + b.level
        if b.shape == "band":
            share = min(1.0, b.busy_ns / max(1, b.end_ns - b.start_ns))
            h = 0.8 * max(BAND_MIN_HEIGHT, share)
            y0, y1 = top + 0.9 - h, top + 0.9
            alpha = "band"
        else:
            x1 = max(x1, x0 + px_ms)  # at least one pixel
            y0, y1 = top + 0.1, top + 0.9
            alpha = "box" if (x1 - x0) / px_ms >= 4 else "thin"  # thin boxes get no white edge
        width_px = (x1 - x0) / px_ms
        color = _nvtx_color(b.label) if b.color_key == "NVTX" and b.shape == "box" else colors[b.color_key]
        if b.shape == "box" and b.label and width_px >= LABEL_MIN_PX:
            labels.append((x0, x1, (y0 + y1) / 2, _fit(plotstyle.label(b.label), width_px), color))
        key = (color, alpha)
        polys[key].append(((x0, y0), (x0, y1), (x1, y1), (x1, y0)))
        facecolors[key] = color
    for (color, alpha), verts in polys.items():
        ax.add_collection(PolyCollection(verts, facecolors=color, edgecolors="white" if alpha == "box" else "none",
                                         linewidths=0.3, alpha=0.75 if alpha == "band" else 1.0))
    for x0, x1, y, text, color in labels:
        ax.text((x0 + x1) / 2, y, text, ha="center", va="center", fontsize=LABEL_FONT, clip_on=True,
                color=plotstyle.text_color(color))


def _decorate(ax, timeline: Timeline, rows: list[float], total: int, start_ms: float, end_ms: float) -> None:
    ax.set_xlim(start_ms, end_ms)
    bottom = rows[-1] + timeline.lanes[-1].levels if timeline.lanes else 1
    ax.set_ylim(bottom + 0.1, -0.1)
    ax.set_yticks([rows[i] + lane.levels / 2 for i, lane in enumerate(timeline.lanes)])
    ax.set_yticklabels([_fit(plotstyle.label(lane.title), TITLES_IN * 100 / 0.9) for lane in timeline.lanes],
                       fontsize=8)
    ax.tick_params(axis="y", length=0)
    for i, lane in enumerate(timeline.lanes):
        if i:
            ax.axhline(rows[i] - 0.25, color="#cccccc", linewidth=0.6)
    ax.set_xlabel("time (ms, profile clock)")
    from matplotlib.ticker import StrMethodFormatter

    ticks = ax.xaxis.get_major_locator().tick_values(start_ms, end_ms)
    step = (ticks[1] - ticks[0]) if len(ticks) > 1 else (end_ms - start_ms)
    ax.xaxis.set_major_formatter(StrMethodFormatter(f"{{x:,.{_decimals(step)}f}}"))  # 1,600,000 or 2,410.25
    ax.grid(axis="x", alpha=plotstyle.GRID_ALPHA)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ms_per_px = (end_ms - start_ms) / timeline.width_px
    fig = ax.figure
    top = 1 - 0.12 / fig.get_figheight()
    fig.text(0.01, top, plotstyle.label(timeline.title), ha="left", va="top", fontsize=10, weight="bold")
    fig.text(0.99, top, f"{end_ms - start_ms:,.3f} ms shown; one pixel column = {_duration(ms_per_px)}",
             ha="right", va="top", fontsize=8, color="#555555")
    if timeline.highlight:
        ax.axvspan(timeline.highlight[0] / 1e6, timeline.highlight[1] / 1e6, color="#fff3b0", zorder=0)
    if not timeline.lanes:
        ax.text((start_ms + end_ms) / 2, 0.5, "nothing ran in this window", ha="center", va="center")


def _decimals(step: float) -> int:
    """The decimals that write every multiple of the tick step exactly (0.0025 ms: 4, not 3)."""
    for decimals in range(10):
        if abs(round(step, decimals) - step) <= abs(step) * 1e-6:
            return decimals
    return 10


def _fit(text: str, width_px: float) -> str:
    """`text` cut to what fits in `width_px` at the label font, less a few pixels of margin, with an ellipsis."""
    chars = int((width_px - LABEL_MARGIN_PX) / CHAR_PX)
    if len(text) <= chars:
        return text
    return text[: max(1, chars - 1)] + "…"


def _nvtx_color(name: str | None) -> str:
    """A stable colour per NVTX range name: one of a few slate shades, apart from the kernel categories' colours
    and light enough for black labels."""
    digest = int(hashlib.md5((name or "").encode()).hexdigest()[:8], 16)
    return NVTX_SHADES[digest % len(NVTX_SHADES)]


def _duration(ms: float) -> str:
    if ms >= 1:
        return f"{ms:,.2f} ms"
    if ms >= 1e-3:
        return f"{ms * 1e3:,.2f} us"
    return f"{ms * 1e6:,.0f} ns"
