"""`breakdown` over a folder and any number of profiles (issue #26): one column per profile, side by side, each
equal to that profile's own breakdown."""

from __future__ import annotations

import json
import shutil
import sqlite3

from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import RANKS, rank_files

STRAGGLER = RANKS / "ddp_straggler"


def run(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout  # the JSON; notes go to stderr


def sections(*args) -> dict:
    return json.loads(run("breakdown", *args, "--format", "json", "--window", "all"))["sections"]


def gpu_time_ns(path) -> int:
    """Summed durations of the kernels, copies and memsets, read with sqlite3 alone."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return sum(con.execute(f'SELECT coalesce(sum("end" - start), 0) FROM {t}').fetchone()[0] for t in
                   ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"))
    finally:
        con.close()


def test_a_folder_of_two_ranks_equals_the_per_profile_breakdowns():
    both = sections(STRAGGLER)
    files = sorted(STRAGGLER.glob("*.sqlite"))
    for f in files:
        alone = sections(f)
        key = f.stem.replace(".", "_")
        for name in ("categories", "rollup"):
            first = "category" if name == "categories" else "group"
            mine = {r[first]: (r[f"{key}_time_ns"], r[f"{key}_time_pct"]) for r in both[name]["rows"]}
            assert {r[first]: (r["time_ns"], r["time_pct"]) for r in alone[name]["rows"]} == \
                {k: v for k, v in mine.items() if v[0]}
        assert both[f"top_{key}"]["rows"] == alone["top"]["rows"]
        # independent: every operation's time is in one category (kernel basis, whole capture)
        assert sum(r[f"{key}_time_ns"] for r in both["categories"]["rows"]) == gpu_time_ns(f)


def test_any_number_of_profiles_side_by_side(tmp_path):
    for f in rank_files("ddp4_balanced"):
        shutil.copy(f, tmp_path / f.name)
    cats = sections(tmp_path)["categories"]
    keys = [f"ddp4_balanced_{i}_time_pct" for i in range(4)]
    assert list(cats["rows"][0]) == ["category", *keys]
    for key in keys:
        assert abs(sum(r[key] for r in cats["rows"]) - 100.0) < 1e-6
    globbed = json.loads(run("breakdown", tmp_path / "*.sqlite", "--format", "json", "--window", "all"))
    assert globbed["sections"]["categories"] == cats


def test_a_folder_without_profiles_is_a_one_line_error(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    result = CliRunner().invoke(cli, ["breakdown", str(tmp_path)])
    assert result.exit_code == 1
    assert "no nsys profile among" in result.output and "Traceback" not in result.output
