"""`html` without a browser: bad input gets one line and exit 2, and the page refers to nothing outside itself."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .conftest import PROFILES, oracle_csv, read_csv

TRAIN = PROFILES / "gpt_train.sqlite"


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.parametrize("args, message", [
    ([], "give at least one profile"),
    (["--train", TRAIN], "--train needs --forward"),
    ([TRAIN, "-o", "report.txt"], "ending in .html"),
    ([TRAIN, "-o", TRAIN], "is an input"),  # refused before its suffix is looked at
])
def test_bad_input_exits_2(tmp_path, args, message):
    args = list(args) if "-o" in args else [*args, "-o", tmp_path / "r.html"]
    result = run("html", *args)
    assert result.exit_code == 2 and message in result.output, result.output


def test_page_is_self_contained_and_says_what_is_missing(tmp_path):
    out = tmp_path / "r.html"
    result = run("html", PROFILES / "no_nvtx.sqlite", "-o", out)
    assert result.exit_code == 0, result.output
    page = out.read_text()
    links = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert links and all(link.startswith(("data:", "#")) for link in links)
    assert "<link" not in page and "@import" not in page and "url(" not in page
    assert "has no NVTX ranges" in page and "--trace=cuda,nvtx" in page
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


def test_attribution_thread_gives_nsys_figures_in_the_nvtx_table(tmp_path):
    """`html --attribution thread`: the NVTX table is nsys' nvtx_gpu_proj_sum (`backward` 2,496 ns: its kernels were
    launched by autograd's thread), and its note says thread."""
    out = tmp_path / "r.html"
    result = run("html", TRAIN, "--attribution", "thread", "-o", out)
    assert result.exit_code == 0, result.output
    table = out.read_text().split('data-table="nvtx"', 1)[1].split("</table>", 1)
    row = next(r for r in table[0].split("<tr>") if '<td class="short" data-col="range">:backward</td>' in r)
    oracle = read_csv(oracle_csv(TRAIN, "nvtx_gpu_proj_sum"))
    backward = dict(zip(oracle[0], next(r for r in oracle if r[0] == ":backward")))
    assert f'data-col="total_proj_time_ns" data-v="{backward["Total Proj Time (ns)"]}"' in row
    assert "Attribution: thread (nsys&#x27; rule)" in table[1].split("<h3>", 1)[0]
