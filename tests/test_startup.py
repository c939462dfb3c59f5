"""Start-up stays quick: the CLI imports what a command needs, when it runs, and nothing for --help."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from .conftest import PROFILES, ROOT

HEAVY = ("pandas", "matplotlib", "sqlalchemy", "dask", "numpy", "ncu_report")


def modules_after(code: str, env: dict | None = None) -> set[str]:
    """Top-level packages imported by a fresh interpreter after running `code`."""
    probe = (f"import sys, json\n{code}\n"
             "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True,
                          env={**os.environ, **(env or {})})
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_importing_the_cli_imports_nothing_heavy():
    loaded = modules_after("import nsys_analytics.cli.main")
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))


def test_help_imports_no_command():
    loaded = modules_after(
        "from nsys_analytics.cli.main import main\nsys.argv = ['nsys-analytics', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass")
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))


@pytest.mark.parametrize("cached", [False, True], ids=["direct", "building-the-cache"])
def test_kernels_on_a_small_profile_imports_no_pandas(cached, tmp_path):
    env = {"NSYS_ANALYTICS_CACHE": str(tmp_path), "NSYS_ANALYTICS_CACHE_MIN_SIZE": "0" if cached else "64M"}
    loaded = modules_after(
        "from nsys_analytics.cli.main import main\n"
        f"sys.argv = ['nsys-analytics', 'kernels', {str(PROFILES / 'gpt_train.sqlite')!r}, '--limit', '1']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass", env)
    assert "_duckdb" in loaded  # it did run, on DuckDB's engine
    assert "duckdb" not in loaded, "the duckdb package's Python wrappers add about 20 ms (core/duckdb_engine.py)"
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))
    assert loaded.isdisjoint(("multiprocessing", "subprocess")), "imported for other commands' work (a pool, nsys)"
    assert (tmp_path / "columnar").exists() == cached


def test_help_imports_no_command_nor_merge():
    """--help lists the commands from their records (core/registry.py), importing no command module, no merge and
    nothing of the data and output layers (about 15 ms); the summaries are checked against the commands themselves
    in tests/test_registry.py."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom nsys_analytics.cli.main import main\n"
         "sys.argv = ['nsys-analytics', '--help']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
         "print([m for m in sys.modules if m.endswith('_cmd') or 'merges' in m or m.startswith(\n"
         "('nsys_analytics.data', 'nsys_analytics.output', 'nsys_analytics.cli.outputs'))])"],
        capture_output=True, text=True, cwd=ROOT, check=True)
    assert "profile" in done.stdout and "Commands:" in done.stdout  # the listing was printed
    assert done.stdout.splitlines()[-1] == "[]"


def test_help_and_the_cli_load_no_duckdb():
    for code in ("import nsys_analytics.cli.main",
                 "from nsys_analytics.cli.main import main\nsys.argv = ['nsys-analytics', '--help']\n"
                 "try:\n    main()\nexcept SystemExit:\n    pass"):
        assert modules_after(code).isdisjoint({"duckdb", "_duckdb"})


@pytest.fixture(scope="module")
def two_run_catalog(tmp_path_factory):
    db = tmp_path_factory.mktemp("catalog") / "runs.db"
    for name in ("gpt_train", "gpt_sdpa_train"):
        subprocess.run([sys.executable, "-m", "nsys_analytics", "runs", "add", str(PROFILES / f"{name}.sqlite"),
                        "--db", str(db), "--tag", "branch=main"], cwd=ROOT, check=True, capture_output=True)
    return db


@pytest.mark.parametrize("args", [["list"], ["list", "--tag", "branch=main"], ["show", "1"], ["diff", "1", "2"],
                                  ["trend", "--metric", "category:matmul"]], ids=lambda a: " ".join(a))
def test_catalog_reads_load_no_duckdb_nor_the_postgresql_dialect(args, two_run_catalog):
    """`runs list/show/diff/trend` read the catalog only: no DuckDB, pandas or NumPy, and on an SQLite catalog not
    SQLAlchemy's PostgreSQL dialects (what keeps them under half a second, docs/catalog.md)."""
    argv = ["nsys-analytics", "runs", *args, "--db", str(two_run_catalog)]
    probe = (f"from nsys_analytics.cli.main import main\nsys.argv = {argv!r}\n"
             "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith('sqlalchemy.dialects.postgresql'))))")
    loaded = modules_after(probe)
    assert "sqlalchemy" in loaded  # it did read the catalog
    assert loaded.isdisjoint({"duckdb", "_duckdb", "pandas", "numpy", "matplotlib"}), sorted(loaded)
    done = subprocess.run([sys.executable, "-c", f"import sys, json\n{probe}"], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_the_command_ends_without_teardown_with_its_output_and_exit_code(tmp_path):
    """`nsys-analytics` (cli.main.run) ends the process without the interpreter's teardown: every row written
    before it, piped or not, and the command's own exit code (0, 1 for a missing profile, 2 for a usage error)."""
    import csv
    import io
    import sqlite3

    profile = PROFILES / "gpt_train.sqlite"
    with sqlite3.connect(f"file:{profile}?mode=ro", uri=True) as con:
        names = {n for (n,) in con.execute("SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
                                           "JOIN StringIds AS s ON s.id = k.demangledName")}
    command = [sys.executable, "-m", "nsys_analytics"]
    env = {**os.environ, "NSYS_ANALYTICS_CACHE": str(tmp_path)}
    done = subprocess.run([*command, "sql", str(profile), "SELECT DISTINCT name FROM kernels", "--format", "csv"],
                          capture_output=True, text=True, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    assert {row[0] for row in csv.reader(io.StringIO(done.stdout))} - {"name"} == names
    missing = subprocess.run([*command, "kernels", str(tmp_path / "none.sqlite")], capture_output=True, text=True,
                             cwd=ROOT, env=env)
    assert missing.returncode == 1 and "no such file" in missing.stderr
    usage = subprocess.run([*command, "kernels", str(profile), "--limit", "x"], capture_output=True, text=True,
                           cwd=ROOT, env=env)
    assert usage.returncode == 2 and "--limit" in usage.stderr
