"""`bench`: run a function once per configuration under Nsight Compute or Nsight Systems and get the figures
back as a long-form DataFrame, in the manner of nsight-python's `nsight.analyze.kernel`.

    @nsys_analytics.bench(configs=[(1024,), (2048,), (4096,)], runs=5, normalize_against="torch",
                          derive=lambda ns, n: 2 * n**3 / ns / 1e3)      # TFLOP/s
    def matmul(n):
        a = b = torch.randn(n, n, device="cuda")
        with nsys_analytics.annotate("torch"):
            a @ b

    frame = matmul()     # annotation, n, run, metric, value, unit, relative, kernels
    frame.plot()

How it runs: one profiler session per sweep. The function is serialised (cloudpickle: a function of a script
or of a notebook cell travels by value) and re-run in one child process under `ncu` or `nsys`; each
configuration is called `warmup` times, then `runs` times inside an NVTX range `name[K=V,...,run=N]` of the
domain `nsys_analytics_bench`. `ncu` profiles only kernels inside those ranges (`--nvtx-include`), replaying
each (cache flushed, as nsight-python does); `nsys` traces everything and the runs are cut out by their ranges:
`gpu_time` = the runs' kernel durations summed, `gpu_span` = first kernel start to last kernel end. An
`annotate(...)` inside the function names the annotation and inherits the configuration; kernels outside any
annotation belong to the function's own name. Reports go to a temporary folder (kept with `keep=True` or
`output_dir=`). The profiler's start-up and one CUDA context are paid once per sweep, not per configuration.
"""

from __future__ import annotations

import functools
import inspect
import pickle
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.errors import UsageError
from .commands import NcuOptions, NsysOptions, Outputs
from .tools import find_tool

if TYPE_CHECKING:
    from .frame import BenchFrame

DOMAIN = "nsys_analytics_bench"
DEFAULT_METRIC = "gpu__time_duration.sum"
TOOLS = ("ncu", "nsys")
COMBINE = ("sum", "mean", "max", "min")
# nsight-python's defaults for ncu: caches flushed before each replayed kernel, clocks left alone
NCU_DEFAULTS = ("--cache-control", "all", "--clock-control", "none", "--replay-mode", "kernel")


@dataclass
class BenchSettings:
    configs: list[dict[str, Any]]
    metric: str = DEFAULT_METRIC
    derive: Callable[..., Any] | None = None
    normalize_against: str | None = None
    runs: int = 1
    warmup: int = 1
    tool: str = "ncu"
    combine: str = "sum"
    output_dir: Path | None = None
    keep: bool = False
    ncu_options: list[str] = field(default_factory=list)
    nsys_options: list[str] = field(default_factory=list)
    quiet: bool = True


def bench(configs: Iterable[Sequence[Any] | dict[str, Any]], metric: str = DEFAULT_METRIC,
          derive: Callable[..., Any] | None = None, normalize_against: str | None = None, runs: int = 1,
          tool: str = "ncu", warmup: int = 1, combine: str = "sum", output_dir: str | Path | None = None,
          keep: bool = False, ncu_options: Sequence[str] = (), nsys_options: Sequence[str] = (),
          quiet: bool = True) -> Callable[[Callable[..., Any]], BenchFunction]:
    """Decorator: calling the decorated function (no arguments) runs the sweep and returns a `BenchFrame`.

    configs: positional argument tuples (names from the signature) or keyword dicts, one per configuration.
    metric: an ncu metric (tool="ncu"); tool="nsys" measures `gpu_time` and `gpu_span` (ns) instead.
    derive: fn(value, **config) -> number or {name: number}, from the first metric, added as metric rows.
    normalize_against: an annotation; adds `relative` = value / its mean at the same configuration.
    runs / warmup: recorded and unrecorded calls per configuration. combine: how an annotation's kernels in
    one run combine (sum, mean, max, min). quiet: keep the profiler's output to its log unless it fails.
    """
    if tool not in TOOLS:
        raise UsageError(f"tool={tool!r}: use one of {', '.join(TOOLS)}")
    if combine not in COMBINE:
        raise UsageError(f"combine={combine!r}: use one of {', '.join(COMBINE)}")
    if runs < 1 or warmup < 0:
        raise UsageError("runs must be >= 1 and warmup >= 0")
    settings = BenchSettings(list(configs), metric, derive, normalize_against, runs, warmup, tool, combine,
                             Path(output_dir) if output_dir else None, keep, list(ncu_options), list(nsys_options),
                             quiet)
    if not settings.configs:
        raise UsageError("configs is empty: give at least one configuration")

    def decorator(fn: Callable[..., Any]) -> BenchFunction:
        return BenchFunction(fn, settings)

    return decorator


