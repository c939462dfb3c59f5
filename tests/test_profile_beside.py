"""Profile.beside(): a second connection to a profile's database, which diagnose uses to run the rules that do not
read its pass while the pass runs. It reads what the first connection made and makes nothing itself; a columnar
export (tables registered on one connection) has none, and diagnose then runs every rule on the one connection,
with the same report."""

from __future__ import annotations

import pytest

from nsys_analytics.api import open_nsys
from nsys_analytics.capabilities.diagnose import diagnose
from nsys_analytics.core.errors import QueryError
from nsys_analytics.data.profile import Profile

from .conftest import PROFILES, to_parquetdir

TRAIN = PROFILES / "gpt_train.sqlite"


def test_the_second_connection_reads_what_the_first_made_and_makes_nothing(cache_folder):
    with open_nsys(TRAIN) as p:
        p.prepare("SELECT count(*) FROM kernels")
        beside = p.beside()
        try:
            count = "SELECT count(*), sum(duration_ns) FROM kernels"
            assert beside.sql(count).rows == p.sql(count).rows
            with pytest.raises(QueryError, match="nvtx_events"):
                beside.sql("SELECT count(*) FROM nvtx_events")  # not made on the first connection yet
        finally:
            beside.con.close()
        assert p.sql("SELECT count(*) FROM nvtx_events").rows[0][0] > 0  # the first one still makes it


def test_a_columnar_export_has_no_second_connection(tmp_path):
    with Profile(to_parquetdir(TRAIN, tmp_path / "train_parquetdir")) as p:
        assert p.beside() is None


def test_diagnose_reports_the_same_with_the_rules_beside_the_pass_or_after_it(cache_folder, monkeypatch):
    with open_nsys(TRAIN) as p:
        beside = diagnose(p, scope="all").to_dict()
    monkeypatch.setattr(Profile, "beside", lambda self: None)
    with open_nsys(TRAIN) as p:
        inline = diagnose(p, scope="all").to_dict()
    assert beside == inline
    assert beside["findings"]  # a report with something in it


def test_an_error_in_the_pass_ends_the_rules_beside_it(cache_folder, monkeypatch):
    """The pass fails (or is interrupted): diagnose raises its error, the second connection's work has ended (no
    thread of it left) and the profile still answers."""
    import threading

    from nsys_analytics.capabilities.diagnose import report

    def failing_pass(*args, **kwargs):
        raise RuntimeError("the pass failed")

    monkeypatch.setattr(report, "sweep", failing_pass)
    before = set(threading.enumerate())
    with open_nsys(TRAIN) as p:
        with pytest.raises(RuntimeError, match="the pass failed"):
            diagnose(p, scope="all")
        assert not [t for t in threading.enumerate() if t not in before and t.is_alive()]
        assert p.sql("SELECT count(*) FROM kernels").rows[0][0] > 0
