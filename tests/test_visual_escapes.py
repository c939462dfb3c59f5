"""Pictures of a profile whose kernel and NVTX range names hold terminal control sequences: nothing of them reaches
the terminal. A font has no glyph for ESC or BEL, and matplotlib's warning about a missing glyph quotes the raw
character on stderr; plots show names escaped (plotstyle.label) so that warning never comes. Run as real processes:
warnings print through Python's own warning machinery, which an in-process runner would not show as a terminal
does."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from .conftest import ROOT
from .test_escapes import CONTROL, HOSTILE, hostile_profile  # noqa: F401 (a fixture)

COMMANDS = [
    ["html", "{P}", "-o", "{T}/report.html"],
    ["breakdown", "{P}", "--by", "range", "--plot", "{T}/ranges.png"],
    ["breakdown", "{P}", "--plot", "{T}/shares.png"],
    ["timeline", "{P}", "-o", "{T}/timeline.png"],
    ["timeline", "{P}", "-o", "{T}/timeline.svg"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(a[:1] + a[2:-1]) for a in COMMANDS])
def test_plots_print_no_control_character(hostile_profile, tmp_path, args):  # noqa: F811
    command = [a.format(P=hostile_profile, T=tmp_path) for a in args]
    env = {**os.environ, "PYTHONWARNINGS": "default"}  # every warning shown, as a user's shell would
    done = subprocess.run([sys.executable, "-m", "nsys_analytics", *command], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert not CONTROL.findall(done.stdout), done.stdout
    assert not CONTROL.findall(done.stderr.replace("\n", "")), done.stderr
    assert "Glyph" not in done.stderr, done.stderr
    assert (tmp_path / command[-1].rsplit("/", 1)[1]).stat().st_size > 0


def test_the_picture_shows_the_name_escaped(hostile_profile, tmp_path):  # noqa: F811
    """The SVG holds the range's name with its escapes as a text element, not the raw control characters."""
    out = tmp_path / "t.svg"
    done = subprocess.run([sys.executable, "-m", "nsys_analytics", "timeline", str(hostile_profile), "-o", str(out),
                           "--no-api"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    svg = out.read_text()
    assert not CONTROL.findall(svg.replace("\n", ""))
    assert ">range\\x1b]0;owned\\x07" in svg


def test_the_trace_keeps_the_exact_name(hostile_profile, tmp_path):  # noqa: F811
    """A machine format: the trace holds the names as they are, JSON-escaped, and stays valid JSON (DuckDB writes
    each event on a line of its own, with control characters as quote and delimiter, which JSON never holds raw)."""
    out = tmp_path / "t.json"
    done = subprocess.run([sys.executable, "-m", "nsys_analytics", "export", str(hostile_profile), "--to", "perfetto",
                           "-o", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert not CONTROL.findall(done.stderr.replace("\n", ""))
    events = json.loads(out.read_text())["traceEvents"]
    assert any(e.get("args", {}).get("name") == HOSTILE for e in events)
    assert any(e["name"] == "range" + HOSTILE for e in events if e.get("cat") == "nvtx")
