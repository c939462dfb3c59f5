"""`ranks` against the workload's own truth: FSDP2 and DDP runs with a designed straggler (fixtures/workloads/
dist_gpt.py, fixtures/README.md "Stories"), each rank's CUDA-event timings kept beside its export
(fixtures/ranks/RUN/truth.RANK.json). The verdict must name the faulty rank and the innermost range the fault was put
in, its GPU (or CPU) time and excess, and the other ranks' per-step wait, each within 10 % of the truth; the balanced
runs must name no straggler."""

from __future__ import annotations

import json
import statistics

import pytest

from nsys_analytics.data.engine import Sequential
from nsys_analytics.data.profile_set import ProfileSet
from nsys_analytics.capabilities.ranks.sets import ranks_report

from .conftest import RANKS, rank_files

MS = 1e6
# run -> (faulty rank, the range the fault was put in, where its time shows)
FAULTS = {
    "fsdp2_forward": (0, "forward > block_2 > mlp", "GPU"),
    "fsdp2_backward": (1, "backward > bwd:block_3", "GPU"),
    "fsdp4_backward": (1, "backward > bwd:block_3", "GPU"),
    "ddp4_backward": (1, "backward > bwd:block_3", "GPU"),
    "fsdp4_data": (2, "data", "CPU"),
    "ddp4_data": (2, "data", "CPU"),
}
BALANCED = ["fsdp2_balanced", "fsdp4_balanced", "ddp4_balanced"]
pytestmark = pytest.mark.skipif(not (RANKS / "fsdp2_forward").is_dir(), reason="the stories fixtures are absent")


def truth(run: str) -> dict[int, list[dict]]:
    """Each rank's measured steps (its step_N ranges: the workload's warm-up steps run inside its `warmup` range)."""
    out = {}
    for f in sorted((RANKS / run).glob("truth.*.json")):
        t = json.loads(f.read_text())
        out[t["rank"]] = t["steps"]
    return out


def median(steps, key) -> float:
    return statistics.median(s[key] for s in steps)


@pytest.fixture(scope="module", params=sorted(FAULTS) + BALANCED)
def run_report(request):
    run = request.param
    return run, ranks_report(ProfileSet([str(p) for p in rank_files(run)], engine=Sequential()))


def test_the_verdict_names_the_faulty_rank_and_range_with_the_truths_figures(run_report):
    """...and, where the fault is extra GPU work, the kernel it launched: as many more a step as the workload ran
    (`extra_reps`), their time the events' within 5 % (the range's excess is less where the other ranks' own
    kernels there run slower beside their NCCL waits: ddp4_backward, docs/ranks.md)."""
    run, report = run_report
    t = truth(run)
    if run in BALANCED:
        assert report.straggler is None
        assert report.findings[0]["message"].startswith("no straggler")
        return
    rank, path, source = FAULTS[run]
    others = [r for r in t if r != rank]
    finding = next(f for f in report.findings if f.get("rank") == rank)
    assert report.straggler == rank and finding["phase"] == path and finding["source"] == source
    if source == "GPU":  # the designed extra matmuls, timed by CUDA events around them on the faulty rank
        lag = median(t[rank], "extra_ms")
    else:  # the data-loader stall, timed by the workload's Python timer around `data`
        lag = median(t[rank], "data_ms") - statistics.median(median(t[r], "data_ms") for r in others)
    assert finding["excess_ns_per_step"] / MS == pytest.approx(lag, rel=0.10)
    if run == "fsdp2_forward":  # the range's own GPU time: CUDA events around `mlp` of block 2 on every rank
        phases = report.phases.set_index(["rank", "phase"])
        for r in t:
            assert phases.loc[(r, path), "compute_ns"] / MS == pytest.approx(median(t[r], "mlp2_ms"), rel=0.10)
    if source == "GPU":  # what the excess is made of: the designed matmuls, as many as the workload ran a step
        reps = json.loads((RANKS / run / f"truth.{rank}.json").read_text())["extra_reps"]
        assert finding["more_kernels_per_step"] == pytest.approx(reps, abs=0.05)
        assert finding["kernel_excess_ns_per_step"] / MS == pytest.approx(lag, rel=0.05)
        assert "gemm" in finding["kernel"].lower() and f" {reps} more `" in finding["message"], finding["message"]
        assert f"it launches {reps} more `" in finding["fix"]
    else:
        assert "kernel" not in finding and " more `" not in finding["message"]
    # every other rank loses the straggler's lag per step, waiting in collectives
    for r in others:
        assert finding["waits_ns_per_step"][r] / MS == pytest.approx(lag, rel=0.10), r


def test_an_imbalance_below_a_straggler_names_the_kernels_it_adds():
    """fsdp2_small_backward: rank 1 does 15 extra matmuls a step in `backward > bwd:block_3` (truth.1.json:
    extra_reps 15, 5.25 ms by CUDA events), 3.5 % of a step: under a straggler's 10 %, so "no straggler", but the
    info says which kernels the waited-for rank adds, where, and their time. The balanced runs' info adds nothing."""
    report = ranks_report(ProfileSet([str(p) for p in rank_files("fsdp2_small_backward")], engine=Sequential()))
    (finding,) = report.findings
    truth_1 = json.loads((RANKS / "fsdp2_small_backward" / "truth.1.json").read_text())
    reps, lag = truth_1["extra_reps"], median(truth_1["steps"], "extra_ms")
    assert finding["message"].startswith("no straggler") and finding["rank_waited_for"] == 1
    words = finding["message"].split(f"; rank 1 runs {reps} more `")
    assert len(words) == 2 and "gemm" in words[1] and "the others in `backward > bwd:block_3` (+" in words[1]
    assert float(words[1].rsplit("(+", 1)[1].split(" ms)")[0]) == pytest.approx(lag, rel=0.05)
    for run in BALANCED:
        report = ranks_report(ProfileSet([str(p) for p in rank_files(run)], engine=Sequential()))
        assert " more `" not in report.findings[0]["message"], run


def test_the_waits_equal_the_steps_the_other_ranks_lost(run_report):
    """A second truth for the waits, from two runs: how much longer each waiting rank's step took (CUDA events from
    the step's start to the end of its optimizer step) than in the balanced run of the same job."""
    run, report = run_report
    if run in BALANCED:
        return
    base = {"fsdp2": "fsdp2_balanced", "fsdp4": "fsdp4_balanced", "ddp4_": "ddp4_balanced"}
    balanced = truth(next(v for k, v in base.items() if run.startswith(k)))
    t = truth(run)
    rank = FAULTS[run][0]
    waits = report.summary.set_index("rank")["wait_ns"]
    for r in t:
        if r == rank:  # the straggler hardly waits: under a tenth of the 25-30 ms lag it causes
            assert waits[r] / MS < 2.5
            continue
        lost = median(t[r], "gpu_ms") - median(balanced[r], "gpu_ms")
        assert waits[r] / MS == pytest.approx(lost, rel=0.10), r


def test_the_steady_steps_are_the_workloads_measured_steps(run_report):
    """The workload runs its warm-up steps inside a `warmup` range and times each step_N (its truth files): every
    step_N is steady, as breakdown and diagnose count them. The ranks table left step 0 out as warm-up too, and
    averaged 3 of the 4 measured steps."""
    run, report = run_report
    measured = {rank: [s["step"] for s in steps] for rank, steps in truth(run).items()}
    assert all(steps == measured[0] for steps in measured.values()) and len(measured[0]) >= 3
    assert report.steady_steps == measured[0], (run, report.steady_steps)
    assert not any("left out as warm-up" in note for note in report.notes)
