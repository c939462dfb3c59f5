"""`diff` per NVTX range when a kernel moved from one range to another between the runs: its old range reads
"moved to :new" and its new one "moved from :old", not "disappeared" and "appeared" (it ran as often as before),
and the verdict never tells the move as a kernel gone or new. A kernel that truly left the run, or whose count
changed as it moved, keeps "disappeared" / "appeared". Hand-made exports: three steps, each `loss` then `backward`,
and the expected figures from how they were built."""

from __future__ import annotations

import json

from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .test_nvtx_attribution import Launch, Profile, Range, write_profile

STEP_NS, STEPS = 1_000_000, 3
SPANS = {"loss": (100_000, 300_000), "backward": (400_000, 800_000), None: (900_000, 1_000_000)}  # None: no range


def profile(per_step: list[list[tuple[str, str | None, int]]]) -> Profile:
    """Steps of 0.9 ms, 0.1 ms apart, each `loss` (100-300 us) then `backward` (400-800 us); step i launches
    per_step[i]: (kernel name, range it is launched in (None: after the step, in no range), duration in us), 40 us
    apart from the start of that range."""
    ranges, launches = [], []
    for i, kernels in enumerate(per_step):
        t = 10_000 + i * STEP_NS
        ranges.append(Range(f"step_{i}", t, t + 900_000))
        ranges += [Range(name, t + a, t + b) for name, (a, b) in SPANS.items() if name]
        placed = {name: 0 for name in SPANS}
        for name, where, us in kernels:
            at = t + SPANS[where][0] + 10_000 + 40_000 * placed[where]
            placed[where] += 1
            launches.append(Launch(at, at + 5_000, [(at + 10_000, at + 10_000 + us * 1_000)], name=name))
    return Profile(ranges, launches)


def each_step(*kernels: tuple[str, str | None, int]) -> list[list[tuple[str, str | None, int]]]:
    return [list(kernels) for _ in range(STEPS)]


def diff(folder, base: Profile, new: Profile, *options: str) -> dict:
    folder.mkdir(exist_ok=True)
    paths = [write_profile(folder / f"{side}.sqlite", p) for side, p in (("base", base), ("new", new))]
    result = CliRunner().invoke(cli, ["diff", *map(str, paths), "--attribution", "process", "--format", "json",
                                      *options])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def by_range(doc: dict) -> dict:
    return {(r["name"], r["range"]): r for r in doc["kernels"]}


def test_a_kernel_that_moved_between_ranges_names_where_it_went(tmp_path):
    # k_moved (10 us) under loss, then under backward; k_gone (5 us) leaves the run; k_common (20 us) stays
    base = profile(each_step(("k_common", "backward", 20), ("k_moved", "loss", 10), ("k_gone", "backward", 5)))
    new = profile(each_step(("k_common", "backward", 20), ("k_moved", "backward", 10)))
    for window, per in (("all", STEPS), ("steady", 1)):  # per run: 3 launches; per step: 1
        doc = diff(tmp_path / window, base, new, "--window", window)
        rows = by_range(doc)
        out, into = rows[("k_moved", ":loss")], rows[("k_moved", ":backward")]
        assert out["status"] == "moved to :backward" and into["status"] == "moved from :loss", window
        assert out["base_total_ns"] == into["new_total_ns"] == per * 10_000
        assert out["new_total_ns"] == into["base_total_ns"] == 0
        assert rows[("k_gone", ":backward")]["status"] == "disappeared"  # gone from the run: 5 us a step fewer
        assert rows[("k_common", ":backward")]["status"] == "same"
        # the kernel time fell by k_gone's 5 us a step in backward; the move changed where 10 us ran, not how long
        verdict = doc["verdict"]
        assert f"{per * 0.035:.3f} ms -> {per * 0.030:.3f} ms" in verdict  # (10 + 20 + 5) us, then (10 + 20)
        assert f"mostly other kernels in :backward (-{per * 0.005:.3f} ms): gone: k_gone" in verdict, verdict
        assert ":loss" not in verdict and "k_moved" not in verdict, verdict


def test_the_table_says_moved_to_and_from(tmp_path):
    base = write_profile(tmp_path / "base.sqlite", profile(each_step(("k_moved", "loss", 10))))
    new = write_profile(tmp_path / "new.sqlite", profile(each_step(("k_moved", "backward", 10))))
    result = CliRunner().invoke(cli, ["diff", str(base), str(new), "--attribution", "process", "--window", "all",
                                      "--table", "kernels"])
    assert result.exit_code == 0, result.output
    lines = [line.split()[:8] for line in result.stdout.splitlines()]  # 3 x 10 us, per run
    assert ["moved", "to", ":backward", "other", ":loss", "30,000", "0", "-30,000"] in lines, result.stdout
    assert ["moved", "from", ":loss", "other", ":backward", "0", "30,000", "30,000"] in lines, result.stdout
    assert "disappeared" not in result.stdout and "appeared" not in result.stdout


