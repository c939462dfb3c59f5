"""`annotate` and `nsys_analytics.torch.instrument`, checked through a stub collector: nvtx's push/pop/start/end
calls are replaced by recorders, so the test sees the range tree a tool would see (name, thread, order).

PyTorch is not a dependency of the project; the instrument tests run where `torch` imports (a CPU build is
enough) and are skipped elsewhere. On a CPU, autograd runs backward on the calling thread, so the thread
placement of `backward` is checked for real only on the GPU machine (docs/collect.md)."""

from __future__ import annotations

import ast
import subprocess
import sys
import threading
from pathlib import Path

import nvtx
import pytest

import nsys_analytics
from nsys_analytics.capabilities.collect.annotate import range_name
from nsys_analytics.capabilities.ncu.config import Config, parse_range

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def collector(monkeypatch):
    """Every NVTX call as (call, name, thread); start_range returns a fresh id, end_range records it."""
    events: list[tuple[str, object, str]] = []
    ids = iter(range(1, 10**6))

    def record(call):
        def fn(message=None, *args, domain=None, **kwargs):
            thread = threading.current_thread().name
            if call == "start_range":
                rid = next(ids)
                events.append((call, (message, rid), thread))
                return rid
            events.append((call, message, thread))
        return fn

    for call in ("push_range", "pop_range", "start_range", "end_range"):
        monkeypatch.setattr(nvtx, call, record(call))
    return events


def tree(events) -> list[str]:
    """The events as indented text: each range nests what follows it until it closes; start/end ranges show
    as '+name' ... '-name'."""
    out, depth, open_ids = [], 0, {}
    for call, what, _ in events:
        if call == "push_range":
            out.append("  " * depth + what)
            depth += 1
        elif call == "pop_range":
            depth -= 1
        elif call == "start_range":
            open_ids[what[1]] = what[0]
            out.append("  " * depth + "+" + what[0])
            depth += 1
        else:
            depth -= 1
            out.append("  " * depth + "-" + open_ids.pop(what))
    assert depth == 0 and not open_ids, "unbalanced ranges"
    return out


# -- range names, read back by the ncu reader ------------------------------------------------------------------
@pytest.mark.parametrize("config, params", [
    ({"M": 1024, "N": 64}, {"M": 1024, "N": 64}),
    ({"lr": 0.001, "scale": 2.0, "eps": 1e-05, "shift": -3}, {"lr": 0.001, "scale": 2.0, "eps": 1e-05, "shift": -3}),
    ({"dtype": "bf16", "causal": True}, {"dtype": "bf16", "causal": "True"}),
])
def test_config_names_read_back_as_given(config, params):
    name = range_name("matmul", **config)
    assert parse_range(name) == Config("matmul", params)
    assert {k: type(v) for k, v in parse_range(name).params.items()} == {k: type(v) for k, v in params.items()}


def test_names_that_would_not_read_back_are_refused():
    assert range_name("forward") == "forward" and parse_range("forward") is None
    for bad in ({"M": "1,2"}, {"x=y": 1}, {"M": [1]}):
        with pytest.raises((ValueError, TypeError)):
            range_name("matmul", **bad)
    with pytest.raises(ValueError):
        range_name("a[b]")


def test_annotate_as_context_manager_and_decorator(collector):
    @nsys_analytics.annotate("attention", seq=256)
    def attention():
        with nsys_analytics.annotate("softmax"):
            pass

    @nsys_analytics.annotate()
    def step():
        attention()

    with nsys_analytics.annotate("forward"):
        step()
    with pytest.raises(RuntimeError), nsys_analytics.annotate("failing"):
        raise RuntimeError("the range still closes")
    assert tree(collector) == ["forward", "  step", "    attention[seq=256]", "      softmax", "failing"]


def test_the_cli_never_imports_torch_nor_the_torch_module():
    """Statically (no cli/ module names them) and at run time (a command's start-up loads neither)."""
    for path in (ROOT / "nsys_analytics" / "cli").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, (ast.Import, ast.ImportFrom)) else []
            module = getattr(node, "module", None) or ""
            assert "torch" not in module and not any("torch" in n for n in names), path
    code = ("import sys; from click.testing import CliRunner; from nsys_analytics.cli.main import cli; "
            "r = CliRunner().invoke(cli, ['profile', '--help']); assert r.exit_code == 0; "
            "print(sorted(m for m in sys.modules if 'torch' in m or m == 'nvtx'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# -- PyTorch hooks ---------------------------------------------------------------------------------------------
def _model(torch):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))


STEP = ["  forward", "  +backward", "  -backward", "  optimizer_step"]


def test_instrument_training_loop_gives_the_ranges_the_reports_read(collector):
    torch = pytest.importorskip("torch", reason="PyTorch not installed (a CPU build is enough)")
    import nsys_analytics.torch as nt

    model = _model(torch)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    root_threads = []
    original_backward = torch.autograd.backward
    with nt.instrument(model, opt):
        for _ in range(3):
            opt.zero_grad()
            loss = model(torch.randn(4, 8)).pow(2).mean()
            loss.grad_fn.register_prehook(lambda g: root_threads.append(threading.current_thread().name))
            loss.backward()
            opt.step()
    assert torch.autograd.backward is original_backward  # remove() puts it back
    assert tree(collector) == ["+warmup", *STEP, "-warmup", "+step_0", *STEP, "-step_0", "+step_1", *STEP, "-step_1"]
    # `backward` opens on the thread that runs the loss's grad_fn (autograd's device thread on a GPU)
    opened = [thread for call, what, thread in collector if call == "start_range" and what[0] == "backward"]
    assert opened == root_threads
    collector.clear()
    model(torch.randn(4, 8)).sum().backward()  # after remove(): no range at all
    assert collector == []


def test_instrument_inference_layers_and_gradient_accumulation(collector):
    torch = pytest.importorskip("torch", reason="PyTorch not installed (a CPU build is enough)")
    import nsys_analytics.torch as nt

    model = _model(torch)
    with nt.instrument(model, layers=True, warmup=0), torch.no_grad():
        model(torch.randn(2, 8))
        model(torch.randn(2, 8))
    layer = ["  forward", "    0", "    1", "    2"]
    assert tree(collector) == ["+step_0", *layer, "-step_0", "+step_1", *layer, "-step_1"]
    collector.clear()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with nt.instrument(model, opt, warmup=0):
        for _ in range(2):  # two micro-batches, one optimizer step: one step range
            model(torch.randn(2, 8)).sum().backward()
        opt.step()
    assert tree(collector) == ["+step_0", "  forward", "  +backward", "  -backward", "  forward", "  +backward",
                               "  -backward", "  optimizer_step", "-step_0"]


def test_backward_range_closes_when_backward_fails(collector):
    torch = pytest.importorskip("torch", reason="PyTorch not installed (a CPU build is enough)")
    import nsys_analytics.torch as nt

    model = _model(torch)
    with nt.instrument(model, steps=False):
        loss = model(torch.randn(2, 8)).sum()
        loss.backward()
        with pytest.raises(RuntimeError):
            loss.backward()  # the graph was freed by the first backward
    assert tree(collector)[:3] == ["forward", "+backward", "-backward"]