class BenchFunction:
    """The decorated function: `f()` runs the sweep; `f.fn` is the plain function."""

    def __init__(self, fn: Callable[..., Any], settings: BenchSettings):
        functools.update_wrapper(self, fn)
        self.fn, self.settings = fn, settings
        self.configs = [_as_kwargs(fn, c) for c in settings.configs]

    def __call__(self) -> BenchFrame:
        s = self.settings
        folder = s.output_dir or Path(tempfile.mkdtemp(prefix="nsys-analytics-bench-"))
        try:
            frame = self._run(folder)
        finally:
            if s.output_dir is None and not s.keep:
                shutil.rmtree(folder, ignore_errors=True)
        frame.reports = [] if (s.output_dir is None and not s.keep) else [str(p) for p in sorted(folder.iterdir())]
        return frame

    def _run(self, folder: Path) -> BenchFrame:
        from .session import collect_ncu, collect_nsys

        s = self.settings
        folder.mkdir(parents=True, exist_ok=True)
        name = self.fn.__name__
        spec = folder / f"{name}.spec.pickle"
        _write_spec(spec, self.fn, self.configs, s, name)
        command = child_command(spec)
        out = Outputs(folder, f"{name}_{s.tool}")
        log = _Log(folder / f"{name}_{s.tool}.log", s.quiet)
        with log:
            if s.tool == "ncu":
                options = NcuOptions(nvtx_include=[f"regex:{DOMAIN}@.+/"],
                                     extra=["--metrics", s.metric, *NCU_DEFAULTS, *s.ncu_options])
                collect_ncu(find_tool("ncu"), options, out, command, force=True, echo=log.write)
            else:
                options = NsysOptions(extra=list(s.nsys_options))
                collect_nsys(find_tool("nsys"), options, out, command, force=True, echo=log.write)
        return self._read(out)

    def _read(self, out: Outputs) -> BenchFrame:
        from .data import NSYS_METRICS, ncu_runs, nsys_runs
        from .frame import long_form

        s = self.settings
        if s.tool == "ncu":
            runs, unit, params = ncu_runs(out.ncu_report, s.metric, s.combine)
            return long_form(runs, params, {"value": s.metric}, {"value": unit}, s.derive, s.normalize_against)
        from ...data.profile import Profile

        with Profile(out.sqlite) as profile:
            runs, params = nsys_runs(profile, DOMAIN)
        if runs.empty:
            raise UsageError(f"{out.sqlite}: no kernel ran inside the benchmark's ranges")
        return long_form(runs, params, NSYS_METRICS, {c: "ns" for c in NSYS_METRICS}, s.derive,
                         s.normalize_against)


def child_command(spec: Path) -> list[str]:
    """`python -c ...` that imports this very nsys_analytics (not one the working folder happens to hold: `-m`
    would put the cwd first on sys.path) and runs the sweep of `spec`."""
    package_parent = str(Path(__file__).resolve().parents[len(__package__.split("."))])  # the folder above nsys_analytics
    code = (f"import sys; sys.path.insert(0, {package_parent!r}); "
            "from nsys_analytics.capabilities.collect.bench_child import main; main(sys.argv[1:])")
    return [sys.executable, "-c", code, str(spec)]


def _as_kwargs(fn: Callable[..., Any], config: Sequence[Any] | dict[str, Any]) -> dict[str, Any]:
    if isinstance(config, dict):
        kwargs = dict(config)
    else:
        names = [p.name for p in inspect.signature(fn).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        values = tuple(config) if isinstance(config, (list, tuple)) else (config,)
        if len(values) > len(names):
            raise UsageError(f"config {config!r}: {fn.__name__} takes {len(names)} positional argument(s)")
        kwargs = dict(zip(names, values))
    if "run" in kwargs:
        raise UsageError("a configuration parameter may not be called 'run' (it numbers the runs)")
    return kwargs


def _write_spec(path: Path, fn, configs, s: BenchSettings, name: str) -> None:
    try:
        import cloudpickle
    except ImportError as e:
        raise UsageError("bench needs cloudpickle to send the function to the profiled process: "
                         "pip install cloudpickle") from e
    spec = {"function": cloudpickle.dumps(fn), "configs": configs, "runs": s.runs, "warmup": s.warmup,
            "name": name, "domain": DOMAIN, "sys_path": [p for p in sys.path if p]}
    with open(path, "wb") as f:
        pickle.dump(spec, f)


class _Log:
    """The profiler's output, into a log file; echoed to stderr too unless quiet. Printed when the run fails."""

    def __init__(self, path: Path, quiet: bool):
        self.path, self.quiet, self.file = path, quiet, None

    def __enter__(self):
        self.file = open(self.path, "w")
        return self

    def write(self, line: str) -> None:
        self.file.write(line)
        if not self.quiet:
            sys.stderr.write(line)

    def __exit__(self, exc_type, *rest) -> None:
        self.file.close()
        if exc_type is not None and self.quiet:
            sys.stderr.write(self.path.read_text()[-4000:])
