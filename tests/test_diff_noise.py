"""`diff`'s headline against run-to-run noise: the steady-state window per step (checked against a brute-force
reading of the export with sqlite3), Welch's t on run means (against hand arithmetic and SciPy), the minimum effect
with one run per side, step time and kernel time judged apart (synthetic copies of a fixture whose kernels or steps
were stretched by a known factor), several runs per side, mismatched sides, and `runs diff` = `diff`."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli
from nsys_analytics.capabilities.diff.noise import MIN_EFFECT_PCT, judge, welch_p

from .conftest import PROFILES

TRAIN, SDPA = PROFILES / "gpt_train.sqlite", PROFILES / "gpt_sdpa_train.sqlite"


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def diff_json(*args) -> dict:
    result = invoke("diff", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def steps_kernel_ns(path) -> tuple[list[int], list[int]]:
    """Brute force, straight from the export: each `step_N` range's duration, and the GPU time of the kernels whose
    launching runtime call (same correlation id and process) lies inside it, on any thread of the process."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    steps = con.execute("SELECT e.start, e.end, e.globalTid >> 24 FROM NVTX_EVENTS e LEFT JOIN StringIds s "
                        "ON s.id = e.textId WHERE coalesce(e.text, s.value) LIKE 'step\\_%' ESCAPE '\\' "
                        "ORDER BY e.start").fetchall()
    launches = con.execute("SELECT r.start, r.end, r.globalTid >> 24, k.end - k.start "
                           "FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                           "ON r.correlationId = k.correlationId "
                           "AND r.globalTid >> 24 = k.globalPid >> 24").fetchall()
    con.close()
    kernel = [sum(d for s, e, pid, d in launches if pid == spid and a <= s and e <= b) for a, b, spid in steps]
    return [b - a for a, b, _ in steps], kernel


def stretched(src, dst, kernels: float = 1.0, step_ns: dict[str, int] | None = None, where: str = "1"):
    """A copy of `src` whose kernels (those matching `where`) last `kernels` times as long, and whose step ranges
    named in `step_ns` end that much later."""
    shutil.copy(src, dst)
    con = sqlite3.connect(dst)
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL "
                f"SET end = start + CAST(round((end - start) * {kernels}) AS INTEGER) WHERE {where}")
    for step, ns in (step_ns or {}).items():
        con.execute("UPDATE NVTX_EVENTS SET end = end + ? WHERE textId IN (SELECT id FROM StringIds WHERE value = ?) "
                    "OR text = ?", (ns, step, step))
    con.commit()
    con.close()
    return dst


# -- Welch's t and the judgement ---------------------------------------------------------------------------------

def test_welch_by_hand():
    """[1, 2, 3] vs [4, 5, 6]: both variances 1, t = 3 / sqrt(1/3 + 1/3) = 3.6742, df = (2/3)^2 / (2 (1/3)^2 / 2)
    = 4; a t table gives the two-sided p for t = 3.6742 on 4 df as 0.02131."""
    assert welch_p([1, 2, 3], [4, 5, 6]) == pytest.approx(0.021311641, rel=1e-6)
    assert welch_p([1, 1], [1, 1]) == 1.0 and welch_p([1, 1], [2, 2]) == 0.0


def test_welch_equals_scipy():
    stats = pytest.importorskip("scipy.stats")
    import random

    rng = random.Random(7)
    for _ in range(100):
        a = [rng.gauss(10, 1) for _ in range(rng.randint(2, 6))]
        b = [rng.gauss(10.5, 2) for _ in range(rng.randint(2, 6))]
        assert welch_p(a, b) == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue, rel=1e-9)


def test_judge_one_run_needs_the_minimum_effect():
    under = judge("kernel", [100.0], [100.0 * (1 + 0.99 * MIN_EFFECT_PCT["kernel"] / 100)], 0.05)
    over = judge("kernel", [100.0], [100.0 * (1 + 1.01 * MIN_EFFECT_PCT["kernel"] / 100)], 0.05)
    assert (under.beyond, over.beyond, under.p_value, under.test) == (False, True, None, "min-effect")
    several = judge("step", [10.0, 10.2, 9.9], [10.5, 10.6, 10.4], 0.05)
    assert several.test == "welch" and several.beyond and several.p_value == pytest.approx(
        welch_p([10.0, 10.2, 9.9], [10.5, 10.6, 10.4]))


# -- the window and the unit ------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [TRAIN, SDPA])
def test_per_step_figures_by_brute_force(path):
    """Step time and GPU kernel time per step of the steady state (here every step: the warm-up is its own range)
    equal the brute-force reading; every table is in the same unit: the categories' total and the range x category
    cells add up to the kernel time per step."""
    steps, kernel = steps_kernel_ns(path)
    d = diff_json(path, path)
    h = d["headline"]
    assert h["unit"] == "per step" and h["base_instances"] == len(steps) == 3
    assert h["step"]["base_ns"] == pytest.approx(sum(steps) / 3)
    assert h["kernel"]["base_ns"] == pytest.approx(sum(kernel) / 3)
    assert d["categories"][-1]["base_total_ns"] == pytest.approx(sum(kernel) / 3)
    assert sum(r["base_total_ns"] for r in d["range_categories"]) == pytest.approx(sum(kernel) / 3)
    assert sum(r["base_total_ns"] for r in d["kernels"]) == pytest.approx(sum(kernel) / 3)


