"""Run a profiler command, pass its output through, keep its last lines for the error message."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from ...core.errors import MissingDataError, NsysAnalyticsError

TAIL_LINES = 40
_NSYS_OWN = re.compile(r"^\[\d+/\d+\]|^Generat|^Processing \d+ events|^Collecting data|^Capture range|"
                       r"\.(nsys-rep|qdstrm|sqlite)$|^==PROF==")


class ProgramFailed(NsysAnalyticsError):
    """The profiled program exited with a non-zero code."""


class ToolFailed(NsysAnalyticsError):
    """nsys / ncu itself failed (bad option, no permission, no report written)."""


class NoReport(NsysAnalyticsError):
    """nsys wrote its raw stream (.qdstrm) but could not turn it into a report."""


class NoKernels(MissingDataError):
    """The profile holds no CUDA kernel."""


@dataclass
class Completed:
    returncode: int
    tail: list[str]  # the last lines of the combined output, blank lines dropped

    def last_lines(self, n: int = 6) -> str:
        return " | ".join(self.tail[-n:]) or "(no output)"

    def program_lines(self, n: int = 6) -> str:
        """The last lines without nsys' own (progress bars, 'Generating', 'Generated:' and the report paths)."""
        own = [line for line in self.tail if not _NSYS_OWN.search(line)]
        return " | ".join(own[-n:]) or "(no output)"


def run(cmd: list[str], env: dict[str, str] | None = None, echo: Callable[[str], None] | None = None) -> Completed:
    """Run `cmd` with stdout and stderr merged, each line passed to `echo` (default: our stderr)."""
    echo = echo or _to_stderr
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    try:
        process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   env={**os.environ, **(env or {})}, text=True, errors="replace", bufsize=1)
    except OSError as e:
        raise ToolFailed(f"could not start {cmd[0]}: {e.strerror or e}") from e
    assert process.stdout is not None
    try:
        for line in process.stdout:
            echo(line)
            for part in line.replace("\r", "\n").splitlines():
                if part.strip():
                    tail.append(part.strip())
        returncode = process.wait()
    except KeyboardInterrupt:
        process.terminate()
        process.wait()
        raise
    return Completed(returncode, list(tail))


def _to_stderr(line: str) -> None:
    sys.stderr.write(line)
    sys.stderr.flush()
