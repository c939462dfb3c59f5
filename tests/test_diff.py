"""`diff`: per-kernel figures equal NVIDIA's cuda_gpu_kern_sum, the verdict checked by hand arithmetic on nvtx_sum,
variant kernels and renamed ranges paired, several ranks per side, every format, bad input."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections import defaultdict

import pytest
from click.testing import CliRunner

import nsys_analytics
from nsys_analytics.capabilities.categories import load_rules
from nsys_analytics.cli.main import cli
from nsys_analytics.capabilities.diff.data import summarize
from nsys_analytics.capabilities.diff.report import build_diff
from nsys_analytics.core.rounding import nsys_round

from .conftest import PROFILES, oracle_csv, read_csv

MS = 1_000_000

TRAIN, SDPA = PROFILES / "gpt_train.sqlite", PROFILES / "gpt_sdpa_train.sqlite"
FORWARD, RENAMED = PROFILES / "gpt_forward.sqlite", PROFILES / "gpt_renamed_forward.sqlite"
_SUMMARIES: dict = {}


def summary(path, attribution="process", window="all"):
    """The whole capture by default: NVIDIA's reports cover it."""
    key = (path, attribution, window)
    if key not in _SUMMARIES:
        with nsys_analytics.open(path) as p:
            _SUMMARIES[key] = summarize(p, load_rules(), 0, attribution, window=window)
    return _SUMMARIES[key]


def oracle_rows(path, report):
    rows = read_csv(oracle_csv(path, report))
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def _cell(v) -> str:
    return f"{nsys_round(v):.1f}" if isinstance(v, float) else str(v)


@pytest.mark.parametrize("path", [TRAIN, SDPA, FORWARD])
@pytest.mark.parametrize("name_kind,report", [("demangled", "cuda_gpu_kern_sum"), ("short", "cuda_gpu_kern_sum_base")])
def test_kernel_figures_equal_nsys(path, name_kind, report):
    ours = {k.name: k.stat for k in summary(path).kernel_stats(name_kind)}
    oracle = oracle_rows(path, report)
    assert len(ours) == len(oracle)
    for row in oracle:
        s = ours[row["Name"]]
        assert (str(s.total_ns), str(s.instances), str(s.min_ns), str(s.max_ns)) == (
            row["Total Time (ns)"], row["Instances"], row["Min (ns)"], row["Max (ns)"]), row["Name"]
        assert (_cell(s.avg_ns), _cell(s.med_ns), _cell(s.stddev_ns)) == (
            row["Avg (ns)"], row["Med (ns)"], row["StdDev (ns)"]), row["Name"]


def test_diff_totals_are_each_sides_nsys_totals():
    report = build_diff([summary(TRAIN)], [summary(SDPA)], "short")
    cols = report.kernels.columns
    base = {r["Name"]: int(r["Total Time (ns)"]) for r in oracle_rows(TRAIN, "cuda_gpu_kern_sum_base")}
    new = {r["Name"]: int(r["Total Time (ns)"]) for r in oracle_rows(SDPA, "cuda_gpu_kern_sum_base")}
    seen_base, seen_new = defaultdict(int), defaultdict(int)  # a kernel's rows (one per range) add up to its total
    for row in report.kernels.rows:
        r = dict(zip(cols, row))
        names = r["name"].split(" -> ") if r["status"] == "variant" else [r["name"], r["name"]]
        if r["base_instances"]:
            seen_base[names[0]] += r["base_total_ns"]
        if r["new_instances"]:
            seen_new[names[-1]] += r["new_total_ns"]
    assert seen_base == base and seen_new == new
    total = dict(zip(report.categories.columns, report.categories.rows[-1]))
    assert (total["base_total_ns"], total["new_total_ns"]) == (sum(base.values()), sum(new.values()))


