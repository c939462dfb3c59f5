"""Hostile values inside a valid export, and memory pressure (issue 30, §3 and the first point of §4; README: Bad
input). One policy: a value that cannot be right is skipped and counted (the SKIPPED note), text that is not UTF-8 is
decoded with replacement characters, a name missing from StringIds shows as [string N missing], and anything else is
refused with exit 1 naming the file (and the table where it can be found); never exit 2 "SQL error" or 3.

The cases are made by bench/sweep_inputs.py (HOSTILE_VALUES: a copy of a real fixture corrupted with SQL). Expected
answers come from the same report of a clean copy with the bad rows deleted (which the oracle tests hold equal to
`nsys stats`), from counts taken with sqlite3, or from Python's own arithmetic."""

from __future__ import annotations

import gzip
import importlib.util
import json
import shutil
import sqlite3
import statistics
import sys
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import PROFILES, ROOT

SOURCE = PROFILES / "gpt_forward.sqlite"
K, R, N = "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"
LIMIT = 2**62  # raw_schema.TIME_LIMIT_NS


def _sweep_module():
    spec = importlib.util.spec_from_file_location("sweep_inputs", ROOT / "bench" / "sweep_inputs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


SWEEP = _sweep_module()


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """hostile(name) -> a fresh copy of SOURCE with the values of HOSTILE_VALUES[name] (made once per module)."""
    folder = tmp_path_factory.mktemp("hostile-values")
    made: dict[str, Path] = {}

    def make(name: str) -> Path:
        if name not in made:
            (folder / name).mkdir()
            made[name] = SWEEP.make_hostile(name, folder / name / f"{name}.sqlite")
        return made[name]

    return make


def run(*args, env: dict | None = None):
    return CliRunner().invoke(cli, [str(a) for a in args], env=env)


def ok(*args) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result.stdout


def one_line_error(result, code: int, *words: str) -> str:
    assert result.exit_code == code, result.output
    lines = [line for line in result.stderr.strip().splitlines() if not line.startswith(("Note: ", "wrote "))]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "SQL error" not in lines[0] and "internal error" not in lines[0]
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def clean_copy(path: Path, folder: Path, *deletes: str) -> Path:
    """A copy of `path` with rows deleted by `deletes` (SQL), the reference a report of `path` must equal."""
    folder.mkdir(exist_ok=True)
    target = folder / f"clean-{path.name}"
    shutil.copy(path, target)
    with sqlite3.connect(target) as con:
        for statement in deletes:
            con.execute(statement)
    con.close()
    return target


def count(path: Path, query: str) -> int:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute(query).fetchone()[0]
    finally:
        con.close()


# -- invalid UTF-8 ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["utf8-strings", "utf8-nvtx"])
@pytest.mark.parametrize("args", [["kernels"], ["nvtx"], ["breakdown"], ["diagnose"]])
def test_invalid_utf8_is_decoded_with_replacement_characters(hostile, case, args):
    out = json.dumps(json.loads(ok(*args, hostile(case), "--format", "json")), ensure_ascii=False)
    if (case, args[0]) in (("utf8-strings", "kernels"), ("utf8-nvtx", "nvtx")):
        assert "\ufffd" in out


@pytest.mark.parametrize("case", ["utf8-strings", "utf8-nvtx"])
def test_perfetto_export_of_invalid_utf8_is_valid_json(hostile, tmp_path, case):
    out = tmp_path / "trace.json.gz"
    ok("export", hostile(case), "--to", "perfetto", "-o", out)
    with gzip.open(out, "rt", encoding="utf-8", errors="strict") as f:
        trace = json.load(f)
    names = {e.get("name", "") for e in trace["traceEvents"]}
    assert any("\ufffd" in n for n in names)  # the replacement character, not dropped bytes or invalid JSON


def test_nvtx_names_keep_the_ascii_around_the_replacement(hostile):
    # C3 28 FF + text ('r' where the range had only a registered string): C3 starts a 2-byte sequence that 28 does
    # not continue, FF is never valid; Python's decoder gives U+FFFD ( U+FFFD r, and so must the report
    out = ok("nvtx", hostile("utf8-nvtx"), "--format", "csv")
    assert "," + ":" + b"\xc3(\xffr".decode("utf-8", "replace") + "\n" in out


# -- times near INT64 max: skipped and counted -------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["int64-kernel-end", "int64-kernel-both", "int64-min-start"])
def test_kernels_with_times_no_clock_gives_are_skipped_like_deleted(hostile, tmp_path, case):
    path = hostile(case)
    beyond = count(path, f'SELECT count(*) FROM {K} WHERE start <= -{LIMIT} OR start >= {LIMIT} '
                         f'OR "end" <= -{LIMIT} OR "end" >= {LIMIT}')
    assert beyond > 0
    clean = clean_copy(path, tmp_path, f'DELETE FROM {K} WHERE start <= -{LIMIT} OR start >= {LIMIT} '
                                       f'OR "end" <= -{LIMIT} OR "end" >= {LIMIT}')
    result = run("kernels", path, "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout == ok("kernels", clean, "--format", "csv")
    rows = "row" if beyond == 1 else "rows"
    assert f"SKIPPED {beyond:,} kernel {rows} in every report: {beyond:,} with a time beyond 2^62 ns" in result.stderr


@pytest.mark.parametrize("args", [["diagnose"], ["nvtx-kernels"], ["timeline", "-o", "{O}.png"],
                                  ["export", "--to", "perfetto", "-o", "{O}.json.gz"], ["diff", SOURCE],
                                  ["html", "-o", "{O}.html"]])
@pytest.mark.parametrize("case", ["int64-kernel-end", "int64-min-start", "int64-nvtx-api"])
def test_times_near_int64_max_never_overflow(hostile, tmp_path, case, args):
    args = [str(a).replace("{O}", str(tmp_path / "out")) for a in args]
    result = run(args[0], hostile(case), *args[1:])
    assert result.exit_code == 0, result.output


def test_durations_whose_sum_exceeds_int64_answer_or_refuse_the_file(hostile, tmp_path):
    path = hostile("int64-sum")  # three kernels of almost 2^63 ns each: sound times, a sum beyond 64 bits
    for args in (["kernels"], ["diagnose"], ["nvtx-kernels"], ["export", "--to", "perfetto", "-o", tmp_path / "t.json"]):
        result = run(args[0], path, *args[1:])
        assert result.exit_code == 0, result.output
    added = run("runs", "add", path, "--db", tmp_path / "runs.db")  # the catalog stores 64-bit integers
    assert added.exit_code in (0, 1), added.output
    if added.exit_code:
        one_line_error(added, 1, str(path), "no report can use")


def test_nvtx_and_api_rows_with_times_no_clock_gives_are_noted(hostile):
    path = hostile("int64-nvtx-api")
    nvtx = count(path, f'SELECT count(*) FROM {N} WHERE "end" >= {LIMIT}')
    api = count(path, f'SELECT count(*) FROM {R} WHERE "end" >= {LIMIT}')
    result = run("diagnose", path)
    assert result.exit_code == 0, result.output
    assert f"SKIPPED {nvtx:,} NVTX rows in every report: {nvtx:,} with a time beyond 2^62 ns" in result.stderr
    assert f"SKIPPED {api:,} CUDA runtime API rows in every report: {api:,} with a time beyond" in result.stderr


# -- NVTX / API rows ending before they start: skipped and counted, not summed -----------------------------------------
def test_nvtx_rows_ending_before_their_start_are_skipped_like_deleted(hostile, tmp_path):
    path = hostile("end-before-start")
    negative = count(path, f'SELECT count(*) FROM {N} WHERE "end" < start')
    assert negative > 0
    clean = clean_copy(path, tmp_path, f'DELETE FROM {N} WHERE "end" < start')
    result = run("nvtx", path, "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout == ok("nvtx", clean, "--format", "csv")
    assert f"SKIPPED {negative:,} NVTX rows in every report: {negative:,} ending before its start" in result.stderr


def test_api_rows_ending_before_their_start_are_skipped_like_deleted(hostile, tmp_path):
    path = hostile("end-before-start")
    negative = count(path, f'SELECT count(*) FROM {R} WHERE "end" < start')
    clean = clean_copy(path, tmp_path, f'DELETE FROM {R} WHERE "end" < start', f'DELETE FROM {N} WHERE "end" < start')
    query = "SELECT name, count(*) AS n, sum(duration_ns) AS t, min(duration_ns) AS lo FROM cuda_api GROUP BY name"
    result = run("sql", path, query + " ORDER BY name", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout == ok("sql", clean, query + " ORDER BY name", "--format", "csv")
    assert f"SKIPPED {negative:,} CUDA runtime API rows in every report: {negative:,} ending before" in result.stderr


@pytest.fixture
def through_cache(monkeypatch, tmp_path):
    """Every profile read through the columnar cache, which stores each event table without its bad rows."""
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "0")


@pytest.mark.parametrize("gaps", [False, True], ids=["rowids-whole", "rowids-with-gaps"])
def test_cached_api_and_nvtx_rows_ending_before_their_start_are_noted(hostile, tmp_path, through_cache, gaps):
    # The cache proves a table has no bad row from its rowids alone when its rows fill their span; with gaps (sound
    # rows deleted) the rows are counted in the export instead. Either way the counts are those of the rows.
    path = hostile("end-before-start")
    if gaps:
        path = clean_copy(path, tmp_path, f'DELETE FROM {R} WHERE rowid % 7 = 3 AND "end" >= start',
                          f'DELETE FROM {N} WHERE rowid % 5 = 2 AND "end" >= start')
    api = count(path, f'SELECT count(*) FROM {R} WHERE "end" < start')
    nvtx = count(path, f'SELECT count(*) FROM {N} WHERE "end" < start')
    assert api > 0 and nvtx > 0
    for _ in ("cold", "warm"):
        result = run("diagnose", path)
        assert result.exit_code == 0, result.output
        assert f"SKIPPED {api:,} CUDA runtime API rows in every report: {api:,} ending before" in result.stderr
        assert f"SKIPPED {nvtx:,} NVTX rows in every report: {nvtx:,} ending before its start" in result.stderr


@pytest.mark.parametrize("gaps", [False, True], ids=["rowids-whole", "rowids-with-gaps"])
def test_cached_sound_event_tables_note_nothing(hostile, tmp_path, through_cache, gaps, monkeypatch):
    # and where the rowids prove it, the export's table is not scanned a second time to count bad rows
    from nsys_analytics.data import bad_rows

    scans = []
    monkeypatch.setattr(bad_rows, "count_events", lambda *a: scans.append(a[2]) or dict.fromkeys(
        ("incomplete", "negative", "out_of_range"), 0))
    path = hostile("end-before-start")
    deletes = [f'DELETE FROM {R} WHERE "end" < start', f'DELETE FROM {N} WHERE "end" < start']
    if not gaps:  # the remaining rows renumbered from 1, as an export writes them
        deletes += [f"CREATE TABLE r2 AS SELECT * FROM {R} ORDER BY rowid", f"DROP TABLE {R}",
                    f"ALTER TABLE r2 RENAME TO {R}", f"CREATE TABLE n2 AS SELECT * FROM {N} ORDER BY rowid",
                    f"DROP TABLE {N}", f"ALTER TABLE n2 RENAME TO {N}"]
    clean = clean_copy(path, tmp_path, *deletes)
    span = count(clean, f"SELECT max(rowid) - min(rowid) + 1 - count(*) FROM {R}")
    assert (span > 0) == gaps
    for _ in ("cold", "warm"):
        result = run("diagnose", clean)
        assert result.exit_code == 0, result.output
        assert "SKIPPED" not in result.stderr, result.stderr
    assert (R in scans and N in scans) == gaps, scans


# -- text or blobs in integer columns: the file refused, naming it, the table and the column ---------------------------
@pytest.mark.parametrize("case, table, column, kind", [
    ("text-in-start", K, "start", "text"), ("blob-in-device", K, "deviceId", "a blob"),
    ("text-in-nvtx", N, "start", "text"), ("blob-in-name-id", R, "nameId", "a blob"),
    ("text-in-ids", K, "demangledName", "text")])
def test_wrong_type_in_an_integer_column_refuses_the_file(hostile, case, table, column, kind):
    path = hostile(case)
    command = "nvtx" if table == N else "nvtx-kernels" if table == R else "kernels"
    result = run(command, path)
    one_line_error(result, 1, str(path), f"table {table}, column {column} holds {kind}")


@pytest.mark.parametrize("args", [["info"], ["diagnose"], ["timeline", "-o", "{O}.png"], ["html", "-o", "{O}.html"],
                                  ["export", "--to", "perfetto", "-o", "{O}.json.gz"], ["runs", "add", "--db", "{O}.db"],
                                  ["ranks", SOURCE], ["diff", SOURCE]])
def test_wrong_type_is_one_line_exit_1_from_every_command(hostile, tmp_path, args):
    args = [str(a).replace("{O}", str(tmp_path / "out")) for a in args]
    path = hostile("text-in-start")
    words = args[:2] if args[0] == "runs" else args[:1]
    result = run(*words, path, *args[len(words):])
    assert result.exit_code in (0, 1), result.output
    if result.exit_code:
        one_line_error(result, 1, str(path))


@pytest.mark.parametrize("case", ["blob-in-strings", "utf8-blob-in-strings"])
@pytest.mark.parametrize("args", [["kernels"], ["diagnose"], ["info"], ["sql", "SELECT count(*) FROM kernels"]])
def test_a_blob_in_a_text_column_refuses_the_file_naming_it(hostile, case, args):
    """A name stored as a blob: its bytes not UTF-8 made DuckDB's message unreadable to Python (an internal error,
    exit 3); as UTF-8, the refusal quoted DuckDB's own words. Both name the table and column now."""
    path = hostile(case)
    result = run(args[0], path, *args[1:])
    one_line_error(result, 1, str(path), "table StringIds, column value holds a blob where nsys writes text")


# -- names missing from StringIds --------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["missing-strings", "dangling-ids", "no-stringids"])
def test_missing_names_show_as_stand_ins(hostile, tmp_path, case):
    path = hostile(case)
    known = "SELECT NULL WHERE 0" if case == "no-stringids" else "SELECT id FROM StringIds"
    missing = count(path, f"SELECT count(*) FROM (SELECT demangledName AS i FROM {K} UNION SELECT shortName FROM {K} "
                          f"UNION SELECT mangledName FROM {K}) WHERE i IS NOT NULL AND i NOT IN ({known})")
    assert missing > 0
    result = run("kernels", path, "--format", "csv", "--limit", "1000")
    assert result.exit_code == 0, result.output
    assert "[string " in result.stdout and " missing]" in result.stdout
    names = "name" if missing == 1 else "names"
    assert f"Note: {path}: " in result.stderr
    noted = [line for line in result.stderr.splitlines() if "of CUPTI_ACTIVITY_KIND_KERNEL missing" in line]
    assert noted and f": {missing:,} {names} of CUPTI_ACTIVITY_KIND_KERNEL missing from StringIds" in noted[0], noted


@pytest.mark.parametrize("cached", [False, True], ids=["direct", "through-cache"])
def test_names_missing_are_those_of_the_sound_rows(tmp_path, monkeypatch, cached):
    # Read directly, the scan that counts a table's bad rows also gathers the names its sound rows use, and no second
    # scan looks for them; through the cache, the stored copy is searched. Either way a missing name counts only
    # where a row that compat keeps names it: here one sound kernel and one sound API call each name a missing id,
    # and one bad row of each table names another.
    from nsys_analytics.data import bad_rows

    path = clean_copy(SOURCE, tmp_path / "named",
                      f"UPDATE {K} SET demangledName = 990001 WHERE rowid = 10",
                      f'UPDATE {K} SET shortName = 990002, "end" = start - 1000 WHERE rowid = 20',
                      f"UPDATE {R} SET nameId = 990003 WHERE rowid = 5",
                      f'UPDATE {R} SET nameId = 990004, "end" = start - 1 WHERE rowid = 6')
    for table, names in ((K, ("demangledName", "shortName", "mangledName")), (R, ("nameId",))):
        named = " UNION ".join(f'SELECT {c} AS i FROM {table} WHERE "end" >= start' for c in names)
        assert count(path, f"SELECT count(*) FROM ({named}) WHERE i NOT IN (SELECT id FROM StringIds)") == 1
    if cached:
        monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(tmp_path / "cache"))
        monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "0")
    else:
        def scanned_again(*args):
            raise AssertionError(f"a second scan for the names of {args[2]}")

        monkeypatch.setattr(bad_rows, "missing_strings", scanned_again)
    result = run("info", path, "--format", "json")
    assert result.exit_code == 0, result.output
    for table in (K, R):
        assert f": 1 name of {table} missing from StringIds" in result.stderr, result.stderr


@pytest.mark.parametrize("case", ["missing-strings", "dangling-ids", "no-stringids"])
def test_missing_names_html_diff_and_runs_add(hostile, tmp_path, case):
    path = hostile(case)
    assert run("html", path, "-o", tmp_path / "page.html").exit_code == 0
    diff = run("diff", SOURCE, path, "--format", "json")
    assert diff.exit_code == 0, diff.output
    json.loads(diff.stdout)
    added = run("runs", "add", path, "--db", tmp_path / "runs.db")
    assert added.exit_code == 0, added.output


# -- NULLs ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["nulls-some", "nulls-one-column", "nulls-all"])
@pytest.mark.parametrize("args", [["info"], ["info", "--format", "json"], ["html", "-o", "{O}.html"],
                                  ["timeline", "-o", "{O}.png"], ["export", "--to", "perfetto", "-o", "{O}.json.gz"],
                                  ["kernels"], ["nvtx"], ["breakdown"], ["diagnose"]])
def test_nulls_give_an_answer_or_one_line(hostile, tmp_path, case, args):
    args = [str(a).replace("{O}", str(tmp_path / "out")) for a in args]
    result = run(args[0], hostile(case), *args[1:])
    assert result.exit_code in (0, 1), result.output
    if result.exit_code:
        one_line_error(result, 1, str(hostile(case)))
    if "--format" in args and result.exit_code == 0:
        json.loads(result.stdout)


def test_every_value_null_lists_no_gpu_thread_or_process(hostile):
    path = hostile("nulls-all")
    result = run("info", path)
    assert result.exit_code == 0, result.output
    assert "None" not in result.stdout and "none recorded" in result.stdout
    gpus = count(path, "SELECT count(*) FROM TARGET_INFO_GPU")
    assert f"SKIPPED {gpus:,} GPU row" in result.stderr


def test_nulls_where_nsys_may_write_none_keep_the_rows(hostile):
    path = hostile("nulls-one-column")  # gridX and correlationId NULL: the rows stay
    assert count(path, f"SELECT count(*) FROM {K} WHERE gridX IS NULL") > 0
    result = run("kernels", path, "--format", "csv")
    assert result.exit_code == 0 and "SKIPPED" not in result.stderr, result.output
    assert result.stdout == ok("kernels", SOURCE, "--format", "csv")


def test_kernels_without_device_stream_or_name_are_skipped_and_counted(hostile):
    path = hostile("nulls-some")
    bad = count(path, f"SELECT count(*) FROM {K} WHERE deviceId IS NULL OR streamId IS NULL OR demangledName IS NULL")
    result = run("kernels", path)
    assert result.exit_code == 0, result.output
    assert f"SKIPPED {bad:,} kernel rows in every report: {bad:,} without a device, stream or name" in result.stderr


# -- identical durations: a standard deviation of 0.0 as nsys prints it, never a square root of a negative -------------
def test_identical_long_durations_give_stddev_zero(hostile):
    path = hostile("identical-durations")
    for command, column in (("kernels", "StdDev (ns)"), ("nvtx", "StdDev (ns)"), ("nvtx-kernels", "StdDev (ns)")):
        result = run(command, path, "--format", "csv")
        assert result.exit_code == 0, result.output
        lines = result.stdout.strip().splitlines()
        header = lines[0].split(",")
        instances = header.index("Instances") if "Instances" in header else header.index("Kern Inst")
        stddev = header.index(column)
        rows = [line.split(",") for line in lines[1:]]
        assert rows and all(r[stddev] == "0.0" for r in rows if int(r[instances]) > 1), command


def _variance(con, values: list[int]):
    body = "\n".join(line for line in (ROOT / "sql" / "macros" / "exact_variance.sql").read_text().splitlines()
                     if not line.startswith("--"))
    con.execute(f"CREATE OR REPLACE MACRO exact_variance(x) AS ({body})")
    con.execute("CREATE OR REPLACE TABLE v (x BIGINT)")
    con.executemany("INSERT INTO v VALUES (?)", [(v,) for v in values])
    return con.execute("SELECT exact_variance(x) FROM v").fetchone()[0]


@pytest.mark.parametrize("values", [
    [3_000_000_000_000_001] * 100, [2**63 - 1] * 5, [1376] * 4, [17_504, 17_856, 18_240, 17_900],
    [1, 2, 4, 2**40 + 7], [10**12 + i % 3 for i in range(1000)], [-(2**62), 2**62 - 1, 0], [5]])
def test_exact_variance_matches_python(values):
    con = duckdb.connect()
    got = _variance(con, values)
    if len(values) < 2:
        assert got is None
        return
    expected = statistics.variance(values)  # exact rationals, rounded once
    assert got >= 0
    assert got == pytest.approx(float(expected), rel=1e-9, abs=1e-9)


def _sql_body(folder: str, name: str) -> str:
    return "\n".join(line for line in (ROOT / "sql" / folder / f"{name}.sql").read_text().splitlines()
                     if not line.startswith("--"))


@pytest.mark.parametrize("view", ["_kernel_name_stats", "_kernel_launch_stats"])
@pytest.mark.parametrize("values", [
    [3_000_000_000_000_001] * 100, [2**62 - 11] * 3, [1376] * 4, [17_504, 17_856, 18_240, 17_900],
    [1, 2, 4, 2**40 + 7], [10**12 + i % 3 for i in range(1000)], [2**62 - 10, 5, 5, 2**41], [5], [7, 7, 9, 1, 7, 9]])
def test_kernel_stats_views_match_python(view, values):
    """The stored kernel statistics, found from each duration's count, against Python's exact statistics: the median
    interpolated as median() does; the variance exact where the integer sums fit, from distances to the mean beyond."""
    con = duckdb.connect()
    con.execute(f"CREATE MACRO counted_median(x, upto, rows) AS ({_sql_body('macros', 'counted_median')})")
    con.execute(f"CREATE MACRO counted_variance(x, n, mean) AS ({_sql_body('macros', 'counted_variance')})")
    con.execute("CREATE SCHEMA compat")
    con.execute(f'CREATE TABLE compat.{K} (start BIGINT, "end" BIGINT, demangledName BIGINT, shortName BIGINT, '
                "mangledName BIGINT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT)")
    # one name, one launch configuration; a second name with one kernel beside it
    con.executemany(f"INSERT INTO compat.{K} VALUES (?, ?, 1, 2, NULL, 4, 1, 1, 128, 1, 1)",
                    [(i, i + v) for i, v in enumerate(values)])
    con.execute(f"INSERT INTO compat.{K} VALUES (0, 10, 9, NULL, NULL, 1, 1, 1, 32, 1, 1)")
    rows = con.execute(f"SELECT name_kind, num, total, med, min, max, variance FROM ({_sql_body('views', view)}) "
                       "WHERE group_name_id IN (1, 2) ORDER BY name_kind").fetchall()
    assert [r[0] for r in rows] == ["demangled", "mangled", "short"]  # mangled falls back to the demangled name
    for _, num, total, med, low, high, variance in rows:
        assert (num, total, low, high) == (len(values), sum(values), min(values), max(values))
        assert med == float(statistics.median(values))
        if len(values) == 1:
            assert variance is None
        else:
            expected = statistics.variance(values)
            assert variance >= 0 and variance == pytest.approx(float(expected), rel=1e-9, abs=1e-9)
            if len(set(values)) == 1:
                assert variance == 0


# -- memory ------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["lots", "80%", "0", "-1GB", "1 GBs"])
def test_a_bad_memory_setting_is_a_usage_error(value):
    result = run("kernels", SOURCE, env={"NSYS_ANALYTICS_MEMORY": value})
    one_line_error(result, 2, "NSYS_ANALYTICS_MEMORY", repr(value))


@pytest.mark.parametrize("args", [["kernels"], ["info"], ["nvtx"], ["diagnose"], ["breakdown"]])
def test_out_of_memory_is_one_line_naming_the_limit_and_the_variable(args):
    result = run(*args, SOURCE, env={"NSYS_ANALYTICS_MEMORY": "2MB"})
    one_line_error(result, 1, "out of memory", "DuckDB may use 2MB", "NSYS_ANALYTICS_MEMORY")


def test_html_under_memory_pressure_shows_failed_sections_and_exits_1(tmp_path):
    page = tmp_path / "page.html"
    result = run("html", SOURCE, "-o", page, env={"NSYS_ANALYTICS_MEMORY": "32MB"})
    line = one_line_error(result, 1, "NSYS_ANALYTICS_MEMORY")
    if page.exists():  # the page was written: its failed sections say so, never "none" findings
        text = page.read_text()
        assert "could not be made and show as failed" in line
        assert 'data-failed="true"' in text and "FAILED: could not be made: out of memory" in text
        if ": findings (" in line:
            assert "<b>failed</b>" in text and '<b>none</b><span title="findings">' not in text


def test_out_of_memory_under_an_address_space_limit_is_one_line(tmp_path):
    """A separate process under `ulimit -v` (1.5 GiB, as the issue): DuckDB may use 1 GB and the profile fits, so it
    answers; at a third of that the process runs out early, and the error names the limit and the variable."""
    import resource
    import subprocess

    def limited(gib: float):
        def set_limit():
            resource.setrlimit(resource.RLIMIT_AS, (int(gib * 2**30), int(gib * 2**30)))

        return subprocess.run([sys.executable, "-m", "nsys_analytics", "kernels", str(SOURCE), "--limit", "1"],
                              capture_output=True, text=True, preexec_fn=set_limit, timeout=120, check=False)

    assert limited(1.5).returncode == 0
    low = limited(0.55)
    if low.returncode == 0:
        pytest.skip("the command fits in 0.55 GiB here")
    if low.returncode not in (1, 2):  # a native abort (OpenBLAS, glibc) that no handler sees
        pytest.skip(f"killed natively: {low.stderr.strip()[:200]}")
    assert "Traceback" not in low.stderr and len(low.stderr.strip().splitlines()) == 1, low.stderr
    assert "NSYS_ANALYTICS_MEMORY" in low.stderr or "OpenBLAS" in low.stderr


# -- the sweep, reduced --------------------------------------------------------------------------------------------------
def test_values_sweep_reduced(tmp_path, capsys):
    """Every HOSTILE_VALUES case and memory pressure through a few commands (make sweep runs all), each command its
    own process as a user runs it: DuckDB's SQLite reader has crashed a long test process, rarely, after many hostile
    files had gone through it (a native fault), and a crash there would take the whole suite down."""
    failures = SWEEP.values_sweep(tmp_path, SWEEP.run_process, 2,
                                  ["info-json", "kernels-json", "nvtx", "export", "diff", "runs-add"])
    assert not failures, "\n".join(failures)


def test_a_value_error_of_the_users_own_query_is_the_querys_and_a_bad_column_still_names_the_file(hostile):
    """`sql`: a conversion or overflow the query itself makes is a SQL error (exit 2), not a damaged file; a query
    that reads a column holding text where nsys writes integers still refuses the file, naming table and column."""
    own = run("sql", SOURCE, "SELECT CAST('abc' AS INTEGER)")
    assert own.exit_code == 2 and own.stderr.startswith("Error: SQL error: Conversion Error"), own.output
    overflow = run("sql", SOURCE, "SELECT 9223372036854775807 + 1")
    assert overflow.exit_code == 2 and "SQL error" in overflow.stderr, overflow.output
    bad = run("sql", hostile("text-in-start"), "SELECT sum(start_ns) FROM kernels")
    one_line_error(bad, 1, "CUPTI_ACTIVITY_KIND_KERNEL", "column start")


@pytest.mark.parametrize("table, column", [(K, "start"), (K, "demangledName"), (R, "nameId")])
def test_a_column_nsys_always_writes_renamed_away_is_refused(tmp_path, table, column):
    """An altered export (a column nsys always writes renamed away): exit 1, one line naming the table and the
    column; it read as NULLs before (every kernel "without an end", an empty report, exit 0)."""
    path = tmp_path / "altered.sqlite"
    shutil.copy(SOURCE, path)
    con = sqlite3.connect(path)
    con.execute(f'ALTER TABLE {table} RENAME COLUMN "{column}" TO "{column}_was"')
    con.commit()
    con.close()
    result = CliRunner().invoke(cli, ["kernels", str(path)])
    assert result.exit_code == 1, result.output
    assert result.output == (f"Error: {path}: table {table} has no column {column}, which nsys always writes: the "
                             "export was altered; export the report again (`nsys export --type sqlite`)\n")


def test_an_id_written_twice_in_stringids_counts_each_kernel_once(tmp_path):
    """StringIds with every id a second time under another name: the kernels are joined to their names once
    each, as in the clean file (the report was 8x the kernel time, each name split in two), and a note says so."""
    path = tmp_path / "dup.sqlite"
    shutil.copy(SOURCE, path)
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE s2 AS SELECT id, value FROM StringIds; DROP TABLE StringIds; "
                      "CREATE TABLE StringIds (id INTEGER, value TEXT); "
                      "INSERT INTO StringIds SELECT id, value FROM s2; "
                      "INSERT INTO StringIds SELECT id, value || '_dup' FROM s2; DROP TABLE s2;")
    n = con.execute("SELECT count(DISTINCT id) FROM StringIds").fetchone()[0]
    con.commit()
    con.close()
    clean = CliRunner().invoke(cli, ["kernels", str(SOURCE), "--format", "csv"]).output
    result = CliRunner().invoke(cli, ["kernels", str(path), "--format", "csv"])
    assert result.exit_code == 0 and result.stdout == clean
    assert f"StringIds holds {n:,} id(s) more than once" in result.stderr
