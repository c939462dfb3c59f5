"""The modules fixtures (fixtures/modules, made by fixtures/regenerate_modules.sh from
fixtures/workloads/modules_gpt.py on an H100): per model module and direction, the GPU time of the kernels that
`instrument(model, layers=True)`'s ranges hold (launched inside the range on its thread: the forward thread for
`<module>`, autograd's thread for `bwd:<module>`), per steady step, equals the workload's own CUDA-event truth
(events recorded in the module's hooks, in a run without nsys) within 10 % for every module above 2 % of the step;
the designed heavy module, blocks.2.mlp, comes first among the MLPs in both directions, about four times another
block's."""

from __future__ import annotations

import json

import pytest

import nsys_analytics

from .conftest import FIXTURES, unpacked

MODULES = FIXTURES / "modules"
TRUTH = json.loads((MODULES / "modules_truth.json").read_text())
STEPS = TRUTH["args"]["steps"]

# GPU time per range name of the kernels launched inside it on its own thread, over the step_N ranges (the warm-up
# left out), per step
PER_RANGE = """
SELECT kr.range AS name, sum(kr.duration_ns) / $steps / 1e6 AS ms
FROM kernel_ranges AS kr
WHERE kr.attribution = 'thread'
  AND EXISTS (SELECT 1 FROM nvtx_events AS s WHERE s.name LIKE 'step\\_%' ESCAPE '\\'
              AND kr.range_start_ns >= s.start_ns AND kr.range_start_ns < s.end_ns)
GROUP BY kr.range
"""


@pytest.fixture(scope="module")
def ours() -> dict[str, float]:
    with nsys_analytics.open(unpacked(MODULES / "modules_instrument.sqlite.xz")) as p:
        rows = p.sql(PER_RANGE, {"steps": STEPS}).rows
    return {name.lstrip(":"): ms for name, ms in rows}


def big_modules():
    step = TRUTH["step_ms"]
    return [key for key, ms in TRUTH["module_ms"].items() if ms > 0.02 * step]


@pytest.mark.parametrize("key", big_modules())
def test_module_ranges_equal_the_cuda_event_truth(ours, key):
    name, direction = key.split("|")
    range_name = f"bwd:{name}" if direction == "backward" else name
    assert ours[range_name] == pytest.approx(TRUTH["module_ms"][key], rel=0.10)


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_the_heavy_module_is_the_heaviest_mlp(ours, direction):
    prefix = "bwd:" if direction == "backward" else ""
    mlps = {i: ours[f"{prefix}blocks.{i}.mlp"] for i in range(TRUTH["args"]["layers"])}
    heavy = TRUTH["args"]["heavy"]
    assert max(mlps, key=mlps.get) == heavy
    others = [ms for i, ms in mlps.items() if i != heavy]
    assert 3 < mlps[heavy] / max(others) < 5  # 4 x the hidden width: about 4 x the GPU time


def test_the_truth_is_gpu_bound_and_the_ranges_cost_little():
    """The steps are GPU-bound (the CUDA-event step time is the GPU's, not the launches'), and instrument's hooks
    add under 1 % to a step."""
    overhead = TRUTH["overhead"]
    assert overhead["instrumented_step_ms"] < 1.01 * overhead["plain_step_ms"]
