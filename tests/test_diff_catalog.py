"""`runs diff` on a catalog of schema 1 (before runs carried their steady-state summary): opening it adds the table,
runs stored before are compared over the whole capture, runs added after as `diff` compares them."""

from __future__ import annotations

import json

from click.testing import CliRunner
from sqlalchemy import create_engine, insert

from nsys_analytics.cli.main import cli
from nsys_analytics.capabilities.diff.data import summarize_side
from nsys_analytics.capabilities.catalog.schema import SCHEMA_VERSION, catalog_meta, metadata, steady_summaries
from nsys_analytics.capabilities.categories import load_rules
from nsys_analytics.capabilities.diff.report import build_diff

from .conftest import PROFILES

TRAIN, SDPA = PROFILES / "gpt_train.sqlite", PROFILES / "gpt_sdpa_train.sqlite"


def invoke(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def test_schema_1_catalog_is_migrated_and_old_runs_compare_whole(tmp_path):
    path = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:  # a catalog as schema 1 made it: every table but the later ones
        later = ("steady_summaries", "step_stats")
        metadata.create_all(conn, tables=[t for t in metadata.sorted_tables if t.name not in later])
        conn.execute(insert(catalog_meta).values(key="schema_version", value="1"))
    engine.dispose()
    invoke("runs", "add", TRAIN, SDPA, "--db", path)  # migrates, then stores both windows
    stored = json.loads(invoke("runs", "diff", "1", "2", "--db", path, "--format", "json"))
    assert stored["verdict"] == json.loads(invoke("diff", TRAIN, SDPA, "--format", "json"))["verdict"]
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        assert conn.execute(catalog_meta.select()).first().value == str(SCHEMA_VERSION) == "3"
        conn.execute(steady_summaries.delete())  # as if stored under schema 1: the whole capture only
    engine.dispose()
    old = json.loads(invoke("runs", "diff", "1", "2", "--db", path, "--format", "json"))
    whole = build_diff(*(summarize_side([str(p)], load_rules(), "none", window="all") for p in (TRAIN, SDPA)))
    assert old["headline"]["unit"] == "per run" and old["verdict"] == whole.verdict
