#!/usr/bin/env python3
"""Every command on every fixture and every hostile file: documented exit codes, one-line errors, inputs unchanged.

    python bench/sweep_inputs.py            # all commands x all inputs, each in its own process (make sweep)
    python bench/sweep_inputs.py --quick    # a reduced set, in this process (what tests/test_sweep.py runs)

For each run it checks: the exit code is 0, 1 or 2 (3 is an internal error, anything else unexpected); a failure
prints exactly one line, `Error: ...`, and never a traceback; stderr holds no raw control character; and afterwards
every input folder holds the same files with the same bytes (nothing modified, nothing created beside an input).
Exports and copies go to a temporary cache folder ($NSYS_ANALYTICS_CACHE). Prints one line per failure and a
summary; exits 1 if anything failed.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import lzma
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ROOT / "fixtures" / "profiles"
NCU = ROOT / "fixtures" / "ncu"
ALLOWED_EXIT = {0, 1, 2}
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
TIMEOUT_S = 120

COMMANDS = {  # command -> its arguments, {P} the input
    "info": ["info", "{P}"],
    "kernels": ["kernels", "{P}"],
    "sql": ["sql", "{P}", "SELECT count(*) AS n FROM kernels"],
    "nvtx": ["nvtx", "{P}"],
    "nvtx-kernels": ["nvtx-kernels", "{P}"],
    "nvtx-gpu": ["nvtx-gpu", "{P}"],
    "classify": ["classify", "{P}"],
    "breakdown": ["breakdown", "{P}"],
    "attention": ["attention", "{P}"],
    "report": ["report", "--forward", "{P}"],
    "diagnose": ["diagnose", "{P}"],
    "ncu": ["ncu", "{P}"],
    "ranks": ["ranks", "{P}"],
    "nccl": ["nccl", "{P}"],
    "timeline": ["timeline", "{P}", "-o", "{O}.png"],
    "export": ["export", "{P}", "--to", "perfetto", "-o", "{O}.json.gz"],
    "html": ["html", "{P}", "-o", "{O}.html"],
    "kernels-csv-o": ["kernels", "{P}", "--format", "csv", "-o", "{O}.csv"],
    # {G}: a sound profile (a copy of gpt_forward); {C}: a catalog holding it as run 1
    "diff": ["diff", "{G}", "{P}"],
    "diff-self": ["diff", "{P}", "{P}", "--format", "json", "-o", "{O}.json"],
    "runs-add": ["runs", "add", "{P}", "--db", "{O}.db", "--tag", "sweep=1"],
    "runs-gate": ["runs", "gate", "{P}", "--baseline", "1", "--db", "{C}"],
    "runs-db": ["runs", "list", "--db", "{P}"],  # the input given as the catalog: refused or read, never written
    "ranks-pair": ["ranks", "{G}", "{P}"],
    "info-json": ["info", "{P}", "--format", "json"],
    "kernels-json": ["kernels", "{P}", "--format", "json"],
    "nvtx-json": ["nvtx", "{P}", "--format", "json"],
}
# Memory pressure (issue 30 §4): DuckDB's limit too small for the command, or a bad value of the variable. Each
# command either succeeds or fails in one line naming NSYS_ANALYTICS_MEMORY (exit 1; 2 for a bad value).
PRESSURE = {"memory-2MB": {"NSYS_ANALYTICS_MEMORY": "2MB"}, "memory-32MB": {"NSYS_ANALYTICS_MEMORY": "32MB"},
            "memory-lots": {"NSYS_ANALYTICS_MEMORY": "lots"}}
PRESSURE_COMMANDS = ("info", "kernels", "nvtx", "nvtx-kernels", "breakdown", "diagnose", "html", "timeline", "export",
                     "diff", "runs-add", "ranks-pair")
EXIT_ALSO = {"runs-gate": {4}}  # a regression against the baseline: `FAIL (...)` on stdout


@dataclass
class Input:
    name: str
    path: Path  # what the command is given
    folder: Path | None  # the folder whose files must stay as they were (None: not ours to check, e.g. /dev/null)
    env: dict = field(default_factory=dict)  # set for its commands (memory pressure)


def build_inputs(work: Path, values: bool = True) -> list[Input]:
    """Fixtures and hostile files, each in a folder of its own under `work`; `values`: also the HOSTILE_VALUES."""
    inputs: list[Input] = []

    def folder(name: str) -> Path:
        f = work / "inputs" / name
        f.mkdir(parents=True)
        return f

    def add(name: str, path: Path, checked: bool = True) -> Path:
        inputs.append(Input(name, path, path.parent if checked else None))
        return path

    for p in sorted(PROFILES.glob("*.sqlite")):
        shutil.copy(p, add(p.stem, folder(p.stem) / p.name))
    good = PROFILES / "gpt_forward.sqlite"
    add("empty", folder("empty") / "empty.sqlite").touch()
    add("text", folder("text") / "notes.sqlite").write_text("not a database\n" * 50)
    add("zip", folder("zip") / "run.sqlite").write_bytes(b"PK\x03\x04" + b"\0" * 200)
    data = good.read_bytes()
    add("truncated", folder("truncated") / "cut.sqlite").write_bytes(data[: len(data) // 3])
    corrupt = bytearray(data)
    corrupt[4096:40960] = b"\xff" * (40960 - 4096)
    add("corrupt", folder("corrupt") / "corrupt.sqlite").write_bytes(bytes(corrupt))
    other = add("not-nsys", folder("not-nsys") / "other.sqlite")
    _sqlite(other, "CREATE TABLE people (name TEXT)")
    journal = add("journal", folder("journal") / "live.sqlite")
    shutil.copy(good, journal)
    Path(f"{journal}-journal").write_bytes(b"")
    wal = add("wal-mode", folder("wal-mode") / "wal.sqlite")
    shutil.copy(good, wal)
    _sqlite(wal, "PRAGMA journal_mode=WAL")
    fifo = add("fifo", folder("fifo") / "pipe.sqlite")
    os.mkfifo(fifo)
    add("device", Path("/dev/null"), checked=False)
    loop = folder("symlink-loop")
    (loop / "b.sqlite").symlink_to(loop / "a.sqlite")
    add("symlink-loop", loop / "a.sqlite").symlink_to(loop / "b.sqlite")
    add("dangling-link", folder("dangling-link") / "run.sqlite").symlink_to(work / "gone.sqlite")
    add("directory", folder("directory"))
    inputs[-1].folder = inputs[-1].path
    add("missing", folder("missing") / "nope.sqlite")
    rep = add("nsys-rep", folder("nsys-rep") / "no_nvtx.nsys-rep")
    shutil.copy(PROFILES / "no_nvtx.nsys-rep", rep)
    shutil.copy(PROFILES / "gpt_forward.sqlite", rep.with_suffix(".sqlite"))
    os.utime(rep.with_suffix(".sqlite"), (1e9, 1e9))  # the user's older export beside the report
    ncu = add("ncu-rep", folder("ncu-rep") / "matmul_basic.ncu-rep")
    with lzma.open(NCU / "matmul_basic.ncu-rep.xz") as src, open(ncu, "wb") as dst:
        shutil.copyfileobj(src, dst)
    hostile = add("control-characters", folder("control-characters") / "x\x1b[2J.sqlite")
    shutil.copy(good, hostile)
    _sqlite(hostile, "UPDATE StringIds SET value = value || char(27, 93, 48, 59, 7, 13) WHERE id IN "
                     "(SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL)")
    bad = add("bad-rows", folder("bad-rows") / "bad.sqlite")
    shutil.copy(good, bad)
    _sqlite(bad, "CREATE TABLE k2 AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid; "
                 "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; ALTER TABLE k2 RENAME TO CUPTI_ACTIVITY_KIND_KERNEL; "
                 'UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = NULL WHERE rowid = 3; '
                 'UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = start - 1000 WHERE rowid = 4; '
                 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = 5")
    sock_dir = folder("socket")
    inputs.append(Input("socket", sock_dir / "s.sqlite", sock_dir))
    for name in HOSTILE_VALUES if values else ():
        make_hostile(name, add(name, folder(name) / f"{name}.sqlite"))
    return inputs


# Hostile values inside a valid export (issue 30 §3), one case per class or combination: a copy of a real fixture with
# values corrupted by SQL. Each class has one documented outcome (README: Bad input): skipped and noted (SKIPPED ...),
# text decoded with replacement characters, a missing name shown as [string N missing], or the file refused with
# exit 1 naming it and the table.
K, R, N = "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"
INT64_MAX = 2**63 - 1
HOSTILE_SOURCE = PROFILES / "gpt_forward.sqlite"


def _loose(table: str) -> str:
    """SQL that rebuilds `table` without its NOT NULL constraints: the same rows in the same order (rowid 1..n), and
    an extra column `_r` (the old rowid) that no reader looks at."""
    return (f'CREATE TABLE _t AS SELECT rowid AS _r, * FROM "{table}" ORDER BY rowid; DROP TABLE "{table}"; '
            f'CREATE TABLE "{table}" AS SELECT * FROM _t ORDER BY _r; DROP TABLE _t; ')


def _nulls(rows: str, columns: list[tuple[str, str]]) -> str:
    tables = sorted({t for t, _ in columns})
    return "".join(_loose(t) for t in tables) + "".join(
        f'UPDATE "{t}" SET "{c}" = NULL WHERE {rows.format(i=i % 3)};' for i, (t, c) in enumerate(columns))


_NULL_COLUMNS = [(K, "deviceId"), (K, "streamId"), (K, "demangledName"), (K, "gridX"), (K, "globalPid"),
                 (K, "correlationId"), (R, "globalTid"), (R, "nameId"), (R, "correlationId"), (N, "globalTid"),
                 (N, "eventType"), (N, "textId"), ("StringIds", "value"), ("CUPTI_ACTIVITY_KIND_MEMCPY", "bytes")]
HOSTILE_VALUES: dict[str, tuple[str, str]] = {  # name -> (class, SQL that makes it from HOSTILE_SOURCE)
    "utf8-strings": ("invalid UTF-8", "UPDATE StringIds SET value = CAST(CAST(value AS BLOB) || X'FF' AS TEXT);"),
    "utf8-nvtx": ("invalid UTF-8", f"UPDATE {N} SET textId = NULL, "
                                   "text = CAST(X'C328FF' || CAST(coalesce(text, 'r') AS BLOB) AS TEXT);"),
    "int64-kernel-end": ("INT64 overflow", f'UPDATE {K} SET "end" = {INT64_MAX} WHERE rowid = 7;'),
    "int64-kernel-both": ("INT64 overflow", f'UPDATE {K} SET start = {INT64_MAX - 1000}, "end" = {INT64_MAX} '
                                            "WHERE rowid % 5 = 0;"),
    "int64-min-start": ("INT64 overflow", f"UPDATE {K} SET start = {-INT64_MAX - 1} WHERE rowid = 9;"),
    "int64-nvtx-api": ("INT64 overflow", f'UPDATE {N} SET "end" = {INT64_MAX} WHERE rowid % 4 = 0; '
                                         f'UPDATE {R} SET "end" = {INT64_MAX} WHERE rowid % 7 = 0;'),
    "int64-sum": ("INT64 overflow", f'UPDATE {K} SET start = {-(2**62) + 1000}, "end" = {2**62 - 1000} '
                                    "WHERE rowid <= 3;"),  # each time sound, their durations' sum beyond INT64
    "text-in-start": ("text or blob in an integer column", f"UPDATE {K} SET start = 'abc' WHERE rowid = 3;"),
    "blob-in-device": ("text or blob in an integer column", f"UPDATE {K} SET deviceId = X'0102' WHERE rowid = 4;"),
    "text-in-nvtx": ("text or blob in an integer column", f"UPDATE {N} SET start = 'x' WHERE rowid = 5;"),
    "blob-in-name-id": ("text or blob in an integer column", f"UPDATE {R} SET nameId = X'00' WHERE rowid = 6;"),
    "text-in-ids": ("text or blob in an integer column",
                    f"UPDATE {K} SET demangledName = 'gemm', shortName = X'01' WHERE rowid % 3 = 0;"),
    "blob-in-strings": ("a blob in a text column", f"UPDATE StringIds SET value = X'FF00FE' WHERE id = "
                                                   f"(SELECT shortName FROM {K} LIMIT 1);"),  # not UTF-8
    "utf8-blob-in-strings": ("a blob in a text column", f"UPDATE StringIds SET value = CAST(value AS BLOB) WHERE id "
                                                        f"= (SELECT shortName FROM {K} LIMIT 1);"),
    "missing-strings": ("missing StringIds or ids", f"DELETE FROM StringIds WHERE id IN (SELECT demangledName "
                                                    f"FROM {K} UNION SELECT nameId FROM {R});"),
    "dangling-ids": ("missing StringIds or ids",
                     f"UPDATE {K} SET demangledName = demangledName + 10000000, shortName = shortName + 10000000; "
                     f"UPDATE {N} SET textId = textId + 10000000; UPDATE {R} SET nameId = nameId + 10000000;"),
    "no-stringids": ("missing StringIds or ids", "DROP TABLE StringIds;"),
    "nulls-some": ("NULLs", _nulls("rowid % 3 = {i}", _NULL_COLUMNS)),
    "nulls-one-column": ("NULLs", _nulls("rowid % 5 = 0", [(K, "gridX"), (K, "correlationId"), (R, "correlationId")])),
    "nulls-all": ("NULLs", "ALL NULL"),
    "identical-durations": ("identical durations",
                            f'UPDATE {N} SET "end" = start + 3000000000000001, textId = (SELECT min(textId) FROM {N})'
                            f' WHERE "end" IS NOT NULL; UPDATE {K} SET "end" = start + 3000000000000001;'),
    "end-before-start": ("NVTX/API end before start",
                         f'UPDATE {N} SET "end" = start - 1000 WHERE rowid % 3 = 0 AND "end" IS NOT NULL; '
                         f'UPDATE {R} SET "end" = start - 5 WHERE rowid % 4 = 0;'),
    "combined": ("combinations", "COMBINED"),
}
_COMBINED = ("utf8-strings", "int64-nvtx-api", "end-before-start", "dangling-ids", "nulls-one-column")


def make_hostile(name: str, target: Path, source: Path = HOSTILE_SOURCE) -> Path:
    """A copy of `source` at `target` with the hostile values of HOSTILE_VALUES[name]."""
    shutil.copy(source, target)
    script = HOSTILE_VALUES[name][1]
    if script == "COMBINED":
        script = " ".join(HOSTILE_VALUES[n][1] for n in _COMBINED)
    elif script == "ALL NULL":
        script = _all_nulls(target)
    _sqlite(target, script)
    return target


def _all_nulls(path: Path) -> str:
    """SQL that makes every value of every table NULL (the rows stay)."""
    con = sqlite3.connect(path)
    try:
        tables = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                  if not t.startswith("sqlite_")]
        columns = {t: [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')] for t in tables}
    finally:
        con.close()
    return "".join(_loose(t) + f'UPDATE "{t}" SET ' + ", ".join(f'"{c}" = NULL' for c in columns[t]) + ";"
                   for t in tables if columns[t])


def _sqlite(path: Path, script: str) -> None:
    con = sqlite3.connect(path)
    try:
        con.executescript(script)
        con.commit()
    finally:
        con.close()


def snapshot(folder: Path) -> dict[str, str]:
    """{name: sha256 or the kind of entry} of every entry in `folder`, never opening anything but regular files."""
    state = {}
    for p in sorted(folder.iterdir()):
        if p.is_symlink():
            state[p.name] = "link -> " + os.readlink(p)
        elif p.is_file():
            state[p.name] = hashlib.sha256(p.read_bytes()).hexdigest()
        else:
            state[p.name] = "other"
    return state


@dataclass
class Outcome:
    command: str
    input: str
    code: int
    stdout: str
    stderr: str
    seconds: float
    output: Path | None = None  # the file an `-o` command wrote (its JSON is checked)


def run_process(args: list[str], env: dict) -> tuple[int, str, str]:
    try:
        done = subprocess.run([sys.executable, "-m", "nsys_analytics", *args], capture_output=True, text=True,
                              timeout=TIMEOUT_S, env=env, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        return -1, "", f"timed out after {TIMEOUT_S} s"
    return done.returncode, done.stdout, done.stderr


def run_in_process(args: list[str], env: dict) -> tuple[int, str, str]:
    from click.testing import CliRunner

    from nsys_analytics.cli.main import cli

    def timed_out(signum, frame):
        raise TimeoutError(f"timed out after {TIMEOUT_S} s")

    previous = signal.signal(signal.SIGALRM, timed_out)
    signal.alarm(TIMEOUT_S)
    try:
        result = CliRunner().invoke(cli, args, env=env)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    if isinstance(result.exception, TimeoutError):
        return -1, "", str(result.exception)
    return result.exit_code, result.stdout, result.stderr


def problems(o: Outcome) -> list[str]:
    found = _json_problems(o)
    if o.code not in ALLOWED_EXIT | EXIT_ALSO.get(o.command, set()):
        found.append(f"exit code {o.code}")
    lines = o.stderr.strip().splitlines()
    errors = [line for line in lines if not line.startswith("Note: ") and not line.startswith("wrote ")]
    if o.code == 4 and not o.stdout.startswith("FAIL ("):
        found.append(f"exit 4 without a FAIL line: {o.stdout.strip()[:300]!r}")
    if o.code not in (0, 4) and (len(errors) != 1 or not errors[0].startswith("Error: ")):
        found.append(f"not one `Error:` line: {o.stderr.strip()[:300]!r}")
    if "Traceback" in o.stderr or "Traceback" in o.stdout:
        found.append("traceback")
    if CONTROL.search(o.stderr):
        found.append("raw control character on stderr")
    return found


def _json_problems(o: Outcome) -> list[str]:
    """JSON on stdout (`--format json`) and a Perfetto trace written with exit 0 must parse."""
    if o.code != 0:
        return []
    try:
        if o.command.endswith("-json"):
            json.loads(o.stdout)
        if o.command == "export" and o.output is not None and o.output.exists():
            with gzip.open(o.output, "rt", encoding="utf-8", errors="strict") as f:
                json.load(f)
    except (ValueError, OSError) as e:
        return [f"output is not valid JSON: {e}"]
    return []


def pressure_problems(o: Outcome) -> list[str]:
    """Under memory pressure: the usual checks, and a failure names NSYS_ANALYTICS_MEMORY."""
    found = problems(o)
    if o.code != 0 and "NSYS_ANALYTICS_MEMORY" not in o.stderr:
        found.append(f"a failure under memory pressure that does not name NSYS_ANALYTICS_MEMORY: {o.stderr[:300]!r}")
    return found


def sweep(commands: dict[str, list[str]], inputs: list[Input], runner, work: Path, jobs: int,
          by_input: bool = False) -> list[str]:
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "NSYS_ANALYTICS_CACHE": str(work / "cache")}
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sockets = [i.path for i in inputs if i.name == "socket"]
    if sockets:
        server.bind(str(sockets[0]))
    before = {i.name: snapshot(i.folder) for i in inputs if i.folder is not None}
    out_dir = work / "outputs"
    out_dir.mkdir(exist_ok=True)
    good, catalog = _baseline(work, runner, env) if any("{G}" in a or "{C}" in a for c in commands.values()
                                                           for a in c) else (None, None)
    tasks = [(c, i) for c in commands for i in inputs]

    def one(task) -> Outcome:
        command, inp = task
        args = [a.replace("{P}", str(inp.path)).replace("{O}", str(out_dir / f"{command}-{inp.name}"))
                .replace("{G}", str(good)).replace("{C}", str(catalog)) for a in commands[command]]
        start = time.monotonic()
        code, stdout, stderr = runner(args, {**env, **inp.env})
        output = out_dir / f"{command}-{inp.name}.json.gz"
        return Outcome(command, inp.name, code, stdout, stderr, time.monotonic() - start, output)

    try:
        if jobs > 1:
            with ThreadPoolExecutor(jobs) as pool:
                outcomes = list(pool.map(one, tasks))
        else:
            outcomes = [one(t) for t in tasks]
    finally:
        server.close()
    failures = [f"{o.command} {o.input}: {p}" for o in outcomes
                for p in (pressure_problems(o) if o.input in PRESSURE else problems(o))]
    for i in inputs:
        if i.folder is not None and snapshot(i.folder) != before[i.name]:
            failures.append(f"{i.name}: the input's folder changed: {before[i.name]} -> {snapshot(i.folder)}")
    codes = {}
    for o in outcomes:
        codes.setdefault(o.code, 0)
        codes[o.code] += 1
    if by_input:  # what each case now gives: {exit code: commands}
        for inp in inputs:
            mine = [o for o in outcomes if o.input == inp.name]
            given = {c: sorted(o.command for o in mine if o.code == c) for c in sorted({o.code for o in mine})}
            label = HOSTILE_VALUES[inp.name][0] if inp.name in HOSTILE_VALUES else "memory pressure"
            print(f"  {label:34} {inp.name:20} " + "; ".join(f"exit {c}: {len(v)}" + (f" ({', '.join(v)})" if c else "")
                                                        for c, v in given.items()))
    slowest = max(outcomes, key=lambda o: o.seconds)
    print(f"{len(outcomes)} runs ({len(commands)} commands x {len(inputs)} inputs); exit codes "
          f"{dict(sorted(codes.items()))}; slowest {slowest.command} {slowest.input} {slowest.seconds:.1f} s")
    return failures


def _baseline(work: Path, runner, env: dict) -> tuple[Path, Path]:
    """A sound profile for `diff` to compare each input with, and a catalog holding it as run 1 for `runs gate`."""
    good = work / "good" / "gpt_forward.sqlite"
    good.parent.mkdir()
    shutil.copy(PROFILES / "gpt_forward.sqlite", good)
    catalog = work / "catalog" / "runs.db"
    catalog.parent.mkdir(parents=True, exist_ok=True)
    code, _, stderr = runner(["runs", "add", str(good), "--db", str(catalog)], env)
    if code != 0:
        raise SystemExit(f"sweep: cannot make the baseline catalog: {stderr.strip()}")
    return good, catalog


QUICK_COMMANDS = ("kernels", "sql", "ncu", "kernels-csv-o", "diff", "runs-add", "runs-db")


def pressure_inputs(work: Path) -> list[Input]:
    """A sound profile under each PRESSURE setting."""
    inputs = []
    for name, env in PRESSURE.items():
        folder = work / "inputs" / name
        folder.mkdir(parents=True)
        shutil.copy(HOSTILE_SOURCE, folder / HOSTILE_SOURCE.name)
        inputs.append(Input(name, folder / HOSTILE_SOURCE.name, folder, env))
    return inputs


def values_sweep(work: Path, runner, jobs: int, commands: list[str] | None = None) -> list[str]:
    """Every command of issue 30 on every HOSTILE_VALUES case and under memory pressure; prints what each class gives."""
    names = commands or list(HOSTILE_COMMANDS)
    inputs = [i for i in build_inputs(work) if i.name in HOSTILE_VALUES]
    failures = sweep({c: COMMANDS[c] for c in names}, inputs, runner, work, jobs, by_input=True)
    names = [c for c in names if c in PRESSURE_COMMANDS]
    return failures + sweep({c: COMMANDS[c] for c in names}, pressure_inputs(work), runner, work / "p", jobs,
                            by_input=True)


HOSTILE_COMMANDS = ("info", "info-json", "kernels", "kernels-json", "nvtx", "nvtx-json", "nvtx-kernels", "breakdown",
                    "diagnose", "html", "timeline", "export", "diff", "runs-add", "ranks-pair")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a reduced set of commands, in this process")
    parser.add_argument("--jobs", type=int, default=2, help="processes at a time (default 2)")
    parser.add_argument("--commands", help="only these (comma-separated names of COMMANDS)")
    parser.add_argument("--values", action="store_true",
                        help="only the hostile values inside valid exports and memory pressure (issue 30)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="nsys-analytics-sweep-") as tmp:
        work = Path(tmp)
        if args.values:
            commands = args.commands.split(",") if args.commands else None
            failures = values_sweep(work, run_in_process if args.quick else run_process, args.jobs, commands)
            for f in failures:
                print("FAIL", f)
            print("sweep:", "ok" if not failures else f"{len(failures)} failure(s)")
            return 1 if failures else 0
        inputs = build_inputs(work, values=not args.quick)  # tests/test_hostile_values.py: the values, reduced
        names = args.commands.split(",") if args.commands else QUICK_COMMANDS if args.quick else list(COMMANDS)
        commands = {c: COMMANDS[c] for c in names}
        if args.quick:
            failures = sweep(commands, inputs, run_in_process, work, jobs=1)
        else:
            failures = sweep(commands, inputs, run_process, work, jobs=args.jobs)
            pressure = {c: COMMANDS[c] for c in names if c in PRESSURE_COMMANDS}
            failures += sweep(pressure, pressure_inputs(work), run_process, work / "p", args.jobs, by_input=True)
    for f in failures:
        print("FAIL", f)
    print("sweep:", "ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
