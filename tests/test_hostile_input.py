"""Hostile input gets its documented one-line message and exit code, at once (issue #12, item 5): files that are not
regular files, symlink loops, Ctrl-C in a long query, an Nsight Compute report given to `diagnose`, an unknown
--range."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import PROFILES
from .test_ncu_fixtures import report_path

GOOD = PROFILES / "no_nvtx.sqlite"
TRAIN = PROFILES / "gpt_train.sqlite"


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def run_process(*args, timeout: float = 60) -> subprocess.CompletedProcess:
    """The CLI in a process of its own, so that a hang fails the test instead of blocking the suite."""
    return subprocess.run([sys.executable, "-m", "nsys_analytics", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, check=False)


def one_line_error(code: int, stdout: str, stderr: str, returncode: int, *words: str) -> str:
    assert returncode == code, stdout + stderr
    lines = (stdout + stderr).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), stdout + stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("command", [["kernels", "{F}"], ["sql", str(GOOD), "-a", "b={F}", "SELECT 1"],
                                     ["ncu", "{F}"], ["diff", "{F}", str(GOOD)],  # diff's process count hung on it
                                     ["diff", "{F}", str(GOOD), "--vs", str(GOOD), "{F}"]])
def test_named_pipe_is_refused_without_opening_it(tmp_path, command):
    fifo = tmp_path / ("pipe.ncu-rep" if command[0] == "ncu" else "pipe.sqlite")
    os.mkfifo(fifo)
    done = run_process(*[a.format(F=fifo) for a in command], timeout=30)
    one_line_error(1, done.stdout, done.stderr, done.returncode, "named pipe")


def test_device_is_refused():
    done = run_process("info", "/dev/null")
    one_line_error(1, done.stdout, done.stderr, done.returncode, "/dev/null", "device")


def test_socket_is_refused(tmp_path):
    path = tmp_path / "s.sqlite"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
        result = run("kernels", path)
        one_line_error(1, result.output, "", result.exit_code, "is a socket")
    finally:
        server.close()


def test_symlink_loop(tmp_path):
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    a.symlink_to(b)
    b.symlink_to(a)
    result = run("kernels", a)
    one_line_error(1, result.output, "", result.exit_code, "a.sqlite", "symlink loop")


def test_dangling_symlink_names_its_target(tmp_path):
    link = tmp_path / "run.sqlite"
    link.symlink_to(tmp_path / "gone.sqlite")
    result = run("kernels", link)
    one_line_error(1, result.output, "", result.exit_code, "run.sqlite", "gone.sqlite")


def test_ctrl_c_in_a_long_query_exits_130_at_once():
    """A query that would run for hours, over a profile's own tables; Ctrl-C must end it within a second or two."""
    query = "SELECT count(*) FROM kernels a, kernels b, kernels c, kernels d WHERE a.start_ns + b.start_ns > c.end_ns"
    proc = subprocess.Popen([sys.executable, "-m", "nsys_analytics", "sql", str(TRAIN), query],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        _wait_until_busy(proc.pid, cpu_s=2.0)  # past start-up (under 1 s of CPU) and into the query
        assert proc.poll() is None, proc.communicate()
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=30)
        waited = time.monotonic() - sent
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert stderr.strip().splitlines() == ["Interrupted."], stderr
    assert waited < 4, f"exit came {waited:.1f} s after Ctrl-C"


def _wait_until_busy(pid: int, cpu_s: float, limit_s: float = 120) -> None:
    """Wait until process `pid` has used `cpu_s` seconds of CPU (user + system, from /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / tick >= cpu_s:
            return
        time.sleep(0.1)


@pytest.mark.parametrize("command", ["kernels", "diagnose", "nvtx", "breakdown", "info", "nvtx-gpu", "attention"])
def test_ncu_report_given_to_an_nsys_command(command):
    result = run(command, report_path("matmul_basic"))
    one_line_error(1, result.output, "", result.exit_code, "matmul_basic.ncu-rep", "Nsight Compute report",
                   "nsys-analytics ncu")


def test_unknown_range_lists_the_ranges_close_matches_first():
    result = run("kernels", TRAIN, "--range", "forwrd")
    line = one_line_error(2, result.output, "", result.exit_code, "forwrd")
    assert "SQL error" not in line
    listed = line.split("forwrd", 1)[1]
    assert listed.index("forward") < listed.index("backward"), line
