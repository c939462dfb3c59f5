"""A profile the user may not read (chmod 000) is the profile's own problem: one line naming it, exit 1, and
`--skip-bad` goes on without it (before, click refused it as a 3-line usage error, exit 2, that --skip-bad could
not skip).

Root reads every file whatever its mode, so under root the commands run as `nobody` (setpriv); the files are in a
folder of /tmp that nobody may enter."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .conftest import PROFILES

FORWARD, TRAIN = PROFILES / "gpt_forward.sqlite", PROFILES / "gpt_train.sqlite"


def _as_user() -> list[str] | None:
    """The prefix that runs a command as a user for whom mode 000 means unreadable; None where there is none."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    try:
        import pwd

        pwd.getpwnam("nobody")
    except KeyError:
        return None
    if setpriv is None:
        return None
    return [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


PREFIX = _as_user()
pytestmark = pytest.mark.skipif(PREFIX is None, reason="no user to whom a file can be unreadable (setpriv, nobody)")


@pytest.fixture(scope="module")
def folder():
    """ok.sqlite, ok2.sqlite readable by all; locked.sqlite (and locked.ncu-rep) mode 000; a cache folder."""
    root = Path(tempfile.mkdtemp(prefix="nsys-analytics-unreadable-"))
    root.chmod(0o777)
    shutil.copy(FORWARD, root / "ok.sqlite")
    shutil.copy(TRAIN, root / "ok2.sqlite")
    for name in ("locked.sqlite", "locked.ncu-rep"):
        shutil.copy(FORWARD, root / name)
        (root / name).chmod(0)
    (root / "cache").mkdir(mode=0o777)
    (root / "cache").chmod(0o777)
    if PREFIX:
        probe = subprocess.run([*PREFIX, sys.executable, "-c", "open('locked.sqlite', 'rb')"], cwd=root,
                               capture_output=True, text=True)
        if "PermissionError" not in probe.stderr:
            pytest.skip(f"cannot run as a user to whom mode 000 is unreadable: {probe.stderr[-300:]}")
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _run(folder: Path, *args) -> subprocess.CompletedProcess:
    # --jobs 1 where a command reads several files: multiprocessing's helper processes re-execute the interpreter,
    # which a user other than its owner may not be able to do on a test machine.
    env = {**os.environ, "NSYS_ANALYTICS_CACHE": str(folder / "cache"), "HOME": str(folder)}
    return subprocess.run([*PREFIX, sys.executable, "-m", "nsys_analytics", *map(str, args)], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)


COMMANDS = [
    ["info", "locked.sqlite"], ["kernels", "locked.sqlite"], ["nvtx", "locked.sqlite"],
    ["sql", "locked.sqlite", "SELECT 1"], ["breakdown", "locked.sqlite"], ["diagnose", "locked.sqlite"],
    ["export", "locked.sqlite", "--to", "perfetto", "-o", "out.json"], ["html", "locked.sqlite", "-o", "out.html"],
    ["report", "--forward", "locked.sqlite"], ["diff", "locked.sqlite", "ok.sqlite"], ["ncu", "locked.ncu-rep"],
    ["runs", "add", "locked.sqlite", "--db", "runs.db"], ["kernels", "locked.sqlite", "ok.sqlite", "--jobs", "1"],
    ["ranks", "locked.sqlite", "ok.sqlite", "ok2.sqlite", "--jobs", "1"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c[:2]) for c in COMMANDS])
def test_an_unreadable_profile_is_one_line_exit_1(folder, command):
    done = _run(folder, *command)
    locked = "locked.ncu-rep" if command[0] == "ncu" else "locked.sqlite"
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and f"{locked}: permission denied" in done.stderr, done.stderr
    assert "Usage:" not in done.stderr and done.stdout == ""


@pytest.mark.parametrize("command", [["kernels"], ["nvtx"], ["ranks"]])
def test_skip_bad_goes_on_without_it(folder, command):
    done = _run(folder, *command, "locked.sqlite", "ok.sqlite", "ok2.sqlite", "--skip-bad", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert "skipped (--skip-bad) locked.sqlite: permission denied" in done.stderr
    readable = _run(folder, *command, "ok.sqlite", "ok2.sqlite", "--jobs", "1")
    assert readable.returncode == 0 and done.stdout == readable.stdout  # the answer of the readable ones
