#!/usr/bin/env python3
"""Wall time and peak memory of a command, for benchmarking nsys against nsys-analytics.

    from bench.measure import measure
    measure(["nsys", "stats", "--report", "gpukernsum", "FILE.sqlite"])
    # {'wall_s': 1.98, 'peak_rss_mb': 156.3, 'returncode': 0}     (peak_rss_mb in MiB)

    python bench/measure.py [--repeat N] -- CMD ARGS...     # prints one JSON line per run

Each measurement runs in a fresh Python wrapper process that starts the command, waits for it
and reports ``resource.getrusage(RUSAGE_CHILDREN)``: the peak resident set size of the
largest process in the command's tree (every descendant that was waited for), measured
per command because the wrapper has no other children. Peak RSS is that of one process, not a
sum over processes running at the same time (``nsys stats`` 2022.4 runs as a single process).
The floor is the wrapper's own size (about 11 MB: a forked child counts its pre-exec image).
Standard library only; Linux (ru_maxrss in KiB).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any, TypedDict

# Runs inside the fresh wrapper: argv = [fd, json(cmd)]; writes one JSON object to fd.
_WRAPPER = """
import json, os, resource, subprocess, sys, time
fd, cmd = int(sys.argv[1]), json.loads(sys.argv[2])
t0 = time.perf_counter()
rc = subprocess.call(cmd)
wall = time.perf_counter() - t0
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
with os.fdopen(fd, "w") as out:
    json.dump({"wall_s": wall, "peak_rss_kib": usage.ru_maxrss, "cpu_s": usage.ru_utime + usage.ru_stime,
               "returncode": rc}, out)
"""


class Measurement(TypedDict):
    """One run of one command."""

    wall_s: float
    peak_rss_mb: float
    cpu_s: float      # user + system time of the command's process tree
    returncode: int


def measure(
    cmd: list[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    stdout: Any = subprocess.DEVNULL,
    stderr: Any = None,
    check: bool = True,
) -> Measurement:
    """Run ``cmd`` once; return its wall time (s) and its tree's peak RSS in MiB.

    ``stdout``/``stderr`` go to the command (default: stdout discarded, stderr inherited).
    With ``check``, a non-zero exit status raises ``subprocess.CalledProcessError``.
    """
    read_fd, write_fd = os.pipe()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _WRAPPER, str(write_fd), json.dumps(cmd)],
            cwd=cwd,
            stdout=stdout,
            stderr=stderr,
            pass_fds=(write_fd,),
        )
    finally:
        os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        report = pipe.read()
    proc.wait()
    if proc.returncode != 0 or not report:
        raise RuntimeError(f"measurement wrapper failed ({proc.returncode}) for {cmd}")
    raw = json.loads(report)
    if check and raw["returncode"] != 0:
        raise subprocess.CalledProcessError(raw["returncode"], cmd)
    return Measurement(
        wall_s=round(raw["wall_s"], 3),
        peak_rss_mb=round(raw["peak_rss_kib"] / 1024, 1),
        cpu_s=round(raw["cpu_s"], 3),
        returncode=raw["returncode"],
    )


def main(argv: list[str] | None = None) -> int:
    """Measure a command given after ``--``; print one JSON line per repetition."""
    p = argparse.ArgumentParser(description="wall time and peak RSS of a command")
    p.add_argument("--repeat", type=int, default=1, help="number of runs")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD ARGS...")
    args = p.parse_args(argv)
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        p.error("no command given")
    for run in range(1, args.repeat + 1):
        result = measure(cmd, check=False)
        print(json.dumps({"run": run, "cmd": cmd, **result}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
