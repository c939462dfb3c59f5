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
import hashlib
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
from dataclasses import dataclass
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
}
EXIT_ALSO = {"runs-gate": {4}}  # a regression against the baseline: `FAIL (...)` on stdout


@dataclass
class Input:
    name: str
    path: Path  # what the command is given
    folder: Path | None  # the folder whose files must stay as they were (None: not ours to check, e.g. /dev/null)


def build_inputs(work: Path) -> list[Input]:
    """Fixtures and hostile files, each in a folder of its own under `work`."""
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
    return inputs


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
    found = []
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


def sweep(commands: dict[str, list[str]], inputs: list[Input], runner, work: Path, jobs: int) -> list[str]:
    env = {**os.environ, "NSYS_ANALYTICS_CACHE": str(work / "cache")}
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(next(i.path for i in inputs if i.name == "socket")))
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
        code, stdout, stderr = runner(args, env)
        return Outcome(command, inp.name, code, stdout, stderr, time.monotonic() - start)

    try:
        if jobs > 1:
            with ThreadPoolExecutor(jobs) as pool:
                outcomes = list(pool.map(one, tasks))
        else:
            outcomes = [one(t) for t in tasks]
    finally:
        server.close()
    failures = [f"{o.command} {o.input}: {p}" for o in outcomes for p in problems(o)]
    for i in inputs:
        if i.folder is not None and snapshot(i.folder) != before[i.name]:
            failures.append(f"{i.name}: the input's folder changed: {before[i.name]} -> {snapshot(i.folder)}")
    codes = {}
    for o in outcomes:
        codes.setdefault(o.code, 0)
        codes[o.code] += 1
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a reduced set of commands, in this process")
    parser.add_argument("--jobs", type=int, default=2, help="processes at a time (default 2)")
    parser.add_argument("--commands", help="only these (comma-separated names of COMMANDS)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="nsys-analytics-sweep-") as tmp:
        work = Path(tmp)
        inputs = build_inputs(work)
        names = args.commands.split(",") if args.commands else QUICK_COMMANDS if args.quick else list(COMMANDS)
        commands = {c: COMMANDS[c] for c in names}
        if args.quick:
            failures = sweep(commands, inputs, run_in_process, work, jobs=1)
        else:
            failures = sweep(commands, inputs, run_process, work, jobs=args.jobs)
    for f in failures:
        print("FAIL", f)
    print("sweep:", "ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
