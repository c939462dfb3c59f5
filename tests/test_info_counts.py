"""`info` counts kernels and API calls on the tables the views are made of: the same numbers as counting through
the views (a brute force over their rows), on every fixture."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import nsys_analytics
from nsys_analytics.cli.main import cli

from .conftest import FIXTURE_NAMES, PROFILES
from .test_cache import cached  # noqa: F401 - the fixture: caching on, in a fresh folder


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_info_counts_equal_the_views(name):
    path = PROFILES / f"{name}.sqlite"
    result = CliRunner().invoke(cli, ["info", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    with nsys_analytics.open(path) as p:
        for view in ("kernels", "cuda_api", "nvtx_events", "memcpy", "memset"):
            assert info["row_counts"][view] == p.sql(f"SELECT count(*) FROM {view}").rows[0][0], view
        rows = p.sql("""
            SELECT pid, sum(k)::BIGINT, sum(c)::BIGINT, sum(r)::BIGINT FROM (
                SELECT pid, 1 AS k, 0 AS c, 0 AS r FROM kernels
                UNION ALL SELECT pid, 0, 1, 0 FROM cuda_api
                UNION ALL SELECT pid, 0, 0, 1 FROM nvtx_events) GROUP BY pid ORDER BY pid""").rows
        events = p.sql("SELECT * FROM session").to_records()[0]
    assert [(r["pid"], r["kernels"], r["cuda_api_calls"], r["nvtx_events"]) for r in info["processes"]] == rows
    assert events["capture_start_ns"] is not None


def _parts(folder) -> list[str]:
    return sorted(f.name for f in (folder / "columnar").glob("*/*.parquet")) if (folder / "columnar").exists() else []


def _info(path) -> dict:
    result = CliRunner().invoke(cli, ["info", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_first_info_builds_no_cache_and_remembers_its_answer(cached):
    path = PROFILES / "gpt_train.sqlite"
    first = _info(path)
    assert _parts(cached) == []  # read from the export directly
    assert list((cached / "summaries").glob("*.info"))
    assert _info(path) == first  # remembered
    for memo in (cached / "summaries").glob("*.info"):
        memo.unlink()
    assert CliRunner().invoke(cli, ["kernels", str(path)]).exit_code == 0
    assert _parts(cached)  # kernels builds the cache; info then reads what it holds
    assert _info(path) == first


def test_the_capture_window_comes_from_the_events_without_a_capture_record(tmp_path):
    """The span of kernels, runtime and driver calls, counted here by sqlite3 over the export."""
    import shutil
    import sqlite3

    path = tmp_path / "no_record.sqlite"
    shutil.copy(PROFILES / "gpt_train.sqlite", path)
    con = sqlite3.connect(path)
    con.execute("DELETE FROM ANALYSIS_DETAILS")
    tables = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE name IN "
                                        "('CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_RUNTIME', "
                                        "'CUPTI_ACTIVITY_KIND_DRIVER')")]
    spans = [con.execute(f'SELECT min(start), max("end") FROM {t}').fetchone() for t in tables]
    con.commit()
    con.close()
    session = _info(path)["session"]
    assert session["window_from_events"] is True
    assert session["capture_start_ns"] == min(s for s, _ in spans)
    assert session["capture_end_ns"] == max(e for _, e in spans)
    with_record = _info(PROFILES / "gpt_train.sqlite")["session"]
    assert with_record["window_from_events"] is False
    assert with_record["capture_start_ns"] != session["capture_start_ns"]
