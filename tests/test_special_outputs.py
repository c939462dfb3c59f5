"""-o to a path that is not a regular file (/dev/null, a FIFO) is written to and stays what it is, for every
writer: the pictures (plotstyle.save), the html page and the trace (visual.outputs), the tables (cli.outputs).
A rename over it would replace the device with a regular file (as root, /dev/null itself). Tested on a FIFO, so
that a failure cannot break this machine's /dev/null."""

from __future__ import annotations

import os
import stat
import threading

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import PROFILES

TRAIN = str(PROFILES / "gpt_train.sqlite")

COMMANDS = {
    "timeline": ["timeline", TRAIN, "-o"],
    "html": ["html", TRAIN, "-o"],
    "perfetto": ["export", TRAIN, "--to", "perfetto", "-o"],
    "breakdown --plot": ["breakdown", TRAIN, "--format", "csv", "--plot"],
    "kernels": ["kernels", TRAIN, "--format", "csv", "-o"],
}

SUFFIXES = {"timeline": "out.png", "breakdown --plot": "out.png", "html": "out.html", "perfetto": "out.json"}


@pytest.mark.parametrize("name", COMMANDS)
def test_a_fifo_output_is_written_to_not_replaced(tmp_path, name):
    fifo = tmp_path / SUFFIXES.get(name, "out.fifo")
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(len(fifo.read_bytes())), daemon=True)
    reader.start()
    result = CliRunner().invoke(cli, [*COMMANDS[name], str(fifo)])
    reader.join(timeout=10)  # the command has closed what it wrote: the reader is at its end of file
    if reader.is_alive():  # still waiting for a writer: nothing opened the FIFO for writing; let the reader go
        with open(fifo, "wb", buffering=0) if stat.S_ISFIFO(fifo.stat().st_mode) else open(os.devnull, "wb"):
            pass
        reader.join(timeout=30)
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(fifo.stat().st_mode), f"{name}: the FIFO was replaced by a regular file"
    assert received and received[0] > 0, f"{name}: nothing was written into the FIFO"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("args", [COMMANDS["kernels"], ["nvtx", TRAIN, "--format", "json", "-o"],
                                  ["sql", TRAIN, "SELECT 1 AS x", "--format", "csv", "-o"]])
def test_a_full_device_is_a_one_line_error(args):
    """/dev/full takes no byte (ENOSPC): one line naming the output, exit 2, as for a folder that cannot be
    written; it was an internal error (exit 3). /dev/full is only written to, never replaced."""
    result = CliRunner().invoke(cli, [*args, "/dev/full"])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines()[-1].startswith("Error: -o /dev/full: cannot be written (No space")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_an_output_under_a_file_says_the_file_is_no_folder(tmp_path):
    """-o a.sqlite/x.csv: the 'folder' is a file (it was reported as a folder that does not exist)."""
    result = CliRunner().invoke(cli, ["kernels", TRAIN, "-o", f"{TRAIN}/x.csv"])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "gpt_train.sqlite is a file, not a folder" in result.output
