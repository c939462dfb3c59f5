"""`nsys_analytics.open_set` from a user's own script, run as Python runs it: a file without an
`if __name__ == "__main__":` block, the same read from standard input, and one written for multiprocessing. The
docs' example works as written, nothing of the script runs twice, and processes are kept where they can start."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import RANKS, ROOT, rank_files

RUN = RANKS / "ddp_balanced"
pytestmark = pytest.mark.skipif(not RUN.is_dir(), reason="the DDP fixtures are absent")

# What the script prints once its work is done: the kernel rows per rank of the combined table, and the pids that
# ran the per-rank work.
REPORT = '''
import json as _json, os as _os
_table = ps.kernel_summary(table="ranks")
_pids = sorted(set(ps.map(worker_pid)))
print("RESULT " + _json.dumps({"instances": int(_table["instances"].sum()), "ranks": len(ps),
                                "pids": _pids, "me": _os.getpid()}))
'''


def _docs_example() -> str:
    """The Python block of docs/ranks.md that opens a set, with the fixture run in place of `runs/`."""
    text = (ROOT / "docs" / "ranks.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "open_set([\"runs/\"]" in b)
    return block.replace('"runs/"', repr(str(RUN) + "/"))


def _script(body: str) -> str:
    return ("import os\nprint('TOP LEVEL', os.getpid(), flush=True)\n"
            "\n"
            "def worker_pid(member):\n    return os.getpid()\n\n" + body)


def _run(script: str, tmp_path: Path, stdin: bool) -> subprocess.CompletedProcess:
    env = {**os.environ, "NSYS_ANALYTICS_CACHE": str(tmp_path / "cache")}
    if stdin:
        cmd, feed = [sys.executable, "-"], script
    else:
        (tmp_path / "user_script.py").write_text(script)
        cmd, feed = [sys.executable, str(tmp_path / "user_script.py")], None
    return subprocess.run(cmd, input=feed, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)


def _kernel_rows() -> int:
    """Kernel executions in the run's files, counted in SQLite directly."""
    total = 0
    for path in rank_files("ddp_balanced"):
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        total += con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
        con.close()
    return total


def _result(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "BrokenProcessPool" not in done.stderr, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert len(lines) == 1, done.stdout
    return json.loads(lines[0][len("RESULT "):])


@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_the_docs_example_as_a_plain_script(tmp_path, stdin):
    """No __main__ block: the top level calls open_set. It runs once (threads do the per-rank work) and answers."""
    done = _run(_script(_docs_example() + REPORT), tmp_path, stdin)
    result = _result(done)
    assert done.stdout.count("TOP LEVEL") == 1, done.stdout
    assert result["ranks"] == 2 and result["instances"] == _kernel_rows()
    assert result["pids"] == [result["me"]]


@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_the_readme_one_liner_with_the_default_jobs(tmp_path, stdin):
    body = ("import nsys_analytics\n"
            f"ps = nsys_analytics.open_set([{str(RUN) + '/'!r}], jobs=2)\n"
            "print(nsys_analytics.open_set([" + repr(str(RUN) + "/") + "]).kernel_summary().shape)\n")
    done = _run(_script(body + REPORT), tmp_path, stdin)
    assert _result(done)["instances"] == _kernel_rows() and done.stdout.count("TOP LEVEL") == 1


def test_a_script_written_for_multiprocessing_keeps_worker_processes(tmp_path):
    """Its open_set runs inside `if __name__ == "__main__":`: worker processes can import the script (only the
    unguarded lines run there), so the per-rank work runs in other processes."""
    body = ("import nsys_analytics\n\n"
            "if __name__ == '__main__':\n"
            f"    ps = nsys_analytics.open_set([{str(RUN) + '/'!r}], jobs=2)\n"
            + "".join(f"    {line}\n" for line in REPORT.strip().splitlines()))
    done = _run(_script(body), tmp_path, stdin=False)
    result = _result(done)
    assert result["instances"] == _kernel_rows()
    assert result["me"] not in result["pids"] and len(result["pids"]) >= 1


def test_main_module_checks(tmp_path):
    """The decision on its own: the guarded lines of a file, and a pytest process (a package's __main__ or a
    guarded executable) keeps processes."""
    from nsys_analytics.data.engine import _guarded_lines, workers_can_import_main

    source = ("x = 1\nif __name__ == '__main__':\n    a()\n    b()\nif '__main__' == __name__:\n    c()\n"
              "if __name__ == 'other':\n    d()\n")
    path = tmp_path / "guarded_example.py"
    path.write_text(source)
    assert _guarded_lines(str(path)) == [(2, 4), (5, 6)]
    assert workers_can_import_main()
