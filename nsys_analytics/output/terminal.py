"""The width that `--format table` is laid out to: `COLUMNS`, else the terminal's when stdout is one; unlimited
(None) when piped, redirected, written with -o, or with `--wide`. The writer sets it while a report renders
(`laid_out`), so renderers ask `current_width()` instead of passing it down every call."""

from __future__ import annotations

import os
import sys
import textwrap
from contextlib import contextmanager
from contextvars import ContextVar

import click

_WIDE = "nsys_analytics.wide"  # click's ctx.meta key: --wide was given
_width: ContextVar[int | None] = ContextVar("nsys_analytics_width", default=None)


def wide_option(f):
    """--wide: lay tables out whole (no column left out or wrapped), as when the output is piped."""
    return click.option("--wide", is_flag=True, expose_value=False, callback=_remember_wide,
                        help="With --format table: show every column whole, whatever the terminal's width "
                             "(piped output is, unless COLUMNS sets a width).")(f)


def _remember_wide(ctx: click.Context, _param, value: bool) -> None:
    if value:
        ctx.meta[_WIDE] = True


def width_for(fmt: str, to_file: bool) -> int | None:
    """The width to lay `fmt` out to: None (unlimited) but for a table on a terminal or under COLUMNS."""
    ctx = click.get_current_context(silent=True)
    if fmt != "table" or to_file or (ctx is not None and ctx.meta.get(_WIDE)):
        return None
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        columns = os.get_terminal_size(sys.stdout.fileno()).columns if sys.stdout.isatty() else 0
    except (OSError, ValueError, AttributeError):  # no real file behind stdout (a test runner's buffer)
        return None
    return columns or None  # a terminal that reports no size (a new pseudo-terminal: 0 columns) sets no width


@contextmanager
def laid_out(width: int | None):
    """Within the block, `current_width()` is `width`."""
    token = _width.set(width)
    try:
        yield
    finally:
        _width.reset(token)


def current_width() -> int | None:
    return _width.get()


def wrap_text(text: str, width: int | None) -> str:
    """Every line of `text` longer than `width` wrapped at word boundaries, continued under its own indent plus
    two spaces; a word longer than the width stays whole on its line (nothing is cut)."""
    if width is None:
        return text
    return "\n".join(_wrap_line(line, width) for line in text.split("\n"))


def _wrap_line(line: str, width: int) -> str:
    if len(line) <= width:
        return line
    indent = line[: len(line) - len(line.lstrip(" "))]
    return "\n".join(textwrap.wrap(line, width, initial_indent="", subsequent_indent=indent + "  ",
                                   break_long_words=False, break_on_hyphens=False, drop_whitespace=True)
                     ) if line.strip() else line.rstrip()
