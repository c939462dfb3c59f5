"""`runs gate --metric step|gpu|kernels|range:NAME` on real catalogs (SQLite and a PostgreSQL server): verdicts
checked against NVIDIA's nvtx_sum oracle (step, range) and a brute-force reference over the export's rows (per-step
GPU busy and kernel time); the first CI push passes; bad thresholds are refused; a version-1 catalog migrates."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import oracle_csv, read_csv
from .test_catalog import PASSWORD, SDPA, TRAIN, db, pg_server  # noqa: F401 - the catalog fixtures, both backends

_OPS = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET")


def gate(*args, db: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["runs", "gate", *map(str, args), "--db", db])
    assert PASSWORD not in result.output
    return result.exit_code, result.output.strip()


def add(path, *tags, db: str) -> None:
    result = CliRunner().invoke(cli, ["runs", "add", str(path), *[f"--tag={t}" for t in tags], "--db", db])
    assert result.exit_code == 0, result.output


def per_step_reference(path, pid: int | None = None) -> tuple[list[int], list[int]]:
    """Brute force over the export: for each train_loop:step_N range (of process `pid` alone, where given), the
    kernels' summed duration and the union length of the kernels', copies' and memsets' intervals, of the operations
    whose launching runtime call (same correlation id and process) starts within the step."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    names = dict(con.execute("SELECT id, value FROM StringIds"))
    steps = [(s, e, tid >> 24) for s, e, tid, text, text_id in con.execute(
        "SELECT start, end, globalTid, text, textId FROM NVTX_EVENTS WHERE eventType IN (59, 60) ORDER BY start")
        if re.fullmatch(r"step_\d+", text or names.get(text_id, "")) and pid in (None, (tid >> 24) & 0xFFFFFF)]
    calls = {(c, tid >> 24): s for c, tid, s in con.execute(
        "SELECT correlationId, globalTid, start FROM CUPTI_ACTIVITY_KIND_RUNTIME")}
    kernel_ns, intervals = defaultdict(int), defaultdict(list)
    for table in _OPS:
        for start, end, corr, op_pid in con.execute(f"SELECT start, end, correlationId, globalPid FROM {table}"):
            launch = calls.get((corr, op_pid >> 24))
            for i, (s, e, step_pid) in enumerate(steps):
                if launch is not None and step_pid == op_pid >> 24 and s <= launch <= e:
                    intervals[i].append((start, end))
                    kernel_ns[i] += (end - start) if table.endswith("KERNEL") else 0
    con.close()
    return [kernel_ns[i] for i in range(len(steps))], [_union(intervals[i]) for i in range(len(steps))]


def _step_processes(path) -> list[int]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    names = dict(con.execute("SELECT id, value FROM StringIds"))
    pids = [tid >> 24 for tid, text, text_id in con.execute(
        "SELECT globalTid, text, textId FROM NVTX_EVENTS WHERE eventType IN (59, 60)")
        if re.fullmatch(r"step_\d+", text or names.get(text_id, ""))]
    con.close()
    return pids


def _union(intervals: list[tuple[int, int]]) -> int:
    total, reach = 0, None
    for s, e in sorted(intervals):
        if reach is None or s > reach:
            total, reach = total + e - s, e
        elif e > reach:
            total, reach = total + e - reach, e
    return total


def _mean(values) -> float:
    return sum(values) / len(values)


def _change_of(line: str) -> float:
    return float(re.search(r"\(([-+]\d+\.\d) %,", line).group(1))


@pytest.mark.parametrize("metric", ["gpu", "kernels"])
def test_per_step_gpu_metrics_fail_and_pass_as_the_brute_force_reference_says(db, metric):
    add(SDPA, "branch=main", db=db)
    add(TRAIN, "branch=main", db=db)
    pick = 1 if metric == "gpu" else 0
    base, new = _mean(per_step_reference(SDPA)[pick]), _mean(per_step_reference(TRAIN)[pick])
    expected = 100 * (new - base) / base
    assert expected > 100  # the eager-attention run launches more than twice the GPU work per step
    code, line = gate(TRAIN, "--baseline", "branch=main", "--metric", metric, db=db)
    assert code == 4 and line.startswith("FAIL (regression") and line.count("\n") == 0, line
    assert _change_of(line) == pytest.approx(expected, abs=0.051)
    assert f"{base / 1e6:.3f} ms -> {new / 1e6:.3f} ms" in line and "mean of 3 vs 3" in line
    code, line = gate(TRAIN, "--baseline", "1", "--metric", metric, "--max-regression", f"{expected + 1:.0f}%", db=db)
    assert code == 0 and line.startswith("PASS (") and "budget" in line, line
    code, line = gate("1", "--baseline", "2", "--metric", metric, "--max-regression", "0", db=db)  # faster
    assert code == 0 and line.startswith("PASS (") and _change_of(line) == pytest.approx(
        100 * (base - new) / new, abs=0.051), line


