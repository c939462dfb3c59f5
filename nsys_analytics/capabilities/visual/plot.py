"""Draw a `Timeline` to PNG or SVG: one row per lane and nesting level, boxes with their labels where they are
wide enough, density bands (height = share of the pixel column busy) for operations narrower than two pixels, a
time axis in ms on the profile's clock, and a legend; colours from plotstyle.py, as in every other plot.

Drawn as shapes in pixels (canvas.py), one pixel per column of the timeline's grid, and written by Pillow (PNG)
or as SVG text: a timeline of a window must take under a second, and matplotlib's import alone took half of it."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

from ...output import plotstyle
from ...core.errors import UsageError
from .canvas import Canvas, Text, fit, png_bytes, svg_text, text_width
from ...core.files import replacing
from .timeline import API_COLOR_KEYS, Timeline

FORMATS = (".png", ".svg")
FIG_WIDTH_IN = 16.0
TITLES_IN = 3.0          # room for the row titles on the left
PT = plotstyle.DPI / 72  # pixels per point
TITLES_PX = round(TITLES_IN * plotstyle.DPI)
RIGHT_PX = 48            # margin right of the time axis
TOP_PX = 54              # room for the title above the rows
LEVEL_PX = 32            # height of one nesting level
AXIS_PX = 66             # below the rows: ticks, tick labels and the axis title
LEGEND_ROW_PX = 22
LEGEND_COLUMNS = 6
LABEL_MIN_PX = 40        # a box at least this wide gets its label
LABEL_PX = 7 * PT        # box labels: 7 pt
SMALL_PX = 8 * PT        # row titles, legend, the scale note: 8 pt
TEXT_PX = 10 * PT        # title, tick labels, axis title: 10 pt
LABEL_MARGIN_PX = 8      # room left between a label and its box's edges
EDGE_MIN_PX = 4          # boxes at least this wide get a white edge apart from their neighbours
BAND_MIN_HEIGHT = 0.12   # a band column with any work is at least this share of the row high
HIGHLIGHT = "#fff3b0"
NVTX_SHADES = ("#9fb3c8", "#b8c7d9", "#8da4bd", "#c9d4e2", "#a9b9cc")
FIXED_COLORS = {
    "memset": "#4d4d4d",  # dark grey: a brown could not be told from reduction's
    "CUDA graph": "#393b79", "NVTX": NVTX_SHADES[0], "CUDA call": "#b0b0b0",
    API_COLOR_KEYS["launch"]: "#74c476", API_COLOR_KEYS["sync"]: "#e6550d", API_COLOR_KEYS["copy"]: "#fdae6b",
}
MEMCPY_COLORS = {"HtoD": "#e7ba52", "DtoH": "#ad494a", "DtoD": "#a55194", "PtoP": "#7b4173", "HtoH": "#bd9e39",
                 "other": "#d6616b"}


def data_width_px(fig_width_in: float = FIG_WIDTH_IN) -> int:
    """Pixel columns of the time axis of a picture that wide: the grid the timeline queries bucket by."""
    return int((fig_width_in - TITLES_IN - 0.4) * plotstyle.DPI)


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
    """Write the timeline to `path` (.png or .svg), whole or not at all; return the path."""
    path = check_path(path, option)
    canvas = draw(timeline)
    data = svg_text(canvas).encode() if path.suffix.lower() == ".svg" else png_bytes(canvas)
    with replacing(path, option) as tmp:
        tmp.write_bytes(data)
    return path


def timeline_png(timeline: Timeline) -> bytes:
    """The timeline as PNG bytes (for a page that embeds it)."""
    return png_bytes(draw(timeline))


class _Frame:
    """Where things go: x in pixels from ns on the profile's clock, y in pixels from rows (nesting levels)."""

    def __init__(self, timeline: Timeline, rows_high: float):
        self.t = timeline
        self.left, self.right = TITLES_PX, TITLES_PX + timeline.width_px
        self.top, self.axis = TOP_PX, TOP_PX + (rows_high + 0.2) * LEVEL_PX

    def x(self, ns: float) -> float:
        w = self.t.window
        return self.left + (ns - w.start_ns) / w.duration_ns * self.t.width_px

    def y(self, row: float) -> float:
        return self.top + (row + 0.1) * LEVEL_PX