def test_headline_step_time_by_hand_from_nvtx_sum():
    """Step time = mean of the train_loop:step_N ranges of nsys' nvtx_sum, on each side (none is warm-up: the
    steady state keeps all three)."""
    def steps(path):
        return [int(r["Total Time (ns)"]) for r in oracle_rows(path, "nvtx_sum") if r["Range"].startswith(
            "train_loop:step_")]

    b, n = steps(TRAIN), steps(SDPA)
    assert len(b) == len(n) == 3
    base_ms, new_ms = sum(b) / 3 / 1e6, sum(n) / 3 / 1e6  # 7.673365 and 5.540174 ms
    pct = 100 * (new_ms - base_ms) / base_ms  # -27.8 %
    for window in ("steady", "all"):
        report = build_diff([summary(TRAIN, window=window)], [summary(SDPA, window=window)])
        h = report.headline
        assert h["range"] == "train_loop:step_*" and h["base_instances"] == h["new_instances"] == 3
        assert h["base_ns"] == pytest.approx(sum(b) / 3) and h["new_ns"] == pytest.approx(sum(n) / 3)
        assert f"step time {base_ms:.3f} ms -> {new_ms:.3f} ms ({pct:+.1f} %)" in report.verdict
        assert "-27.8 %" in report.verdict


def test_variants_pair_same_category_and_range():
    report = build_diff([summary(TRAIN)], [summary(SDPA)], "short")
    rows = [dict(zip(report.kernels.columns, r)) for r in report.kernels.rows]
    variants = [r for r in rows if r["status"] == "variant"]
    assert variants, "cutlass/xmma GEMMs replaced by nvjet should pair"
    categories = {k.name: k.category for k in summary(TRAIN).kernel_stats("short")}
    categories.update({k.name: k.category for k in summary(SDPA).kernel_stats("short")})
    for r in variants:
        old, new = r["name"].split(" -> ")
        assert categories[old] == categories[new] == r["category"]
        assert r["range"] is not None
    pair = next(r for r in variants if r["name"].startswith("Kernel2 -> "))
    assert pair["name"].split(" -> ")[1].startswith("nvjet_sm90") and pair["range"] == ":backward"


def test_renamed_ranges_pair_and_keep_nsys_figures():
    report = build_diff([summary(FORWARD)], [summary(RENAMED)])
    rows = {r[0]: dict(zip(report.ranges.columns, r)) for r in report.ranges.rows}
    base = {r["Range"]: r for r in oracle_rows(FORWARD, "nvtx_sum")}
    new = {r["Range"]: r for r in oracle_rows(RENAMED, "nvtx_sum")}
    for old, renamed in [(":computing_attention_scores", ":attn_scores"), (":computing_softmax", ":attn_softmax"),
                         (":scaled_dot_product_attention", ":attention"), (":final_matmul", ":attn_out")]:
        r = rows[f"{old} -> {renamed}"]
        assert (r["base_instances"], r["new_instances"]) == (int(base[old]["Instances"]), int(new[renamed]["Instances"]))
        assert _cell(r["base_avg_ns"]) == base[old]["Avg (ns)"] and _cell(r["new_avg_ns"]) == new[renamed]["Avg (ns)"]
    assert all(r["base_instances"] and r["new_instances"] for r in rows.values())


def test_a_profile_against_itself_changes_nothing():
    report = build_diff([summary(TRAIN, "none")], [summary(TRAIN, "none")])
    assert {r[0] for r in report.kernels.rows} == {"same"}
    assert report.headline["change_pct"] == 0
    p = report.kernels.columns.index("p_value")
    assert all(r[p] == pytest.approx(1.0) for r in report.kernels.rows)


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "markdown"])
def test_cli_formats(fmt, tmp_path):
    result = invoke("diff", TRAIN, SDPA, "--format", fmt, "--attribution", "none", "--name", "short")
    assert result.exit_code == 0, result.output
    if fmt == "json":
        data = json.loads(result.output)
        assert data["verdict"].startswith("GPU kernel time per step") and data["kernels"] and data["ranges"]
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(result.output)))
        assert rows[0][0] == "Status" and rows[0][-1] == "Name" and len(rows) > 20
    else:
        assert result.output.startswith(("GPU kernel time per step", "**GPU kernel time per step"))


def test_csv_keeps_p_and_q_as_json_gives_them():
    """CSV writes floats with nsys' one decimal; p and q keep six significant digits, so that a program can compare
    them with its alpha (one decimal read every p below 0.05 as 0.0)."""
    args = ("diff", TRAIN, SDPA, "--attribution", "none", "--name", "short")
    rows = list(csv.DictReader(io.StringIO(invoke(*args, "--format", "csv").output)))
    kernels = json.loads(invoke(*args, "--format", "json").output)["kernels"]
    assert len(rows) == len(kernels) and any(k["p_value"] and k["p_value"] < 0.05 for k in kernels)
    for r, k in zip(rows, kernels):
        for text, value in ((r["p"], k["p_value"]), (r["q (BH)"], k["q_value"])):
            assert (float(text) == pytest.approx(value, rel=1e-5)) if value is not None else text == ""