def test_kernel_rows_split_by_range():
    """A kernel that runs in several ranges has one row per range (its time there, per step), never its total
    under one range; no row of the steady state is warm-up."""
    d = diff_json(TRAIN, SDPA, "--name", "short")
    rows = [r for r in d["kernels"] if r["name"] == "embedding_backward_feature_kernel -> "
            "embedding_backward_feature_kernel"] or [r for r in d["kernels"] if "embedding_backward" in r["name"]]
    by_name: dict = {}
    for r in d["kernels"]:
        by_name.setdefault(r["name"], set()).add(r["range"])
    assert any(len(ranges) > 1 for ranges in by_name.values())
    assert all(r["range"] != ":warmup" for r in d["kernels"]) and rows


# -- A/A, +3 % kernel time, a change outside kernels --------------------------------------------------------------

def test_same_code_reads_no_change():
    verdict = diff_json(TRAIN, TRAIN)["verdict"]
    assert verdict.startswith("No change beyond run-to-run noise") and "more runs per side" in verdict


def test_three_percent_kernel_time_found_when_step_time_hides_it(tmp_path):
    """Every kernel 3 % longer, the steps as they were: kernel time per step +3 % (brute force) beyond noise,
    step time unchanged, and the headline says which moved."""
    slow = stretched(TRAIN, tmp_path / "slow.sqlite", kernels=1.03)
    _, before = steps_kernel_ns(TRAIN)
    _, after = steps_kernel_ns(slow)
    d = diff_json(TRAIN, slow)
    h = d["headline"]
    assert h["kernel"]["change_pct"] == pytest.approx(100 * (sum(after) - sum(before)) / sum(before))
    assert 2.9 < h["kernel"]["change_pct"] < 3.1 and h["step"]["change_pct"] == 0
    assert h["moved"] == "kernel"
    assert d["verdict"].startswith("GPU kernel time per step") and "beyond run-to-run noise" in d["verdict"]
    assert "step time 7.673 ms -> 7.673 ms (+0.0 %): under the threshold of one run per side" in d["verdict"]


def test_step_moved_outside_kernels(tmp_path):
    """step_0 0.8 ms and step_2 1.5 ms longer (+10 % on average; no kernel is launched in the time they gain: none
    within 976 us after step_0, none after step_2), no kernel changed: 'kernel time not beyond it; outside kernels'."""
    longer = stretched(TRAIN, tmp_path / "longer.sqlite", step_ns={"step_0": 800_000, "step_2": 1_500_000})
    steps, kernel = steps_kernel_ns(longer)
    _, kernel_before = steps_kernel_ns(TRAIN)
    assert kernel == kernel_before  # no launch moved into the longer steps
    # +10 % is below the threshold of this launch-bound step: 55 % of its 5.27 ms outside kernels, 1 % of its 2.40 ms
    # in them, (55 * 5.27 + 2.40) / 7.67 = 38.1 %
    assert diff_json(TRAIN, longer)["headline"]["step"]["min_effect_pct"] == pytest.approx(38.1, abs=0.1)
    assert diff_json(TRAIN, longer)["headline"]["moved"] == "none"
    d = diff_json(TRAIN, longer, "--min-effect", "step=5")  # a quiet machine's A/A spread
    assert d["headline"]["step"]["new_ns"] - d["headline"]["step"]["base_ns"] == pytest.approx(2_300_000 / 3)
    assert d["headline"]["moved"] == "step" and d["headline"]["kernel"]["change_pct"] == 0
    assert "kernel time not beyond it" in d["verdict"] and "outside kernels (CPU, launch, sync)" in d["verdict"]


def test_several_runs_per_side_welch_on_run_means(tmp_path):
    """Three runs per side (globs), kernels of each run scaled a little differently: Welch's t on the runs' kernel
    time per step (brute force), as SciPy or welch_p computes it on those values."""
    base = [stretched(TRAIN, tmp_path / f"a{i}.sqlite", kernels=f) for i, f in enumerate((1.0, 1.002, 0.998))]
    new = [stretched(TRAIN, tmp_path / f"b{i}.sqlite", kernels=f) for i, f in enumerate((1.03, 1.031, 1.028))]
    d = diff_json(tmp_path / "a*.sqlite", "--vs", tmp_path / "b*.sqlite")
    h = d["headline"]
    values = [[sum(steps_kernel_ns(p)[1]) / 3 for p in side] for side in (base, new)]
    assert h["runs"] == [3, 3] and h["kernel"]["test"] == "welch"
    assert h["kernel"]["p_value"] == pytest.approx(welch_p(*values)) and h["kernel"]["p_value"] < 0.05
    assert h["kernel"]["base_ns"] == pytest.approx(sum(values[0]) / 3)
    assert [r["kernel_ns"] for r in d["runs"]] == pytest.approx(values[0] + values[1])
    assert "Welch's t on 3 vs 3 runs" in d["verdict"] and h["moved"] == "kernel"
    same = diff_json(*base, "--vs", *base[::-1])
    assert same["verdict"].startswith("No change beyond run-to-run noise")