def test_step_and_range_metrics_match_nvidias_nvtx_sum(db):
    add(SDPA, "branch=main", db=db)
    rows = {p: read_csv(oracle_csv(p, "nvtx_sum"))[1:] for p in (SDPA, TRAIN)}
    steps = {p: _mean([int(r[1]) for r in rows[p] if r[-1].startswith("train_loop:step_")]) for p in rows}
    forward = {p: next(float(r[3]) for r in rows[p] if r[-1] == ":forward") for p in rows}  # Avg (ns)
    code, line = gate(TRAIN, "--baseline", "branch=main", db=db)  # the default: step
    assert code == 4 and "Step time (train_loop:step_*" in line, line
    assert _change_of(line) == pytest.approx(100 * (steps[TRAIN] / steps[SDPA] - 1), abs=0.051)
    code, line = gate(TRAIN, "--baseline", "branch=main", "--metric", "range:forward", db=db)
    assert code == 4 and "Range forward" in line, line
    assert _change_of(line) == pytest.approx(100 * (forward[TRAIN] / forward[SDPA] - 1), abs=0.051)
    code, line = gate(TRAIN, "--baseline", "1", "--metric", "range:forward", "--max-regression", "60", db=db)
    assert code == 0 and line.startswith("PASS"), line


def test_the_first_push_of_the_ci_workflow_passes_with_a_note(db):
    """docs/catalog.md's workflow: `runs add NEW --tag branch=main` then `runs gate NEW --baseline branch=main`."""
    add(TRAIN, "branch=main", "commit=abc", db=db)
    for metric in ("step", "gpu", "kernels", "range:forward"):
        code, line = gate(TRAIN, "--baseline", "branch=main", "--metric", metric, db=db)
        assert code == 0 and line.startswith("PASS (no earlier baseline") and line.count("\n") == 0, line
    add(SDPA, "branch=main", "commit=def", db=db)  # the second push compares with the first
    code, line = gate(SDPA, "--baseline", "branch=main", "--metric", "gpu", db=db)
    assert code == 0 and "vs run 1" in line and _change_of(line) < -50, line
    code, line = gate("1", "--baseline", "branch=main", db=db)  # run 1 has no earlier run: run 2 came after it
    assert code == 0 and "no earlier baseline" in line, line
    code, line = gate(TRAIN, "--baseline", "branch=nothing", db=db)  # a tag no run has: a mistake, not a first push
    assert code == 2 and "no run tagged branch=nothing" in line, line


@pytest.mark.parametrize("threshold", ["nan", "inf", "-inf", "-1", "-0.5%", "NaN%", "five"])
def test_thresholds_that_are_not_a_finite_non_negative_percentage_are_refused(tmp_path, threshold):
    db = str(tmp_path / "runs.db")
    add(SDPA, "branch=main", db=db)
    code, line = gate(TRAIN, "--baseline", "1", f"--max-regression={threshold}", db=db)
    assert code == 2 and line.count("\n") == 0 and "--max-regression" in line and "Traceback" not in line, line


@pytest.mark.parametrize("metric", ["bogus", "range:", "gpu:x", "step:forward"])
def test_bad_metrics_are_refused(tmp_path, metric):
    db = str(tmp_path / "runs.db")
    add(SDPA, "branch=main", db=db)
    code, line = gate(TRAIN, "--baseline", "1", "--metric", metric, db=db)
    assert code == 2 and line.count("\n") == 0 and "--metric" in line, line


@pytest.mark.parametrize("metric", ["kernel:nosuch", "category:nosuch", "range:nosuch"])
def test_a_trend_of_a_name_no_run_has_is_refused(tmp_path, metric):
    """A misspelt name would read as a metric without values: exit 2, one line; a name some run has is a trend."""
    db = str(tmp_path / "runs.db")
    add(SDPA, "branch=main", db=db)
    result = CliRunner().invoke(cli, ["runs", "trend", "--metric", metric, "--db", db])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "nosuch" in result.output, result.output
    kept = CliRunner().invoke(cli, ["runs", "trend", "--metric", metric.replace("nosuch", "matmul"), "--db", db])
    assert kept.exit_code == (0 if metric.startswith("category") else 2), kept.output