def test_cli_plot_and_output(tmp_path):
    png, out = tmp_path / "d.png", tmp_path / "d.md"
    result = invoke("diff", FORWARD, RENAMED, "--plot", png, "--format", "markdown", "-o", out)
    assert result.exit_code == 0, result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.read_text().startswith("**")
    assert "run-to-run noise" in out.read_text().splitlines()[0]


def test_several_ranks_per_side(tmp_path):
    """Two ranks per side (copies named rank0/rank1, opened as a ProfileSet): merged totals are twice one rank's,
    the ranks table pairs rank 0 with rank 0."""
    files = {}
    for side, src in (("base", TRAIN), ("new", SDPA)):
        files[side] = [tmp_path / f"{side}_rank{i}.sqlite" for i in (0, 1)]
        for f in files[side]:
            shutil.copy(src, f)
    result = invoke("diff", "--base", *files["base"], "--new", *files["new"], "--format", "json",
                    "--attribution", "none", "--window", "all")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [r["rank"] for r in data["ranks"]] == [0, 1]
    one = build_diff([summary(TRAIN, "none")], [summary(SDPA, "none")])
    total_one = dict(zip(one.categories.columns, one.categories.rows[-1]))
    total = data["categories"][-1]
    assert total["base_total_ns"] == 2 * total_one["base_total_ns"]
    assert data["ranks"][0]["base_kernel_ns"] == total_one["base_total_ns"]
    assert data["headline"]["base_instances"] == 6  # 3 steps per rank


def test_bad_input_one_line_and_exit_code(tmp_path):
    missing = invoke("diff", tmp_path / "nope.sqlite", TRAIN)
    assert missing.exit_code == 1 and missing.output.count("\n") == 1 and "nope.sqlite" in missing.output
    assert invoke("diff", TRAIN).exit_code == 2
    assert invoke("diff", "--base", TRAIN).exit_code == 2


def test_auto_attribution_skips_large_profiles(monkeypatch):
    from nsys_analytics.capabilities.diff import data

    with nsys_analytics.open(FORWARD) as p:
        assert summarize(p, load_rules(), 0, "auto").attribution == "process"
    monkeypatch.setattr(data, "AUTO_MAX_KERNELS", 1000)  # gpt_forward has 1,227 kernels
    with nsys_analytics.open(FORWARD) as p:
        s = summarize(p, load_rules(), 0, "auto")
    assert s.attribution is None and s.meta["attribution_skipped_kernels"] == 1227
    report = build_diff([s], [s])
    assert report.range_categories is None and any("attribution skipped" in n for n in report.notes)


# -- against `nsys recipe diff` (docs/diff.md) -------------------------------------------------------------------

def _recipe_diff(dir1_csv, dir2_csv) -> dict[str, dict[str, float]]:
    """What `nsys recipe diff --input DIR1 DIR2` computes on two cuda_gpu_kern_sum outputs' all_stats, as its source
    (nsys_recipe/recipes/diff/diff.py, Nsight Systems 2025.3.1) does: the numeric columns of DIR1 minus those of
    DIR2 reindexed on DIR1's names (a name only in DIR2 is dropped; one only in DIR1 gets no difference)."""
    def table(path):
        rows = read_csv(path)
        return {r[0]: dict(zip(rows[0][1:], r[1:])) for r in rows[1:]}

    one, two = table(dir1_csv), table(dir2_csv)
    return {name: {k: float(v) - float(two[name][k]) for k, v in cols.items() if v != "" and two[name].get(k, "")}
            for name, cols in one.items() if name in two}


