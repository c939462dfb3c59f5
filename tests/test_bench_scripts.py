"""The benchmark scripts (`make bench`) are not run by the suite (they need >= 1 M-kernel profiles and minutes), so
a script broken by an edit would only show when someone measures: compile each one, and measure a real command."""

import json
import py_compile
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.mark.parametrize("script", sorted(p.name for p in BENCH.glob("*.py")))
def test_bench_script_compiles(script, tmp_path):
    py_compile.compile(str(BENCH / script), cfile=str(tmp_path / "x.pyc"), doraise=True)


def test_measure_reports_a_real_command():
    out = subprocess.run([sys.executable, str(BENCH / "measure.py"), "--", sys.executable, "-c",
                          "sum(range(3_000_000))"], capture_output=True, text=True, check=True).stdout
    row = json.loads(out)
    assert row["returncode"] == 0 and row["wall_s"] > 0 and row["cpu_s"] > 0 and row["peak_rss_mb"] > 5
