"""`info` counts kernels and API calls on the tables the views are made of: the same numbers as counting through
the views (a brute force over their rows), on every fixture."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import nsys_analytics
from nsys_analytics.cli.main import cli

from .conftest import FIXTURE_NAMES, PROFILES


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
