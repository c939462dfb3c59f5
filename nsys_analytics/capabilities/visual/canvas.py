"""A picture as a list of shapes in pixels (rectangles, lines, texts), written as PNG (Pillow) or as SVG (text).

The timeline draws here, not with matplotlib: a timeline of a window must take under a second, and importing
matplotlib alone took half of it; Pillow's import and drawing take a few hundredths. Text is set in DejaVu Sans
(matplotlib's font, so the timeline looks like the other plots); widths are measured with it in both formats.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}
FONT_FAMILY = "DejaVu Sans, Bitstream Vera Sans, Arial, sans-serif"
# Pillow's text anchors (horizontal l/m/r, vertical t/m) as SVG's text-anchor and dominant-baseline.
SVG_ANCHOR = {"l": "start", "m": "middle", "r": "end"}
SVG_BASELINE = {"t": "hanging", "m": "central"}


@dataclass(frozen=True)
class Rect:
    x0: float
    y0: float
    x1: float
    y1: float
    fill: str                 # '#rrggbb'
    opacity: float = 1.0
    edge: bool = False        # a thin white edge that parts neighbouring boxes


@dataclass(frozen=True)
class Line:
    x0: float
    y0: float
    x1: float
    y1: float
    color: str
    opacity: float = 1.0


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    text: str
    size_px: float
    color: str = "#000000"
    anchor: str = "lm"        # Pillow's: horizontal l/m/r, vertical t/m
    bold: bool = False


@dataclass
class Canvas:
    width: int
    height: int
    shapes: list = field(default_factory=list)

    def rect(self, *args, **kwargs) -> None:
        self.shapes.append(Rect(*args, **kwargs))

    def line(self, *args, **kwargs) -> None:
        self.shapes.append(Line(*args, **kwargs))

    def text(self, *args, **kwargs) -> None:
        self.shapes.append(Text(*args, **kwargs))


def text_width(text: str, size_px: float, bold: bool = False) -> float:
    """The width of `text` in pixels at `size_px`."""
    return _font(round(size_px, 2), bold).getlength(text)


def fit(text: str, width_px: float, size_px: float) -> str:
    """`text`, or its start with an ellipsis, as much as fits in `width_px`; '' when not even one letter does."""
    if text_width(text, size_px) <= width_px:
        return text
    chars = min(len(text) - 1, int(width_px / (0.55 * size_px)))  # a guess, then shortened until it fits
    while chars > 0 and text_width(text[:chars] + "…", size_px) > width_px:
        chars -= 1
    return text[:chars] + "…" if chars > 0 else ""


def png_bytes(canvas: Canvas) -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (canvas.width, canvas.height), "white")
    draw = ImageDraw.Draw(image, "RGBA")  # fills with an alpha blend onto what is below
    for s in canvas.shapes:
        if isinstance(s, Rect):
            x0, x1 = round(s.x0), max(round(s.x0) + 1, round(s.x1))
            y0, y1 = round(s.y0), max(round(s.y0) + 1, round(s.y1))
            if s.edge:  # the left pixel column stays white: neighbouring boxes stay apart
                draw.rectangle((x0, y0, x0, y1 - 1), fill="white")
                x0 += 1
            draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=_rgba(s.fill, s.opacity))
        elif isinstance(s, Line):
            draw.line((round(s.x0), round(s.y0), round(s.x1), round(s.y1)), fill=_rgba(s.color, s.opacity))
        else:
            draw.text((s.x, s.y), s.text, fill=s.color, font=_font(round(s.size_px, 2), s.bold), anchor=s.anchor)
    out = io.BytesIO()
    image.save(out, format="png", compress_level=6)
    return out.getvalue()


def svg_text(canvas: Canvas) -> str:
    parts = ['<?xml version="1.0" encoding="utf-8" standalone="no"?>',
             f'<svg xmlns="http://www.w3.org/2000/svg" width="{canvas.width}" height="{canvas.height}" '
             f'viewBox="0 0 {canvas.width} {canvas.height}" font-family="{FONT_FAMILY}">',
             f'<rect width="{canvas.width}" height="{canvas.height}" fill="white"/>']
    for s in canvas.shapes:
        if isinstance(s, Rect):
            edge = ' stroke="white" stroke-width="0.5"' if s.edge else ""
            parts.append(f'<rect x="{s.x0:.2f}" y="{s.y0:.2f}" width="{max(1.0, s.x1 - s.x0):.2f}" '
                         f'height="{s.y1 - s.y0:.2f}" fill="{s.fill}"{_opacity(s.opacity)}{edge}/>')
        elif isinstance(s, Line):
            parts.append(f'<line x1="{s.x0:.2f}" y1="{s.y0 + 0.5:.2f}" x2="{s.x1:.2f}" y2="{s.y1 + 0.5:.2f}" '
                         f'stroke="{s.color}"{_opacity(s.opacity, "stroke-opacity")}/>')
        else:
            weight = ' font-weight="bold"' if s.bold else ""
            parts.append(f'<text x="{s.x:.2f}" y="{s.y:.2f}" font-size="{s.size_px:.2f}" fill="{s.color}" '
                         f'text-anchor="{SVG_ANCHOR[s.anchor[0]]}" dominant-baseline="{SVG_BASELINE[s.anchor[1]]}"'
                         f'{weight}>{escape(s.text)}</text>')
    parts.append("</svg>\n")
    return "\n".join(parts)


def _opacity(value: float, name: str = "fill-opacity") -> str:
    return "" if value >= 1 else f" {name}={quoteattr(f'{value:g}')}"


def _rgba(color: str, opacity: float) -> tuple[int, int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16), round(255 * opacity)


@lru_cache(maxsize=None)
def _font(size_px: float, bold: bool):
    from PIL import ImageFont

    path = font_path(bold)
    return ImageFont.truetype(str(path), size_px) if path else ImageFont.load_default(size_px)


def font_path(bold: bool = False) -> Path | None:
    """DejaVu Sans as matplotlib ships it (found without importing matplotlib), else Debian's; None: neither."""
    spec = find_spec("matplotlib")
    folders = [Path(p) / "mpl-data" / "fonts" / "ttf" for p in (spec.submodule_search_locations or [])] if spec else []
    folders.append(Path("/usr/share/fonts/truetype/dejavu"))
    return next((f / FONT_FILES[bold] for f in folders if (f / FONT_FILES[bold]).is_file()), None)
