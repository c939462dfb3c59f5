"""Elapsed time of long work on stderr, when stderr is a terminal.

DuckDB's own progress bar writes to stdout, where it would end up inside tables, CSV and JSON; it is turned off
(database.connect) and this line takes its place. The library stays silent unless the CLI calls `enable()`.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

DELAY_S = 1.0  # quicker work shows nothing
_stream: TextIO | None = None


def enable(stream: TextIO = sys.stderr) -> None:
    """Show the elapsed time of work that runs longer than DELAY_S on `stream`, if it is a terminal."""
    global _stream
    _stream = stream if stream.isatty() else None


@contextmanager
def showing(what: str) -> Iterator[None]:
    """While the block runs: after DELAY_S, '<what>... 3 s' on one line, redrawn every second, erased at the end."""
    stream = _stream
    if stream is None:
        yield
        return
    done = threading.Event()
    thread = threading.Thread(target=_draw, args=(stream, what, done), daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _draw(stream: TextIO, what: str, done: threading.Event) -> None:
    start = time.monotonic()
    width = 0
    if done.wait(DELAY_S):
        return
    while True:
        line = f"{what}... {time.monotonic() - start:.0f} s"
        width = max(width, len(line))
        stream.write("\r" + line)
        stream.flush()
        if done.wait(1.0):
            break
    stream.write("\r" + " " * width + "\r")
    stream.flush()
