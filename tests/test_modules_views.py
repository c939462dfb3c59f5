"""`modules` beyond one table: over ranks, the plot, section (f) of `report`, the HTML report's section, the Python
call, and the attribution remembered in the cache folder. Numbers are checked against the workload's CUDA-event
truth (fixtures/modules/modules_truth.json) or against `modules` on one profile, never against themselves."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

import nsys_analytics as na
from nsys_analytics.cli.main import cli

from .conftest import FIXTURES, PROFILES, unpacked

MODULES = FIXTURES / "modules"
TRUTH = json.loads((MODULES / "modules_truth.json").read_text())
HEAVY = f"blocks.{TRUTH['args']['heavy']}.mlp"


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def instrument():
    return unpacked(MODULES / "modules_instrument.sqlite.xz")


@pytest.fixture(scope="module")
def emit_nvtx():
    return unpacked(MODULES / "modules_emit_nvtx.sqlite.xz")


def one(path, *extra) -> dict:
    result = run("modules", path, "--format", "json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_over_ranks_each_rank_is_its_own_profile(instrument, emit_nvtx):
    """Two exports as two ranks: one table with a rank column, each rank's rows those of `modules` on its file."""
    result = run("modules", instrument, emit_nvtx, "--depth", "2", "--format", "json", "--jobs", "1")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["ranks"]
    for rank, path in enumerate([instrument, emit_nvtx]):
        alone = one(path, "--depth", "2")["modules"]
        assert [{k: v for k, v in r.items() if k != "rank"} for r in rows if r["rank"] == rank] == alone
        heavy = next(r for r in alone if r["module"] == f"blocks.{TRUTH['args']['heavy']}")
        truth = TRUTH["module_ms"][f"{heavy['module']}|backward"]
        assert heavy["backward_ms"] == pytest.approx(truth, rel=0.10)


def test_over_ranks_the_kernels_table_too(instrument, emit_nvtx):
    result = run("modules", instrument, emit_nvtx, "--table", "kernels", "--format", "csv", "--jobs", "1")
    assert result.exit_code == 0, result.output
    header = result.stdout.splitlines()[0].split(",")
    assert header == ["Rank", "module", "direction", "kernel", "ms"]


def test_the_plot_is_a_png_with_a_bar_per_module(instrument, tmp_path):
    target = tmp_path / "m.png"
    result = run("modules", instrument, "--depth", "1", "--plot", target)
    assert result.exit_code == 0, result.output
    from PIL import Image

    with Image.open(target) as image:
        assert image.format == "PNG" and image.height > 200
    assert run("modules", instrument, "--plot", tmp_path / "m.txt").exit_code == 2  # a PNG name, or exit 2


def test_over_ranks_one_plot_per_rank(instrument, emit_nvtx, tmp_path):
    result = run("modules", instrument, emit_nvtx, "--depth", "1", "--plot", tmp_path / "m.png", "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.rank0.png", "m.rank1.png"]


def test_report_section_f_names_the_heavy_module_with_its_true_times(instrument, emit_nvtx):
    """(f) reads the training profile; the heaviest leaf module it names is in the deliberately heavier MLP, and
    its forward and backward ms per step are within 10 % of the CUDA-event truth."""
    result = run("report", "--forward", instrument, "--train", emit_nvtx, "--format", "json")
    assert result.exit_code == 0, result.output
    f = json.loads(result.output)["sections"]["f"]
    assert f["missing"] is None
    sentence = next(line for line in f["lines"] if line.startswith("The heaviest module is"))
    found = re.match(r"The heaviest module is (\S+): ([\d.]+) ms forward and ([\d.]+) ms backward", sentence)
    module, fwd, bwd = found.group(1), float(found.group(2)), float(found.group(3))
    assert module.startswith(HEAVY + ".")
    assert fwd == pytest.approx(TRUTH["module_ms"][f"{module}|forward"], rel=0.10)
    assert bwd == pytest.approx(TRUTH["module_ms"][f"{module}|backward"], rel=0.10)
    table = f["tables"]["modules"] if isinstance(f["tables"], dict) else f["tables"][0]["rows"]
    assert "blocks.2.mlp" not in json.dumps(table)  # the table stops at depth 2 (blocks.2), the sentence goes deeper


def test_report_section_f_without_module_ranges_says_what_to_add():
    result = run("report", "--forward", PROFILES / "gpt_forward.sqlite", "--format", "json")
    f = json.loads(result.output)["sections"]["f"]
    assert "instrument(model, layers=True)" in f["missing"] and "emit_nvtx" in f["missing"]


def test_the_html_report_has_the_modules_table(emit_nvtx, tmp_path):
    page = tmp_path / "r.html"
    result = run("html", emit_nvtx, "-o", page)
    assert result.exit_code == 0, result.output
    html = page.read_text()
    section = html.split("GPU time per module, forward and backward</h3>", 1)[1].split("<h3>", 1)[0]
    assert 'data-table="modules"' in section and "<img" in section
    ours = {r["module"]: r for r in one(emit_nvtx)["modules"]}
    cell = re.search(r'<td class="short" data-col="module">blocks\.2\.mlp</td><td class="n" data-col="forward_ms" '
                     r'data-v="([\d.]+)"', section)
    assert float(cell.group(1)) == ours["blocks.2.mlp"]["forward_ms"]


def test_the_html_report_says_what_to_add_without_module_ranges(tmp_path):
    page = tmp_path / "r.html"
    assert run("html", PROFILES / "gpt_forward.sqlite", "-o", page).exit_code == 0
    section = page.read_text().split("GPU time per module, forward and backward</h3>", 1)[1].split("<h3>", 1)[0]
    assert 'class="missing"' in section and "instrument(model, layers=True)" in section


def test_the_python_call_gives_the_same_table(instrument):
    with na.open(instrument) as p:
        frame = p.modules(depth=2)
        kernels = p.modules(table="kernels", top=1)
    assert frame.to_dict("records") == one(instrument, "--depth", "2")["modules"]
    assert kernels.groupby(["module", "direction"]).size().max() == 1


def test_a_second_run_reads_the_remembered_attribution(instrument, tmp_path, monkeypatch):
    """With the cache on, the first run remembers what it read (summaries/*.modules); the second gives the same
    output without reading the profile's ranges again; other window options are another memo."""
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "0")
    first = one(instrument)
    memos = list((tmp_path / "cache" / "summaries").glob("*.modules"))
    assert len(memos) == 1

    from nsys_analytics.capabilities.modules import run as modules_run

    def refuse(*_):
        raise AssertionError("read the profile again")

    monkeypatch.setattr(modules_run, "read_inputs", refuse)
    assert one(instrument) == first
    assert one(instrument, "--depth", "1")["modules"] == [r for r in first["modules"] if "." not in r["module"]]
    result = run("modules", instrument, "--window", "all", "--format", "json")
    assert result.exit_code != 0  # another window: not remembered, so it reads (and here refuses)
    monkeypatch.setenv("NSYS_ANALYTICS_NO_CACHE", "1")
    assert run("modules", instrument, "--format", "json").exit_code != 0  # --no-cache never reads a memo


def test_the_python_set_call_stacks_each_ranks_table(instrument, emit_nvtx):
    ps = na.open_set([str(instrument), str(emit_nvtx)], jobs=1)
    frame = ps.modules(depth=1)
    for rank, path in enumerate([instrument, emit_nvtx]):
        part = frame[frame["rank"] == rank].drop(columns="rank")
        own = part.astype(object).where(part.notna(), None).to_dict("records")  # no TFLOP/s: NaN in a frame
        assert own == one(path, "--depth", "1")["modules"]
