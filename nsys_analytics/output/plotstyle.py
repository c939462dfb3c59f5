"""The one plotting style of every plot: figure sizes, colours, fonts, a stable colour per category, and saving a
figure atomically (a reader never sees half a PNG).

matplotlib is imported only when a plot is asked for, with the file-only Agg backend. Text drawn on a plot goes
through `label()` first: names come from the profile and may hold control characters, which no font has.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

from ..core import files
from ..core.errors import UsageError
from .render import escape_controls, shorten_names

WIDTH_IN = 11.0       # a wide figure (bars, one per profile or range); its height grows with the bars
NARROW_IN = (7.0, 4.5)  # a line chart
DPI = 120
FONT = {"font.size": 10, "legend.fontsize": 9}
# Matmul (the first category) stands out in blue; the other categories take the next colours in category order.
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22",
           "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2"]
IDLE_COLOR = "#dddddd"   # time nothing ran
OTHER_COLOR = "#7f7f7f"  # what no rule knows
GRID_ALPHA = 0.3


def pyplot():
    """matplotlib.pyplot on the Agg backend, or a UsageError saying how to install it."""
    try:
        import matplotlib
    except ImportError as e:
        raise UsageError("--plot needs matplotlib: pip install matplotlib") from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


@contextmanager
def style():
    """Draw inside this: the house fonts."""
    plt = pyplot()
    with plt.rc_context(FONT):
        yield plt


def label(text) -> str:
    """`text` as a plot shows it: control characters as escapes (`\\x1b`), as in every human format. A font has no
    glyph for ESC or BEL, and matplotlib's warning about the missing glyph would print the raw character (a
    terminal control sequence from a kernel or range name) on stderr."""
    return escape_controls(str(text))


def name_labels(names: Sequence[str], width: int = 70) -> list[str]:
    """Kernel names as plot labels: shortened, but two different names never share a label (a longer form, at worst
    the whole name, tells them apart: render.shorten_names)."""
    shown = shorten_names(list(dict.fromkeys(names)), width)
    return [label(shown[n]) for n in names]


def labels_width_in(labels: Sequence[str], fontsize: float) -> float:
    """About how wide the longest label is, in inches (DejaVu Sans averages 0.6 em a character): room to keep
    for the left labels, so a long one is not cut at the figure's edge."""
    return max((len(t) for t in labels), default=0) * 0.6 * fontsize / 72


def category_colors(present: Sequence[str], categories: Sequence[str], idle: str = "idle") -> dict[str, str]:
    """A stable colour per category: by its place in the rule set, so two plots agree."""
    colors = {}
    for category in present:
        if category == idle:
            colors[category] = IDLE_COLOR
        elif category == "other":
            colors[category] = OTHER_COLOR
        else:
            colors[category] = PALETTE[list(categories).index(category) % len(PALETTE)]
    return colors


def text_color(background: str) -> str:
    """White on a dark colour (matmul's blue, a CUDA graph's navy), black on a light one: by relative luminance."""
    r, g, b = (int(background[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return "white" if 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.45 else "black"


def check_png(path: str | Path, option: str = "--plot") -> Path:
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise UsageError(f"{option} {path}: give a file name ending in .png")
    return path


def png_option(_ctx, _param, value):
    """click callback of a --plot option: a name that is no .png is refused before any work or output."""
    return None if value is None else check_png(value)


def _escape_texts(fig) -> None:
    """A last check before saving: any text with a control character is shown escaped (`label()` is where plots
    escape their names; laying a figure out, e.g. tight_layout, already renders its text)."""
    from matplotlib.text import Text

    for text in fig.findobj(Text):
        shown = text.get_text()
        if shown != escape_controls(shown):
            text.set_text(escape_controls(shown))


def save(fig, path: str | Path, option: str = "--plot", dpi: int = DPI) -> Path:
    """Write `fig` to `path` (format from its suffix, PNG without one), whole (core/files.py), then close the
    figure."""
    path = Path(path)
    _escape_texts(fig)
    try:
        with files.replacing(path, option) as partial, open(partial, "wb") as out:
            fig.savefig(out, format=path.suffix[1:].lower() or "png", dpi=dpi)
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close(fig)
    return path
