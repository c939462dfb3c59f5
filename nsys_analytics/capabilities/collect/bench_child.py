"""The child process of a benchmark sweep, started under ncu or nsys by bench.py:
`python -m nsys_analytics.capabilities.collect.bench_child SPEC`. Runs the function once per configuration and run, each
run inside a push/pop range `name[K=V,...,run=N]` of the benchmark's NVTX domain (what ncu's
`--nvtx-include` keeps and what the readers group by), after `warmup` unrecorded calls per configuration."""

from __future__ import annotations

import pickle
import sys
from typing import Any

import nvtx

from .annotate import current_config, range_name

RUN = "run"  # the parameter that numbers the runs of one configuration


def run_sweep(fn, configs: list[dict[str, Any]], runs: int, warmup: int, name: str, domain: str) -> None:
    for config in configs:
        for _ in range(warmup):
            fn(**config)
        for run in range(runs):
            labels = {**config, RUN: run}
            token = current_config.set(labels)
            nvtx.push_range(range_name(name, **labels), domain=domain)
            try:
                fn(**config)
            finally:
                nvtx.pop_range(domain=domain)
                current_config.reset(token)
        _synchronize()


def _synchronize() -> None:
    """Wait for the GPU when the function used PyTorch (its kernels are asynchronous)."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def main(argv: list[str]) -> None:
    with open(argv[0], "rb") as f:
        spec = pickle.load(f)
    sys.path[:0] = [p for p in spec["sys_path"] if p not in sys.path]
    import cloudpickle  # noqa: F401 - the function was written by it; loading needs it importable

    fn = pickle.loads(spec["function"])
    run_sweep(fn, spec["configs"], spec["runs"], spec["warmup"], spec["name"], spec["domain"])


if __name__ == "__main__":
    main(sys.argv[1:])
