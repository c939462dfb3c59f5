"""`make test`'s workers (tests/worker_crashes.py): a test whose worker dies of a signal runs once more; a test that
kills its worker twice fails, and the suite with it. Run as `make test` runs it: pytest on two xdist workers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

INNER = '''
import os, signal
from pathlib import Path

ONCE = Path(__file__).with_name("crashed-once")


def test_crashes_its_worker_once():
    if not ONCE.exists():
        ONCE.touch()
        os.kill(os.getpid(), signal.SIGSEGV)


def test_crashes_its_worker_every_time():
    os.kill(os.getpid(), signal.SIGKILL)


def test_fine():
    pass
'''


def _run(folder: Path, *plugin: str) -> subprocess.CompletedProcess:
    (folder / "test_inner.py").write_text(INNER)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-n", "2", "-p", "no:cacheprovider", *plugin,
                           "test_inner.py"], cwd=folder, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_a_test_whose_worker_crashed_runs_once_more(tmp_path):
    run = _run(tmp_path, "-p", "tests.worker_crashes")
    out = run.stdout
    assert run.returncode == 1, out  # the test that crashes every time fails the suite
    assert "PASSED test_inner.py::test_crashes_its_worker_once" in out, out
    assert "FAILED test_inner.py::test_crashes_its_worker_every_time" in out, out
    assert "PASSED test_inner.py::test_fine" in out, out
    assert "1 failed, 2 passed, 2 rerun" in out, out  # each crashing test was given one more run, not more


def test_without_the_hook_a_crash_fails_its_test(tmp_path):
    """The hook is what gives the second run: without it the test that crashes once fails."""
    out = _run(tmp_path).stdout
    assert "FAILED test_inner.py::test_crashes_its_worker_once" in out, out