def test_a_range_new_does_not_have_is_refused(tmp_path):
    db = str(tmp_path / "runs.db")
    add(SDPA, "branch=main", db=db)
    code, line = gate(TRAIN, "--baseline", "1", "--metric", "range:no_such_range", db=db)
    assert code == 2 and "no NVTX range 'no_such_range'" in line, line


def test_a_version_1_catalog_migrates_and_its_old_runs_gate_on_step_only(tmp_path):
    """A catalog as version 1 wrote it (no step_stats table) opens, keeps its runs, and gains the table."""
    path = tmp_path / "runs.db"
    add(SDPA, "branch=main", db=str(path))
    con = sqlite3.connect(path)
    con.execute("DROP TABLE step_stats")
    con.execute("UPDATE catalog_meta SET value = '1' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    code, line = gate(TRAIN, "--baseline", "branch=main", db=str(path))
    assert code == 4 and "Step time" in line, line
    code, line = gate(TRAIN, "--baseline", "branch=main", "--metric", "gpu", db=str(path))  # run 1 stored no figures
    assert code == 0 and "no earlier baseline" in line and "gpu busy time per step stored" in line.lower(), line
    code, line = gate(TRAIN, "--baseline", "1", "--metric", "kernels", db=str(path))
    assert code == 2 and "run 1 has no Kernel time per step stored" in line, line
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT value FROM catalog_meta WHERE key = 'schema_version'").fetchone() == ("3",)
        assert con.execute("SELECT count(*) FROM step_stats").fetchone() == (0,)
    add(TRAIN, "branch=main", db=str(path))  # a run added now stores its figures
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT run_id, metric, instances FROM step_stats ORDER BY metric").fetchall() == [
            (2, "gpu", 3), (2, "kernels", 3)]
    code, line = gate(SDPA, "--baseline", "2", "--metric", "gpu", db=str(path))
    assert code == 0 and "vs run 2" in line and _change_of(line) < -50, line


def test_per_step_figures_are_remembered_for_the_files_content(tmp_path, cache_folder, monkeypatch):
    """A second add of the same file (another catalog, or `runs gate` after `runs add`) reads them back."""
    from nsys_analytics.capabilities.catalog import steps

    monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "0")  # the fixtures are small
    computed = []
    compute = steps._compute
    monkeypatch.setattr(steps, "_compute", lambda *a: computed.append(a) or compute(*a))
    copy = tmp_path / "train.sqlite"
    copy.write_bytes(TRAIN.read_bytes())
    for name in ("a", "b"):
        add(copy, "branch=main", db=str(tmp_path / f"{name}.db"))
    assert len(computed) == 1 and len(list((cache_folder / "summaries").glob("*.steps"))) == 1
    rows = [sqlite3.connect(tmp_path / f"{n}.db").execute("SELECT * FROM step_stats ORDER BY metric").fetchall()
            for n in "ab"]
    kernels, busy = per_step_reference(TRAIN)
    assert rows[0] == rows[1] and [r[5] for r in rows[0]] == [sum(busy), sum(kernels)]  # total_ns
    copy.write_bytes(TRAIN.read_bytes() + b"\0")  # new content, new identity: computed again
    add(copy, "branch=main", db=str(tmp_path / "c.db"))
    assert len(computed) == 2


def _stored(path, metric: str) -> list[tuple]:
    with sqlite3.connect(path) as con:
        return con.execute("SELECT rank, instances, total_ns FROM step_stats WHERE metric = ? ORDER BY rank",
                           (metric,)).fetchall()


def test_per_step_figures_of_ranks_and_of_a_report_of_several_processes(tmp_path):
    """Two ranks added as one run (one row per rank), and one report holding both processes of a DDP launch: its
    processes are its ranks (a row each, each process's operations in its own steps), totals equal to the
    brute-force reference of each process."""
    from .conftest import rank_files

    db = tmp_path / "runs.db"
    straggler = rank_files("ddp_straggler")
    result = CliRunner().invoke(cli, ["runs", "add", *map(str, straggler), "--ranks", "--db", str(db)])
    assert result.exit_code == 0, result.output
    refs = [per_step_reference(p) for p in straggler]
    assert _stored(db, "kernels") == [(r, len(k), sum(k)) for r, (k, _) in enumerate(refs)]
    assert _stored(db, "gpu") == [(r, len(b), sum(b)) for r, (_, b) in enumerate(refs)]
    [whole] = rank_files("ddp_whole")
    add(whole, "branch=main", db=str(db))
    diagnosed = tmp_path / "diagnosed.db"  # the ranks' summaries made beside their findings
    result = CliRunner().invoke(cli, ["runs", "add", str(whole), "--diagnose", "--db", str(diagnosed)])
    assert result.exit_code == 0, result.output
    pids = sorted({p & 0xFFFFFF for p in _step_processes(whole)})
    refs = [per_step_reference(whole, pid) for pid in pids]
    for path, run in ((db, 2), (diagnosed, 1)):
        with sqlite3.connect(path) as con:
            for metric, which in (("kernels", 0), ("gpu", 1)):
                rows = con.execute("SELECT instances, total_ns FROM step_stats WHERE run_id = ? AND metric = ?",
                                   (run, metric)).fetchall()
                assert sorted(rows) == sorted((len(r[which]), sum(r[which])) for r in refs), (path, metric)
    assert len(pids) == 2 and [len(k) for k, _ in refs] == [6, 6]