def test_the_changes_equal_nsys_recipe_diff_where_they_overlap():
    """NVIDIA's `nsys recipe cuda_gpu_kern_sum` outputs of two 2-rank DDP runs (fixtures/oracle/*_recipes, made by
    nsys 2025.3.1), subtracted as `nsys recipe diff --input BALANCED STRAGGLER` does, against `diff --base
    balanced ranks --new straggler ranks --name short`: per kernel, Count, Sum and Mean differences are ours with
    the sign flipped (the recipe gives DIR1 - DIR2, we new - base). Median and Std are approximations in the
    recipe's all_stats (merged over ranks), so they are not compared."""
    from nsys_analytics.capabilities.diff.data import summarize_side

    oracle = PROFILES.parent / "oracle"
    recipe = _recipe_diff(oracle / "ddp_balanced_recipes" / "cuda_gpu_kern_sum__all_stats.csv",
                          oracle / "ddp_straggler_recipes" / "cuda_gpu_kern_sum__all_stats.csv")
    ranks = PROFILES.parent / "ranks"
    sides = [summarize_side([str(p) for p in sorted((ranks / run).glob("*.sqlite"))], load_rules(), "none",
                            window="all") for run in ("ddp_balanced", "ddp_straggler")]
    ours = {r["name"]: r for r in build_diff(*sides, "short").kernels.to_records()}
    assert len(recipe) >= 20 and set(recipe) <= set(ours)
    for name, d in recipe.items():
        r = ours[name]
        assert -d["Count"] == r["new_instances"] - r["base_instances"], name
        assert -d["Sum"] == r["change_ns"], name
        assert -d["Mean"] == pytest.approx(r["new_avg_ns"] - r["base_avg_ns"], abs=0.1), name  # recipe: 1 decimal


@pytest.mark.parametrize("table, why", [("runs", "several runs per side"), ("ranks", "several ranks per side")])
def test_a_table_this_comparison_lacks_is_a_usage_error(table, why):
    """One run per side has no runs or ranks table: one line saying what gives it, exit 2, never an empty output."""
    for fmt in ("table", "csv"):
        result = invoke("diff", TRAIN, SDPA, "--table", table, "--format", fmt)
        assert result.exit_code == 2 and result.output.count("\n") == 1 and why in result.output, result.output


def test_a_data_straggler_reads_as_time_outside_kernels_and_nccl_waits():
    """ddp_straggler's rank 1 sleeps 30 ms in its data loading each step by design (fixtures/regenerate_x2.sh,
    FX2_STRAGGLER_MS): against ddp_balanced the step grows by about that, outside kernels, and the other rank's
    all-reduce kernels run on until rank 1 arrives. The verdict leads with the step, says the change lies mostly
    outside kernels, keeps NCCL's kernels out of the kernel time, and names their growth as possible waiting with
    the command that finds the rank (it led with "mostly communication kernels" before)."""
    ranks = PROFILES.parent / "ranks"
    args = ["diff", "--base", *sorted((ranks / "ddp_balanced").glob("*.sqlite")), "--new",
            *sorted((ranks / "ddp_straggler").glob("*.sqlite")), "--format", "json"]
    d = json.loads(invoke(*args).output)
    verdict, h = d["verdict"], d["headline"]
    assert verdict.startswith("Step time (mean over 2 ranks)") and "beyond run-to-run noise, mostly outside GPU " \
        "kernels" in verdict, verdict
    assert h["step"]["new_ns"] - h["step"]["base_ns"] == pytest.approx(30 * MS, rel=0.1)
    assert h["kernel_scope"] == "compute" and "NCCL's kernels left out of the kernel time" in verdict
    assert "mostly communication kernels" not in verdict and "NCCL's kernels +" in verdict
    assert "may be time spent waiting for a slower rank" in verdict and "`nsys-analytics ranks`" in verdict


def test_several_ranks_say_the_kernel_time_is_their_sum_and_the_step_time_their_mean():
    """Two ranks a side: the kernel time per step is both ranks' kernels summed (about twice one rank's, so it read
    as more than the step time with no word why) and the step time the ranks' mean; the steps counted are the
    ranks' instances. The verdict says each; the summed figure equals the sum of each rank's own diff."""
    ranks = PROFILES.parent / "ranks"
    base = sorted((ranks / "ddp_balanced").glob("*.sqlite"))
    new = sorted((ranks / "ddp_straggler").glob("*.sqlite"))
    both = json.loads(invoke("diff", "--base", *base, "--new", *new, "--format", "json").output)
    assert "GPU compute kernel time per step (summed over 2 ranks)" in both["verdict"]
    assert "Step time (mean over 2 ranks)" in both["verdict"] and "rank steps" in both["verdict"]
    alone = [json.loads(invoke("diff", b, n, "--format", "json").output) for b, n in zip(base, new)]
    assert all("summed over" not in a["verdict"] and "rank steps" not in a["verdict"] for a in alone)
    assert both["headline"]["kernel"]["base_ns"] == pytest.approx(sum(a["headline"]["kernel"]["base_ns"]
                                                                      for a in alone), rel=1e-9)