def test_a_count_that_changed_as_it_moved_keeps_disappeared_and_appeared(tmp_path):
    # k_part: once a step under loss; then under backward in two of the three steps only (3 launches -> 2);
    # k_half: twice a step under loss; then once under loss and once under backward (6 -> 6: one a step moved);
    # k_came: a new kernel, in no step of the base
    base = profile(each_step(("k_part", "loss", 10), ("k_half", "loss", 4), ("k_half", "loss", 4)))
    new = profile([[("k_part", "backward", 10), ("k_half", "loss", 4), ("k_half", "backward", 4),
                    ("k_came", "backward", 1)]] * 2 + [[("k_half", "loss", 4), ("k_half", "backward", 4),
                                                        ("k_came", "backward", 1)]])
    doc = diff(tmp_path, base, new, "--window", "all")
    rows = by_range(doc)
    assert rows[("k_part", ":loss")]["status"] == "disappeared"
    assert (rows[("k_part", ":loss")]["base_total_ns"], rows[("k_part", ":loss")]["new_total_ns"]) == (30_000, 0)
    assert rows[("k_part", ":backward")]["status"] == "appeared"
    assert (rows[("k_part", ":backward")]["base_total_ns"], rows[("k_part", ":backward")]["new_total_ns"]) == (
        0, 20_000)
    assert rows[("k_came", ":backward")]["status"] == "appeared"
    assert rows[("k_half", ":loss")]["status"] == "changed"  # 6 x 4 us -> 3 x 4 us: still there
    assert (rows[("k_half", ":loss")]["base_total_ns"], rows[("k_half", ":loss")]["new_total_ns"]) == (24_000, 12_000)
    assert rows[("k_half", ":backward")]["status"] == "moved from :loss"  # 0 -> 3 x 4 us, as loss lost them
    # kernel time per run: 3 x (10 + 8) = 54 us -> 2 x 10 + 3 x (8 + 1) = 47 us; by range, k_half's move (3 x 4 us
    # from loss to backward) left out: loss -30 us (k_part), backward +20 us (k_part) + 3 us (k_came)
    verdict = doc["verdict"]
    assert "0.054 ms -> 0.047 ms" in verdict, verdict
    assert "mostly other kernels in :loss (-0.030 ms): gone: k_part (-0.030 ms)" in verdict, verdict


def test_moves_into_and_out_of_several_ranges_and_no_range(tmp_path):
    # k_spread: twice a step under loss, then once under backward and once after the step (in no range);
    # k_free: once a step in no range, then under loss
    base = profile(each_step(("k_spread", "loss", 3), ("k_spread", "loss", 3), ("k_free", None, 2)))
    new = profile(each_step(("k_spread", "backward", 3), ("k_spread", None, 3), ("k_free", "loss", 2)))
    rows = by_range(diff(tmp_path, base, new, "--window", "all"))
    assert rows[("k_spread", ":loss")]["status"] == "moved to :backward, no range"
    assert rows[("k_spread", ":backward")]["status"] == "moved from :loss"
    assert rows[("k_spread", None)]["status"] == "moved from :loss"
    assert (rows[("k_spread", ":loss")]["base_total_ns"], rows[("k_spread", ":backward")]["new_total_ns"],
            rows[("k_spread", None)]["new_total_ns"]) == (18_000, 9_000, 9_000)  # 6 x 3 us, then 3 x 3 us each
    assert rows[("k_free", None)]["status"] == "moved to :loss"
    assert rows[("k_free", ":loss")]["status"] == "moved from no range"


def test_the_verdict_tells_a_moved_kernel_that_got_slower_by_its_own_change(tmp_path):
    # k_moved: 10 us under loss, then 12 us under backward; k_common 20 us under backward on both sides. Kernel
    # time per run 3 x 30 = 90 us -> 3 x 32 = 96 us (+6.7 %): the move carries 3 x 10 us from loss to backward,
    # what is left is k_moved's own +2 us a launch, in backward: +6 us
    base = profile(each_step(("k_common", "backward", 20), ("k_moved", "loss", 10)))
    new = profile(each_step(("k_common", "backward", 20), ("k_moved", "backward", 12)))
    doc = diff(tmp_path, base, new, "--window", "all")
    verdict = doc["verdict"]
    assert "0.090 ms -> 0.096 ms (+6.7 %)" in verdict, verdict
    assert "mostly other kernels in :backward (+0.006 ms): k_moved (+0.006 ms; moved from :loss)" in verdict, verdict
    assert "gone" not in verdict and "new k_moved" not in verdict, verdict


def test_a_fused_kernel_that_moved_is_no_substitution(tmp_path):
    # FlashAttention's kernel (20 us) moved from loss to backward, and a softmax (5 us) came in loss: the fused
    # kernel did not go, so no "fused attention gone; unfused softmax took its place"; the softmax is new
    flash = "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4>>(Flash_fwd_params)"
    softmax = "void softmax_warp_forward<float, float, float, 10, false, false>(float *, const float *, int)"
    base = profile(each_step((flash, "loss", 20)))
    new = profile(each_step((flash, "backward", 20), (softmax, "loss", 5)))
    doc = diff(tmp_path, base, new, "--window", "all")
    rows = by_range(doc)
    assert rows[(flash, ":loss")]["category"] == "attention"
    assert rows[(flash, ":loss")]["status"] == "moved to :backward"
    assert rows[(softmax, ":loss")]["category"] == "softmax" and rows[(softmax, ":loss")]["status"] == "appeared"
    verdict = doc["verdict"]  # 3 x 20 us -> 3 x 25 us
    assert "0.060 ms -> 0.075 ms (+25.0 %)" in verdict, verdict
    assert "gone" not in verdict and "took its place" not in verdict, verdict
    assert "mostly softmax kernels in :loss (+0.015 ms): new void softmax_warp_forward" in verdict, verdict