def test_a_report_of_a_whole_launch_is_stored_as_its_ranks(tmp_path):
    """ddp_whole is one report of a 2-rank launch of ddp_straggler's workload: stored as one rank, its two processes'
    steps read as twelve steps of one rank, and `runs diff` against ddp_straggler's rank files said "GPU compute
    kernel time per step (summed over 1 vs 2 ranks) 20.0 ms -> 40.0 ms (+100.3 %) beyond run-to-run noise". Its
    processes are now its ranks: the two runs of one design read no change, as `diff` of the files reads them, and
    the gate passes."""
    from .conftest import rank_files

    db = str(tmp_path / "runs.db")
    [whole] = rank_files("ddp_whole")
    straggler = rank_files("ddp_straggler")
    add(whole, db=db)
    result = CliRunner().invoke(cli, ["runs", "add", *map(str, straggler), "--ranks", "--db", db])
    assert result.exit_code == 0, result.output
    listed = json.loads(_invoke("runs", "list", "--db", db, "--format", "json"))
    assert {r["id"]: (r["label"], r["ranks"]) for r in listed} == {1: ("ddp_whole", 2), 2: ("ddp_straggler.0", 2)}
    stored = json.loads(_invoke("runs", "diff", "1", "2", "--db", db, "--format", "json"))
    assert stored["headline"]["ranks"] == [2, 2], stored["headline"]
    assert stored["verdict"].startswith("No change beyond run-to-run noise"), stored["verdict"]
    files = json.loads(_invoke("diff", whole, straggler[0].parent, "--format", "json"))
    assert stored["verdict"] == files["verdict"]
    assert "PASS" in _invoke("runs", "gate", whole, "--baseline", "2", "--max-regression", "5%", "--db", db)


def _invoke(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def _exact_p(base: list[int], new: list[int]) -> float:
    """Two-sided exact Mann-Whitney p by enumerating every split of the pooled values (no ties here)."""
    from itertools import combinations

    pooled = base + new

    def u(side):
        return sum(1 for x in side for y in pooled if y not in side and x > y)

    observed = u(new)
    counts = [u([pooled[i] for i in c]) for c in combinations(range(len(pooled)), len(new))]
    low = sum(c <= observed for c in counts) / len(counts)
    high = sum(c >= observed for c in counts) / len(counts)
    return min(1.0, 2 * min(low, high))


def test_with_six_steps_a_side_the_rank_test_decides(tmp_path):
    """Six steps against six: the exact rank test can speak (p >= 2/924 otherwise). A faster rank pair within
    noise passes even at --max-regression 0; the straggler's slower GPU steps fail beyond noise."""
    from .conftest import rank_files

    db = str(tmp_path / "runs.db")
    balanced0, balanced1 = rank_files("ddp_balanced")
    straggler0 = rank_files("ddp_straggler")[0]
    add(balanced1, "branch=main", db=db)
    base, new = per_step_reference(balanced1)[0], per_step_reference(balanced0)[0]
    assert len(set(base + new)) == 12 and _mean(new) > _mean(base)  # no ties; the new side's mean is higher
    p = _exact_p(base, new)
    assert p > 0.05
    code, line = gate(balanced0, "--baseline", "1", "--metric", "kernels", "--max-regression", "0", db=db)
    assert code == 0 and "over 0 % but within noise" in line and f"p = {p:.2g}, exact" in line, line
    busy_base, busy_new = per_step_reference(balanced1)[1], per_step_reference(straggler0)[1]
    p = _exact_p(busy_base, busy_new)
    assert p == pytest.approx(2 / 924)  # every straggler step is slower
    code, line = gate(straggler0, "--baseline", "1", "--metric", "gpu", db=db)
    assert code == 4 and f"p = {p:.2g}, exact Mann-Whitney U: beyond noise" in line, line
    assert _change_of(line) == pytest.approx(100 * (_mean(busy_new) / _mean(busy_base) - 1), abs=0.051)
