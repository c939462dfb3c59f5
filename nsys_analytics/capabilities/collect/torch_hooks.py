"""NVTX ranges for a PyTorch training or inference loop, from hooks alone (no edit of the loop).

Ranges, named as `report`, `attention` and `breakdown --by range` read them by default:
- `forward`: a push/pop range around each call of the model (forward pre-hook / forward hook, main thread);
  with `layers=True` also one per submodule, named by its path in the model (`blocks.0.attn`), and in backward
  `bwd:<path>` (`bwd:blocks.0.attn`) from its full backward pre-hook to its full backward hook, on the thread that
  runs its backward (autograd's), unless `backward_layers=False`.
- `backward`: a start/end range opened by a pre-hook on the root of each backward pass (the loss's `grad_fn`)
  and closed by an autograd engine callback at its end. The pre-hook runs where autograd runs that node: for a
  CUDA loss, on autograd's device thread, the thread that launches the backward kernels, so nsys' own rule
  (kernels launched inside the range, on its thread) puts them in `backward`. A start/end range, not push/pop,
  because the callback may run on another thread than the pre-hook.
- `optimizer_step`: push/pop around `optimizer.step()` (the optimizer's step pre- and post-hooks).
- `step_0`, `step_1`, ...: a start/end range per training step, from the first forward after the previous
  step to the end of `optimizer.step()` (gradient accumulation included); without an optimizer, one per
  forward call. The first `warmup` steps are named `warmup` instead, which the reports leave out.

`torch` is imported by the caller's objects only: this module never imports it at load time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import nvtx

FORWARD, BACKWARD, OPTIMIZER, WARMUP = "forward", "backward", "optimizer_step", "warmup"
BACKWARD_PREFIX = "bwd:"  # a module's backward range: bwd:<its path in the model>


@dataclass
class Instrumentation:
    """The hooks `instrument` installed; `remove()` takes them all out again (also: `with instrument(...)`)."""

    domain: str | None = None
    warmup: int = 1
    steps: bool = True
    handles: list[Any] = field(default_factory=list)
    step: int = 0  # steps closed so far (warm-up included)
    _open_step: Any = None
    _depth: int = 0  # nested calls of the model (a model that calls itself opens one range)
    _restore: Any = None

    # -- steps ---------------------------------------------------------------------------------------------
    def step_name(self, index: int) -> str:
        return WARMUP if index < self.warmup else f"step_{index - self.warmup}"

    def open_step(self) -> None:
        if self.steps and self._open_step is None:
            self._open_step = nvtx.start_range(self.step_name(self.step), domain=self.domain)
            self._open_step = self._open_step or True  # nvtx without a tool returns None

    def close_step(self) -> None:
        if self._open_step is not None:
            if self._open_step is not True:
                nvtx.end_range(self._open_step)
            self._open_step = None
            self.step += 1

    # -- hooks ---------------------------------------------------------------------------------------------
    def forward_pre(self, has_optimizer: bool):
        def hook(module, args):
            if self._depth == 0:
                self.open_step()
            self._depth += 1
            nvtx.push_range(FORWARD, domain=self.domain)
        return hook

    def forward_post(self, has_optimizer: bool):
        def hook(module, args, output):
            nvtx.pop_range(domain=self.domain)
            self._depth -= 1
            if self._depth == 0 and not has_optimizer:
                self.close_step()
        return hook

    def layer_pre(self, name: str):
        def hook(module, args):
            nvtx.push_range(name, domain=self.domain)
        return hook

    def layer_post(self, module, args, output):
        nvtx.pop_range(domain=self.domain)

    def layer_backward_pre(self, name: str):
        def hook(module, grad_output):
            nvtx.push_range(f"{BACKWARD_PREFIX}{name}", domain=self.domain)
        return hook

    def layer_backward_post(self, module, grad_input, grad_output):
        nvtx.pop_range(domain=self.domain)

    def optimizer_pre(self, optimizer, args, kwargs):
        nvtx.push_range(OPTIMIZER, domain=self.domain)

    def optimizer_post(self, optimizer, args, kwargs):
        nvtx.pop_range(domain=self.domain)
        self.close_step()

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()
        self.handles.clear()
        if self._restore is not None:
            self._restore()
            self._restore = None
        self.close_step()

    def __enter__(self) -> Instrumentation:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def instrument(model, optimizer=None, steps: bool = True, layers: bool = False, warmup: int = 1,
               domain: str | None = None, backward_layers: bool = True) -> Instrumentation:
    """Put `forward`, `backward`, `optimizer_step` and per-step NVTX ranges on a model (and its optimizer).

    `steps`: a `step_N` range per training step (per forward without an optimizer); `warmup`: how many first
    steps are named `warmup` instead (the reports exclude them); `layers`: a range per submodule too, in forward
    and (`backward_layers`) in backward;
    `domain`: an NVTX domain for all of them (default: nvtx's default domain, which the reports read).
    Returns an `Instrumentation` whose `remove()` takes the hooks out.
    """
    import torch

    inst = Instrumentation(domain=domain, warmup=warmup, steps=steps)
    has_optimizer = optimizer is not None
    inst.handles.append(model.register_forward_pre_hook(inst.forward_pre(has_optimizer)))
    inst.handles.append(model.register_forward_hook(inst.forward_post(has_optimizer), always_call=True))
    if layers:
        for name, module in model.named_modules():
            if name:
                inst.handles.append(module.register_forward_pre_hook(inst.layer_pre(name)))
                inst.handles.append(module.register_forward_hook(inst.layer_post, always_call=True))
                if backward_layers:
                    inst.handles.append(module.register_full_backward_pre_hook(inst.layer_backward_pre(name)))
                    inst.handles.append(module.register_full_backward_hook(inst.layer_backward_post))
    if has_optimizer:
        inst.handles.append(optimizer.register_step_pre_hook(inst.optimizer_pre))
        inst.handles.append(optimizer.register_step_post_hook(inst.optimizer_post))
    inst._restore = _wrap_backward(torch, domain)
    return inst


def _wrap_backward(torch, domain: str | None):
    """Make every `torch.autograd.backward` (what `loss.backward()` calls) open `backward` on the thread that
    runs the loss's grad_fn, and close it when autograd's engine finishes. Returns the undo function."""
    original = torch.autograd.backward
    engine = torch.autograd.Variable._execution_engine

    def backward(tensors, *args, **kwargs):
        roots = [t for t in ([tensors] if isinstance(tensors, torch.Tensor) else list(tensors))
                 if getattr(t, "grad_fn", None) is not None]
        state: dict[str, Any] = {}

        def close():
            if "range" in state:
                nvtx.end_range(state.pop("range"))

        def pre_hook(grad_outputs):
            if "opened" not in state:
                state["opened"] = True
                state["range"] = nvtx.start_range(BACKWARD, domain=domain)
                engine.queue_callback(close)

        handles = [t.grad_fn.register_prehook(pre_hook) for t in roots]
        try:
            return original(tensors, *args, **kwargs)
        finally:
            for h in handles:
                h.remove()
            close()  # when backward failed before the callback ran

    torch.autograd.backward = backward

    def restore():
        if torch.autograd.backward is backward:
            torch.autograd.backward = original

    return restore
