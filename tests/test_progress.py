"""Long work shows its elapsed time on a terminal's stderr, and nothing ever lands on stdout: DuckDB's own
progress bar, which draws on stdout (inside tables and CSV), stays off."""

from __future__ import annotations

import io
import time

import pytest

import nsys_analytics
from nsys_analytics.core import progress

from .conftest import PROFILES


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def fast_delay(monkeypatch):
    monkeypatch.setattr(progress, "DELAY_S", 0.05)
    yield
    progress._stream = None


def test_duckdb_progress_bar_is_off():
    with nsys_analytics.open(PROFILES / "gpt_train.sqlite") as p:
        assert p.sql("SELECT current_setting('enable_progress_bar')").rows == [(False,)]


def test_long_work_shows_elapsed_time_on_a_terminal_then_erases_it(fast_delay):
    term = Terminal()
    progress.enable(term)
    with progress.showing("querying run.sqlite"):
        time.sleep(0.2)
    out = term.getvalue()
    assert "\rquerying run.sqlite... 0 s" in out
    assert out.endswith("\r" + " " * len("querying run.sqlite... 0 s") + "\r")


def test_quick_work_and_pipes_show_nothing(fast_delay):
    term = Terminal()
    progress.enable(term)
    with progress.showing("quick"):
        pass
    assert term.getvalue() == ""
    pipe = io.StringIO()
    progress.enable(pipe)  # not a terminal: silent
    with progress.showing("slow"):
        time.sleep(0.2)
    assert pipe.getvalue() == ""
