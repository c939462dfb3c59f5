"""NVTX ranges for PyTorch models without editing the training loop:

    import nsys_analytics.torch
    nsys_analytics.torch.instrument(model, optimizer)   # forward, backward, optimizer_step, step_N, warmup

then `nsys-analytics profile -- python train.py` and `nsys-analytics report ...` with no range options.
PyTorch is imported only when `instrument` is called; see collect/torch_hooks.py for what each range covers.
"""

from __future__ import annotations

from .capabilities.collect.torch_hooks import Instrumentation, instrument

__all__ = ["Instrumentation", "instrument"]
