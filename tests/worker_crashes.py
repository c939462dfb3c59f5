"""`make test` runs the suite on two pytest-xdist workers. A worker killed by a signal (a native crash in DuckDB's
SQLite reader, README.md: Fixtures and tests) is not a failing test: the test it was running is run once more, on
the fresh worker xdist starts in its place. A second crash of the same test fails it."""

from __future__ import annotations

import pytest

_rerun: set[str] = set()  # the tests already given their second run


@pytest.hookimpl(optionalhook=True)  # an xdist hook: unknown (and never called) without xdist
def pytest_handlecrashitem(crashitem: str, report, sched) -> None:
    if crashitem in _rerun or not hasattr(sched, "mark_test_pending"):
        return
    _rerun.add(crashitem)
    sched.mark_test_pending(crashitem)
    report.outcome = "rerun"  # neither passed nor failed: the summary counts it as "1 rerun"
