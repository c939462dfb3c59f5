"""The run catalog on SQLite and on a real PostgreSQL server (started here from Debian's binaries): add, list, show,
diff (= `diff` on the files), trend, gate, schema versions, bad input, concurrent writers."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import FIXTURES, PROFILES, oracle_csv, read_csv, unpacked

TRAIN, SDPA, FORWARD = PROFILES / "gpt_train.sqlite", PROFILES / "gpt_sdpa_train.sqlite", PROFILES / "gpt_forward.sqlite"
RENAMED = PROFILES / "gpt_renamed_forward.sqlite"
PASSWORD = "s3cret-Pw"


# -- a PostgreSQL server for the session -----------------------------------------------------------------------

def _pg_bin() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    return found[-1].parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def pg_server():
    """initdb + pg_ctl in a temporary folder on a free port of 127.0.0.1, as the `postgres` user when run as root
    (initdb refuses root); password authentication over TCP. Stopped and removed at the end."""
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries not installed (apt-get install postgresql; .ci/run does)")
    root = Path(tempfile.mkdtemp(prefix="nsys-analytics-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        as_user = ["runuser", "-u", "postgres", "--"]
        shutil.chown(root, "postgres")
    (root / "pw").write_text(PASSWORD + "\n")
    if as_user:
        shutil.chown(root / "pw", "postgres")
    data, port = root / "data", _free_port()
    run = lambda *cmd: subprocess.run([*as_user, *map(str, cmd)], check=True, capture_output=True, text=True)
    run(bin_dir / "initdb", "-D", data, "-U", "tester", f"--pwfile={root / 'pw'}", "--auth-local=trust",
        "--auth-host=scram-sha-256", "-E", "UTF8")
    run(bin_dir / "pg_ctl", "-D", data, "-l", root / "log", "-w", "-o",
        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60", "start")
    try:
        yield port
    finally:
        subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, check=False)
        shutil.rmtree(root, ignore_errors=True)


_DB_COUNTER = iter(range(10**6))


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    """A fresh, empty catalog URL on each backend."""
    if request.param == "sqlite":
        (tmp_path / "catalog").mkdir()
        return str(tmp_path / "catalog" / "runs.db")
    import psycopg

    port = request.getfixturevalue("pg_server")
    name = f"t{next(_DB_COUNTER)}"
    with psycopg.connect(f"host=127.0.0.1 port={port} user=tester password={PASSWORD} dbname=postgres",
                         autocommit=True) as con:
        con.execute(f"CREATE DATABASE {name}")
    return f"postgresql://tester:{PASSWORD}@127.0.0.1:{port}/{name}"


def runs(*args, db: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, ["runs", *map(str, args), "--db", db])
    assert result.exit_code == code, result.output
    assert PASSWORD not in result.output
    return result.output


def invoke(*args) -> str:
    result = CliRunner().invoke(cli, list(map(str, args)))
    assert result.exit_code == 0, result.output
    return result.output


# -- the commands ----------------------------------------------------------------------------------------------

def test_add_twice_is_a_no_op_and_list_filters(db):
    assert runs("add", TRAIN, SDPA, "--tag", "branch=main", db=db).splitlines() == [
        f"added run 1: {TRAIN}", f"added run 2: {SDPA}"]
    assert runs("add", TRAIN, "--tag", "branch=other", db=db).strip() == f"already stored as run 1: {TRAIN}"
    runs("add", FORWARD, "--tag", "branch=dev", db=db)
    listed = json.loads(runs("list", "--format", "json", db=db))
    assert [r["id"] for r in listed] == [3, 2, 1]
    assert [r["id"] for r in json.loads(runs("list", "--tag", "branch=main", "--format", "json", db=db))] == [2, 1]
    assert json.loads(runs("list", "--since", "2999-01-01", "--format", "json", db=db)) == []
    shown = runs("show", "1", db=db)
    assert "gpt_train" in shown and "branch=main" in shown and "train_loop:step_*" in shown


def test_runs_diff_equals_diff_on_the_files(db):
    runs("add", TRAIN, SDPA, "--attribution", "process", db=db)
    runs("add", FORWARD, RENAMED, db=db)  # attribution none
    stored = json.loads(runs("diff", "1", "2", "--format", "json", db=db))
    files = json.loads(invoke("diff", TRAIN, SDPA, "--format", "json"))
    assert stored == files and stored["range_categories"]
    stored = json.loads(runs("diff", "3", "4", "--format", "json", "--name", "short", db=db))
    # added without an attribution, a run still carries the steady state in diff's default one (auto)
    files = json.loads(invoke("diff", FORWARD, RENAMED, "--format", "json", "--name", "short"))
    assert stored == files and stored["range_categories"]


def test_trend_metrics_equal_the_profiles_figures(db):
    runs("add", TRAIN, SDPA, db=db)
    base_csv = read_csv(oracle_csv(TRAIN, "cuda_gpu_kern_sum_base"))
    total = {r[-1]: int(r[1]) for r in base_csv[1:]}
    series = json.loads(runs("trend", "--metric", "kernel:Kernel2", "--format", "json", db=db))
    assert [(r["id"], round(r["value_ms"] * 1e6)) for r in series] == [(1, total["Kernel2"])]
    steps = [int(r[1]) for r in read_csv(oracle_csv(TRAIN, "nvtx_sum"))[1:] if r[-1].startswith("train_loop:step_")]
    series = json.loads(runs("trend", "--format", "json", db=db))  # step_time
    assert series[0]["value_ms"] == pytest.approx(sum(steps) / 3 / 1e6) and series[0]["instances"] == 3
    assert series[1]["change_pct"] == pytest.approx(-27.8, abs=0.05)
    forward = next(r for r in read_csv(oracle_csv(TRAIN, "nvtx_sum"))[1:] if r[-1] == ":forward")
    series = json.loads(runs("trend", "--metric", "range:forward", "--format", "json", db=db))
    assert series[0]["value_ms"] * 1e6 == pytest.approx(float(forward[3]), abs=0.05)  # Avg (ns)
    matmul = json.loads(runs("trend", "--metric", "category:matmul", "--format", "json", db=db))
    assert len(matmul) == 2 and matmul[1]["value_ms"] < matmul[0]["value_ms"]


def test_gate_exits_4_on_a_regression_with_the_verdict(db, tmp_path):
    runs("add", SDPA, "--tag", "branch=main", db=db)
    runs("add", TRAIN, "--tag", "branch=feature", db=db)
    slower = CliRunner().invoke(cli, ["runs", "gate", "2", "--baseline", "branch=main", "--max-regression", "5%",
                                      "--db", db])
    assert slower.exit_code == 4, slower.output
    line = slower.output.strip()
    assert line.count("\n") == 0 and line.startswith("FAIL (regression +38.5 % > 5 %") and "step time" in line
    faster = CliRunner().invoke(cli, ["runs", "gate", str(SDPA), "--baseline", "2", "--db", db])
    assert faster.exit_code == 0 and faster.output.startswith("PASS"), faster.output
    loose = CliRunner().invoke(cli, ["runs", "gate", "2", "--baseline", "1", "--max-regression", "50", "--db", db])
    assert loose.exit_code == 0, loose.output


def test_a_gate_failed_on_its_threshold_alone_does_not_say_no_change(db):
    """Two A/A runs of the same code (fixtures/diff), one per side: the step time moved by more than the 5 % budget
    and less than diff's 45 % minimum effect: FAIL (exit 4), saying that the threshold failed it and that diff
    calls it within noise, never "No change" in the same line."""
    for name in ("gpt_aa_1", "gpt_aa_2"):
        runs("add", unpacked(FIXTURES / "diff" / f"{name}.sqlite.xz"), db=db)
    result = CliRunner().invoke(cli, ["runs", "gate", "2", "--baseline", "1", "--db", db])
    line = result.output.strip()
    change = float(line.split("(regression ")[1].split(" %")[0])
    assert result.exit_code == 4 and 5 < change < 45, line
    assert "Failed on the threshold alone" in line and "within noise" in line and "No change" not in line


def test_a_passing_step_gate_names_a_kernel_time_regression_beyond_noise(db):
    """gpt_extra_1 adds matmuls in an `extra` range (fixtures/diff: +0.24 ms of GPU time per step by its CUDA events,
    about 9 % of gpt_aa's 2.55 ms of kernels per step) to a step whose CPU-bound time varies by tens of % between
    identical runs: the step-time gate passes, and its line now says that the kernel time grew beyond noise over
    the budget (it said only PASS, with diff's "+9.0 % beyond run-to-run noise" further on). `--metric kernels`
    fails it; an A/A pair names nothing."""
    for name in ("gpt_aa_1", "gpt_aa_2", "gpt_extra_1"):
        runs("add", unpacked(FIXTURES / "diff" / f"{name}.sqlite.xz"), db=db)
    step = CliRunner().invoke(cli, ["runs", "gate", "3", "--baseline", "1", "--db", db])
    assert step.exit_code == 0 and step.output.startswith("PASS"), step.output
    assert "but GPU kernel time per step +" in step.output and "`--metric kernels` gates on it" in step.output
    base_ms, new_ms = map(float, re.search(r"GPU kernel time per step ([\d.]+) ms -> ([\d.]+) ms", step.output).groups())
    with open(FIXTURES / "diff" / "gpt_extra_1_timeit.csv", newline="") as f:
        extra = [float(r["extra_ms"]) for r in csv.DictReader(f)]
    assert new_ms - base_ms == pytest.approx(sum(extra) / len(extra), rel=0.15)
    kernels = CliRunner().invoke(cli, ["runs", "gate", "3", "--baseline", "1", "--metric", "kernels", "--db", db])
    assert kernels.exit_code == 4, kernels.output
    same = CliRunner().invoke(cli, ["runs", "gate", "2", "--baseline", "1", "--max-regression", "50", "--db", db])
    assert "but GPU kernel time per step" not in same.output, same.output


def test_python_catalog_returns_dataframes(db):
    import nsys_analytics

    cat = nsys_analytics.Catalog(db)
    assert PASSWORD not in repr(cat)
    assert cat.add(TRAIN, SDPA, tags={"branch": "main"}) == [1, 2]
    frame = cat.runs(tags={"branch": "main"})
    assert list(frame["id"]) == [2, 1] and frame["tags"][0] == {"branch": "main"}
    kernels = cat.kernels(1, "short")
    assert kernels.loc[kernels["name"] == "Kernel2", "total_ns"].item() == 1_609_785  # nsys' cuda_gpu_kern_sum:base
    assert "step time 7.673 ms -> 5.540 ms" in cat.diff(1, 2)["verdict"]
    cat.close()


# -- bad input -------------------------------------------------------------------------------------------------

def test_a_newer_schema_is_refused_naming_both_versions(db):
    from sqlalchemy import update

    from nsys_analytics.capabilities.catalog.connect import Catalog
    from nsys_analytics.capabilities.catalog.schema import SCHEMA_VERSION, catalog_meta

    runs("add", FORWARD, db=db)
    store = Catalog(db)
    store.write(lambda c: c.execute(update(catalog_meta).values(value="99")))
    store.close()
    out = runs("list", db=db, code=1)
    assert "schema version 99" in out and f"up to version {SCHEMA_VERSION}" in out and out.count("\n") == 1


def test_an_unreadable_profile_writes_nothing(db, tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(FORWARD.read_bytes()[:50_000])  # truncated
    out = runs("add", FORWARD, bad, "--ranks", db=db, code=1)
    assert "bad.sqlite" in out and out.count("\n") == 1
    assert json.loads(runs("list", "--format", "json", db=db)) == []
    assert runs("add", FORWARD, db=db).startswith("added run")  # the catalog is fine


def test_unreachable_database_one_line_password_masked(tmp_path):
    url = f"postgresql://tester:{PASSWORD}@127.0.0.1:{_free_port()}/nowhere"
    result = CliRunner().invoke(cli, ["runs", "list", "--db", url])
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert PASSWORD not in result.output and "tester:***@127.0.0.1" in result.output
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "runs.db").write_text("not a database")
    result = CliRunner().invoke(cli, ["runs", "list", "--db", str(folder / "runs.db")])
    assert result.exit_code == 1 and result.output.count("\n") == 1, result.output


def _digest(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("command", [["list"], ["add", FORWARD]], ids=["list", "add"])
def test_a_profile_given_as_the_catalog_is_refused_and_left_as_it_was(command, tmp_path):
    """--db naming a user's nsys export (or any SQLite file of other tables): refused in one line before anything
    is written (no catalog tables, no WAL switch, no file beside it)."""
    profile = tmp_path / "mine.sqlite"
    shutil.copy(TRAIN, profile)
    before = _digest(profile)
    out = runs(*command, db=str(profile), code=1)
    assert out.count("\n") == 1 and "not a run catalog" in out
    assert _digest(profile) == before and sorted(p.name for p in tmp_path.iterdir()) == ["mine.sqlite"]


def test_reading_a_missing_catalog_makes_no_file_and_add_makes_one(tmp_path):
    db = tmp_path / "typo" / "runs.db"
    for command in (["list"], ["show", "1"], ["trend"], ["diff", "1", "2"], ["gate", "1", "--baseline", "2"]):
        out = runs(*command, db=str(db), code=1)
        assert out.count("\n") == 1 and "no run catalog there yet" in out, out
    assert not db.parent.exists()
    (tmp_path / "empty.db").touch()
    assert "an empty file" in runs("list", db=str(tmp_path / "empty.db"), code=1)
    assert (tmp_path / "empty.db").stat().st_size == 0
    out = runs("add", FORWARD, db=str(db), code=1)  # a typo in --db makes no folder
    assert out.count("\n") == 1 and f"the folder {db.parent} does not exist" in out and not db.parent.exists()
    db.parent.mkdir()
    assert runs("add", FORWARD, db=str(db)).startswith("added run 1")
    assert sqlite3.connect(db).execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_a_fifo_or_a_folder_is_no_catalog(tmp_path):
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)  # SQLite would wait on it for ever
    for path in (fifo, tmp_path):
        out = runs("list", db=str(path), code=1)
        assert "not a regular file" in out and out.count("\n") == 1


# -- runs add in a process of its own: the catalog is opened and written by a forked process -------------------

def _own_process(*args, env: dict | None = None) -> subprocess.CompletedProcess:
    """The CLI as a user runs it (main() in a fresh process: `runs add` forks its catalog process,
    catalog/writer.py); CliRunner's in-process calls take the thread instead."""
    return subprocess.run([sys.executable, "-m", "nsys_analytics", *map(str, args)], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=300)


def _stored(db: str) -> dict[str, list[tuple]]:
    """Every row of every catalog table, sorted (the time of the add left out)."""
    from sqlalchemy import select

    from nsys_analytics.capabilities.catalog.connect import Catalog
    from nsys_analytics.capabilities.catalog.schema import metadata

    cat = Catalog(db, create=False)
    try:
        def dump(conn):
            out = {}
            for table in metadata.sorted_tables:
                columns = [c for c in table.c if c.name != "added_at"]
                out[table.name] = sorted((tuple(row) for row in conn.execute(select(*columns))), key=repr)
            return out

        return cat.read(dump)
    finally:
        cat.close()


def test_a_forked_catalog_process_stores_what_the_thread_stores(db, tmp_path):
    forked = _own_process("runs", "add", TRAIN, SDPA, "--tag", "branch=main", "--db", db)
    assert forked.returncode == 0, forked.stderr
    assert forked.stdout.splitlines() == [f"added run 1: {TRAIN}", f"added run 2: {SDPA}"] and not forked.stderr
    again = _own_process("runs", "add", TRAIN, "--db", db)
    assert again.stdout.strip() == f"already stored as run 1: {TRAIN}" and again.returncode == 0
    ranks = _own_process("runs", "add", TRAIN, FORWARD, "--ranks", "--db", db)  # summarized by a process pool
    assert ranks.stdout.strip() == f"added run 3: {TRAIN} + {FORWARD} (2 ranks)", ranks.stderr
    assert ranks.returncode == 0
    threaded = str(tmp_path / "threaded.db")
    runs("add", TRAIN, SDPA, "--tag", "branch=main", db=threaded)
    runs("add", TRAIN, FORWARD, "--ranks", db=threaded)
    stored, expected = _stored(db), _stored(threaded)
    assert len(stored["kernel_stats"]) > 100 and len(stored["range_stats"]) > 10
    assert stored == expected


def test_errors_of_the_catalog_process_are_one_line_with_their_exit_code(db, tmp_path):
    from sqlalchemy import update

    from nsys_analytics.capabilities.catalog.connect import Catalog
    from nsys_analytics.capabilities.catalog.schema import SCHEMA_VERSION, catalog_meta

    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(FORWARD.read_bytes()[:50_000])  # truncated: the profile's own error, nothing written
    result = _own_process("runs", "add", FORWARD, bad, "--ranks", "--db", db)
    assert result.returncode == 1 and "bad.sqlite" in result.stderr and result.stderr.count("\n") == 1
    assert result.stdout == "" and PASSWORD not in result.stderr
    store = Catalog(db)
    store.write(lambda c: c.execute(update(catalog_meta).values(value="99")))
    store.close()
    result = _own_process("runs", "add", FORWARD, "--db", db)  # refused by the catalog process
    assert result.returncode == 1 and result.stderr.count("\n") == 1 and PASSWORD not in result.stderr
    assert "schema version 99" in result.stderr and f"up to version {SCHEMA_VERSION}" in result.stderr
    url = f"postgresql://tester:{PASSWORD}@127.0.0.1:{_free_port()}/nowhere"
    result = _own_process("runs", "add", FORWARD, "--db", url)
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert PASSWORD not in result.stderr and "tester:***@127.0.0.1" in result.stderr
    profile = tmp_path / "mine.sqlite"
    shutil.copy(TRAIN, profile)
    result = _own_process("runs", "add", FORWARD, "--db", profile)
    assert result.returncode == 1 and "not a run catalog" in result.stderr and result.stderr.count("\n") == 1
    assert _digest(profile) == _digest(TRAIN)


# -- concurrent writers ----------------------------------------------------------------------------------------

def _variants(tmp_path: Path, n: int) -> list[Path]:
    """`n` profiles with different content: copies of a fixture, each with one extra empty table."""
    out = []
    for i in range(n):
        path = tmp_path / f"forward_{i}.sqlite"
        shutil.copy(FORWARD, path)
        con = sqlite3.connect(path)
        con.execute(f"CREATE TABLE copy_marker_{i} (x INTEGER)")
        con.commit()
        con.close()
        out.append(path)
    return out


def test_eight_writers_of_different_and_of_the_same_profile(db, tmp_path):
    env = {**os.environ, "NSYS_ANALYTICS_DB": db}
    cmd = [sys.executable, "-m", "nsys_analytics", "runs", "add"]
    paths = _variants(tmp_path, 8)
    procs = [subprocess.Popen([*cmd, str(p)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for p in paths]
    procs += [subprocess.Popen([*cmd, str(TRAIN)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(8)]
    outputs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outputs):
        assert p.returncode == 0, err
        assert "locked" not in err and PASSWORD not in out + err
    same_ids = {out.split()[-2].rstrip(":") for out, _ in outputs[8:]}
    assert len(same_ids) == 1  # every writer of TRAIN names the one run
    assert sum(out.startswith("added run") for out, _ in outputs[8:]) == 1
    listed = json.loads(runs("list", "--format", "json", db=db))
    assert len(listed) == 9 and len({r["hash"] for r in listed}) == 9
    # nothing lost: each stored run has every kernel row of its profile
    import nsys_analytics

    cat = nsys_analytics.Catalog(db)
    expected = None
    for r in cat.runs().to_dict("records"):
        kernels = cat.kernels(r["id"], "demangled")
        assert kernels["total_ns"].sum() == r["kernel_ns"] and len(kernels) > 0
        if r["label"].startswith("forward_"):
            expected = expected or len(kernels)
            assert len(kernels) == expected
    cat.close()


def test_a_plot_name_that_is_no_png_is_refused_before_any_output(db):
    """`runs trend --plot x.jpg` printed the whole table, then the usage error; now only the error (exit 2)."""
    runs("add", TRAIN, db=db)
    result = CliRunner().invoke(cli, ["runs", "trend", "--plot", "x.jpg", "--db", db])
    assert result.exit_code == 2 and result.stdout == "" and "give a file name ending in .png" in result.stderr


def test_a_folder_is_one_run_of_its_rank_files(db):
    """`runs add A/ B/` stores each folder's rank files as one run, as `runs add A/* --ranks` does: adding the files
    with --ranks afterwards finds the same run."""
    from .conftest import rank_files

    folders = [rank_files(run)[0].parent for run in ("fsdp2_aa_1", "fsdp2_aa_2")]
    out = runs("add", *folders, db=db)
    assert out.splitlines() == [f"added run 1: {folders[0]} (2 ranks)", f"added run 2: {folders[1]} (2 ranks)"]
    again = runs("add", *rank_files("fsdp2_aa_2"), "--ranks", db=db)
    assert again.startswith("already stored as run 2: "), again


def test_a_passing_step_gate_over_ranks_names_runs_diff_not_metric_kernels(db):
    """Over the ranks of a job the stored `kernels` figure counts NCCL's kernels, which hold the waits, while diff's
    kernel time leaves them out: fsdp2_small_backward (rank 1: +5.3 ms of matmuls per step by its CUDA events)
    against fsdp2_aa_1 passes a 3.2 % step budget (the truth files' step time grows 3.1 %) with compute kernel time
    over it and beyond noise. The PASS line names that figure and `runs diff`, not `--metric kernels`. Added
    without --ranks, a job's rank files would be separate runs: refused."""
    from .conftest import rank_files

    refused = CliRunner().invoke(cli, ["runs", "add", *map(str, rank_files("fsdp2_aa_1")), "--db", db])
    assert refused.exit_code == 2 and "are ranks of one job" in refused.output and "--ranks" in refused.output
    for run in ("fsdp2_aa_1", "fsdp2_small_backward"):
        runs("add", *rank_files(run), "--ranks", db=db)
    def wall_ms(run: str) -> float:  # the workload's own step time, mean over ranks and measured steps
        steps = [s["wall_ms"] for f in sorted((FIXTURES / "ranks" / run).glob("truth.*.json"))
                 for s in json.loads(f.read_text())["steps"]]
        return sum(steps) / len(steps)

    budget = 3.2
    assert 100 * (wall_ms("fsdp2_small_backward") / wall_ms("fsdp2_aa_1") - 1) < budget  # by the truth: a PASS
    step = CliRunner().invoke(cli, ["runs", "gate", "2", "--baseline", "1", "--max-regression", str(budget),
                                    "--db", db])
    assert step.exit_code == 0 and step.output.startswith("PASS"), step.output
    found = re.search(r"but GPU compute kernel time per step \(NCCL's left out\) \+([\d.]+) % beyond run-to-run "
                      r"noise, over the budget", step.output)
    assert found and float(found[1]) > budget, step.output
    assert "`runs diff` shows where" in step.output and "--metric kernels" not in step.output