def test_verdict_names_keep_the_functor(tmp_path):
    """masked_fill kernels twice as long: the verdict names the kernel with the word that identifies it."""
    where = "demangledName IN (SELECT id FROM StringIds WHERE value LIKE '%masked_fill%')"
    slow = stretched(TRAIN, tmp_path / "mask.sqlite", kernels=2.0, where=where)
    verdict = diff_json(TRAIN, slow)["verdict"]
    assert "beyond run-to-run noise" in verdict and "masked_fill" in verdict


# -- mismatched sides, runs diff --------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", ["step", "step=", "wall=5", "kernel=-1", "kernel=nan", "step=inf"])
def test_bad_min_effect_is_refused(bad):
    result = invoke("diff", TRAIN, TRAIN, "--min-effect", bad)
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "--min-effect" in result.output


@pytest.mark.parametrize("args", [("{tmp}/none_*.sqlite", "--vs", TRAIN), (TRAIN, "--vs"), ("--vs", TRAIN),
                                  (TRAIN, "--vs", TRAIN, "--vs", TRAIN), ("--base", TRAIN, "--vs", TRAIN)])
def test_bad_run_lists_are_refused(args, tmp_path):
    result = invoke("diff", *(str(a).format(tmp=tmp_path) for a in args))
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output


def test_rank_count_mismatch_warns_or_refuses(tmp_path):
    ranks = [tmp_path / f"b_rank{i}.sqlite" for i in (0, 1)]
    for r in ranks:
        shutil.copy(TRAIN, r)
    d = diff_json("--base", *ranks, "--new", TRAIN)
    assert d["verdict"].startswith("Warning: the sides do not match: base runs have 2 rank(s), new runs 1")
    strict = invoke("diff", "--base", *ranks, "--new", TRAIN, "--strict")
    assert strict.exit_code == 1 and strict.output.count("\n") == 1 and "do not match" in strict.output
    assert invoke("diff", TRAIN, SDPA, "--strict").exit_code == 0


@pytest.mark.parametrize("repeat", ["path", "copy"])
def test_a_run_given_twice_on_one_side_is_refused(repeat, tmp_path):
    """One capture counted as two runs has no spread: Welch's t then reads any difference as beyond noise
    (p = 0). By its path or as a byte-identical copy: exit 2, one line; both sides may name it."""
    copy = tmp_path / "copy.sqlite"
    shutil.copy(TRAIN, copy)
    args = {"path": (TRAIN, TRAIN, "--vs", SDPA, copy), "copy": (SDPA, "--vs", TRAIN, copy)}[repeat]
    result = invoke("diff", *args)
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "on the " + ("base" if repeat == "path" else "new") + " side are one run" in result.output
    assert "No change beyond run-to-run noise" in diff_json(TRAIN, copy)["verdict"]


def test_no_change_is_not_beyond_noise_whatever_the_minimum_effect():
    assert not judge("kernel", [100.0], [100.0], 0.05, min_effect_pct=0.0).beyond
    assert judge("kernel", [100.0], [100.1], 0.05, min_effect_pct=0.0).beyond


def test_runs_diff_refuses_a_run_named_twice_on_one_side(tmp_path):
    db = tmp_path / "c.db"
    for path in (TRAIN, SDPA):
        assert invoke("runs", "add", path, "--db", db).exit_code == 0
    result = invoke("runs", "diff", 1, 1, "--vs", 2, "--db", db)
    assert result.exit_code == 2 and "named twice on the base side" in result.output, result.output


def test_runs_diff_says_what_diff_says(tmp_path):
    db = tmp_path / "c.db"
    for path, tag in ((TRAIN, "manual"), (SDPA, "sdpa")):
        assert invoke("runs", "add", path, "--tag", f"attn={tag}", "--db", db).exit_code == 0
    direct = diff_json(TRAIN, SDPA)["verdict"]
    stored = invoke("runs", "diff", 1, 2, "--db", db, "--format", "json")
    tagged = invoke("runs", "diff", "attn=manual", "--vs", "attn=sdpa", "--db", db, "--format", "json")
    assert json.loads(stored.output)["verdict"] == direct == json.loads(tagged.output)["verdict"]
    assert invoke("runs", "diff", "attn=none", "--vs", "2", "--db", db).exit_code == 2