def draw(timeline: Timeline) -> Canvas:
    """The timeline as shapes on a canvas (canvas.png_bytes / svg_text write it)."""
    rows = _row_offsets(timeline)
    colors = colors_for(timeline)
    rows_high = rows[-1] + timeline.lanes[-1].levels if timeline.lanes else 1
    frame = _Frame(timeline, rows_high)
    legend_rows = -(-len(colors) // LEGEND_COLUMNS)
    height = math.ceil(frame.axis + AXIS_PX + LEGEND_ROW_PX * legend_rows + 8)
    canvas = Canvas(frame.right + RIGHT_PX, height)
    ticks, step = _ticks(timeline.window.start_ns / 1e6, timeline.window.end_ns / 1e6)
    _draw_background(canvas, frame, rows, ticks)
    _draw_boxes(canvas, frame, rows, colors)
    _draw_axes(canvas, frame, rows, ticks, step)
    _draw_legend(canvas, colors, frame.axis + AXIS_PX)
    return canvas


def _row_offsets(timeline: Timeline) -> list[float]:
    """The row of each lane's top; lanes are separated by a small gap."""
    offsets, y = [], 0.0
    for lane in timeline.lanes:
        offsets.append(y)
        y += lane.levels + 0.5
    return offsets


def _draw_background(canvas: Canvas, f: _Frame, rows: list[float], ticks: list[float]) -> None:
    """The highlighted span, the grid at the ticks and the lines between lanes."""
    if f.t.highlight:
        x0, x1 = (min(max(f.x(ns), f.left), f.right) for ns in f.t.highlight)
        canvas.rect(x0, f.top, x1, f.axis, HIGHLIGHT)
    for tick in ticks:
        x = f.x(tick * 1e6)
        canvas.line(x, f.top, x, f.axis, "#b0b0b0", plotstyle.GRID_ALPHA)
    for row in rows[1:]:
        canvas.line(f.left, f.y(row - 0.25), f.right, f.y(row - 0.25), "#cccccc")


def _draw_boxes(canvas: Canvas, f: _Frame, rows: list[float], colors: dict) -> None:
    """Boxes and bands, then the labels of the wide boxes over them."""
    w = f.t.window
    labels = []
    for b in f.t.boxes:
        x0, x1 = f.x(max(b.start_ns, w.start_ns)), f.x(min(b.end_ns, w.end_ns))
        top = rows[b.lane] + b.level
        color = _nvtx_color(b.label) if b.color_key == "NVTX" and b.shape == "box" else colors[b.color_key]
        if b.shape == "band":
            share = min(1.0, b.busy_ns / max(1, b.end_ns - b.start_ns))
            h = 0.8 * max(BAND_MIN_HEIGHT, share)
            canvas.rect(x0, f.y(top + 0.9 - h), x1, f.y(top + 0.9), color, opacity=0.75)
            continue
        x1 = max(x1, x0 + 1)  # at least one pixel
        canvas.rect(x0, f.y(top + 0.1), x1, f.y(top + 0.9), color, edge=x1 - x0 >= EDGE_MIN_PX)
        if b.label and x1 - x0 >= LABEL_MIN_PX:
            text = fit(plotstyle.label(b.label), x1 - x0 - LABEL_MARGIN_PX, LABEL_PX)
            if text:
                labels.append(Text((x0 + x1) / 2, f.y(top + 0.5), text, LABEL_PX, plotstyle.text_color(color), "mm"))
    canvas.shapes += labels


def _draw_axes(canvas: Canvas, f: _Frame, rows: list[float], ticks: list[float], step: float) -> None:
    """Row titles, the time axis with its ticks, the title and the scale note."""
    t = f.t
    for row, lane in zip(rows, t.lanes):
        title = fit(plotstyle.label(lane.title), TITLES_PX - 20, SMALL_PX)
        canvas.text(f.left - 7, f.y(row + lane.levels / 2), title, SMALL_PX, anchor="rm")
    if not t.lanes:
        canvas.text((f.left + f.right) / 2, (f.top + f.axis) / 2, "nothing ran in this window", TEXT_PX, anchor="mm")
    canvas.line(f.left, f.axis, f.right, f.axis, "#000000")
    decimals = _decimals(step)
    for tick in ticks:  # 1,600,000 or 2,410.25
        x = f.x(tick * 1e6)
        canvas.line(x, f.axis, x, f.axis + 6, "#000000")
        canvas.text(x, f.axis + 11, f"{tick:,.{decimals}f}", TEXT_PX, anchor="mt")
    canvas.text((f.left + f.right) / 2, f.axis + 36, f"time (ms, {t.clock})", TEXT_PX, anchor="mt")
    span_ms = t.window.duration_ns / 1e6
    canvas.text(0.01 * canvas.width, 14, plotstyle.label(t.title), TEXT_PX, anchor="lt", bold=True)
    canvas.text(0.99 * canvas.width, 16, f"{span_ms:,.3f} ms shown; one pixel column = "
                f"{_duration(span_ms / t.width_px)}", SMALL_PX, "#555555", anchor="rt")


def _draw_legend(canvas: Canvas, colors: dict[str, str], top: float) -> None:
    """A swatch and a name per colour, in up to six columns filled top to bottom, centred below the axis."""
    entries = [(color, plotstyle.label(key)) for key, color in colors.items()]
    if not entries:
        return
    ncol = min(LEGEND_COLUMNS, len(entries))
    base, extra = divmod(len(entries), ncol)
    columns, i = [], 0
    for c in range(ncol):
        columns.append(entries[i:i + base + (c < extra)])
        i += base + (c < extra)
    swatch, pad, gap = 2 * SMALL_PX, 0.8 * SMALL_PX, 2 * SMALL_PX
    widths = [swatch + pad + max(text_width(name, SMALL_PX) for _, name in column) for column in columns]
    x = (canvas.width - sum(widths) - gap * (ncol - 1)) / 2
    for column, width in zip(columns, widths):
        for r, (color, name) in enumerate(column):
            y = top + (r + 0.5) * LEGEND_ROW_PX
            canvas.rect(x, y - 0.35 * SMALL_PX, x + swatch, y + 0.35 * SMALL_PX, color)
            canvas.text(x + swatch + pad, y, name, SMALL_PX, anchor="lm")
        x += width + gap


def _ticks(start: float, end: float, bins: int = 9) -> tuple[list[float], float]:
    """Ticks at the multiples of a round step (1, 2, 2.5 or 5 times a power of ten) inside [start, end], at most
    `bins` steps apart from end to end, as matplotlib's default locator places them; and the step."""
    span = end - start
    raw = span / bins
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw * (1 - 1e-9))
    first, last = math.ceil(start / step - 1e-9), math.floor(end / step + 1e-9)
    return [k * step for k in range(first, last + 1)], step


def _decimals(step: float) -> int:
    """The decimals that write every multiple of the tick step exactly (0.0025 ms: 4, not 3)."""
    for decimals in range(10):
        if abs(round(step, decimals) - step) <= abs(step) * 1e-6:
            return decimals
    return 10


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
