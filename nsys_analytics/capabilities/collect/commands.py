"""The command lines of `nsys profile`, `nsys export` and `ncu`, built from options (no I/O here).

Defaults are chosen for what the reports read: CUDA and NVTX traced, no CPU sampling nor context switches
(they cost start-up time and file size and no report here reads them), CUDA graphs traced node by node (so
a graph's kernels are kernels, not one opaque `graph` launch).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import UsageError

DEFAULT_TRACE = "cuda,nvtx"
GRAPH_TRACE = ("node", "graph")
# nsys matches --nvtx-capture against registered strings only unless this is 0 in the program's environment;
# `torch.cuda.nvtx.range_push` and most libraries pass plain strings.
NVTX_ENV = {"NSYS_NVTX_PROFILER_REGISTER_ONLY": "0"}
_NAME = re.compile(r"^[A-Za-z0-9_.+-]+$")


@dataclass
class NsysOptions:
    trace: str = DEFAULT_TRACE
    cuda_graph_trace: str = "node"
    range_name: str | None = None  # --capture-range=nvtx with this range ('text' or 'domain:text')
    extra: list[str] = field(default_factory=list)  # more nsys profile options, passed as they are


@dataclass
class NcuOptions:
    set_name: str | None = None  # --set (basic, full, ...); None: ncu's default set
    kernel: str | None = None  # -k (a name, or regex:...)
    count: int | None = None  # -c
    nvtx_include: list[str] = field(default_factory=list)  # --nvtx-include, each
    extra: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Outputs:
    """The files a run writes: DIR/NAME.nsys-rep (+ .sqlite), or DIR/NAME.ncu-rep."""

    directory: Path
    name: str

    @property
    def base(self) -> Path:
        return self.directory / self.name

    @property
    def report(self) -> Path:
        return self.base.with_name(self.name + ".nsys-rep")

    @property
    def stream(self) -> Path:
        return self.base.with_name(self.name + ".qdstrm")

    @property
    def sqlite(self) -> Path:
        return self.base.with_name(self.name + ".sqlite")

    @property
    def ncu_report(self) -> Path:
        return self.base.with_name(self.name + ".ncu-rep")

    def nsys_files(self) -> list[Path]:
        return [self.report, self.sqlite, self.stream]


def default_name(command: list[str]) -> str:
    """A report name from the program: `python train.py --x` -> `train`, `./bench` -> `bench`."""
    script = next((a for a in command if a.endswith(".py")), None)
    if script is None and len(command) > 2 and command[1] == "-m":
        script = command[2].rsplit(".", 1)[-1]
    return _safe(Path(script or command[0]).stem or "report")


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise UsageError(f"--name {name!r}: use letters, digits, '.', '_', '+' and '-' only")
    return name


def nvtx_capture(range_name: str) -> str:
    """nsys' --nvtx-capture spelling of a range: 'step_3' stays, 'train_loop:step_3' -> 'step_3@train_loop'."""
    if "@" in range_name or ":" not in range_name:
        return range_name
    domain, _, text = range_name.partition(":")
    return f"{text}@{domain}" if domain else text


def nsys_profile(nsys: Path, options: NsysOptions, out: Outputs, command: list[str], force: bool) -> list[str]:
    if options.cuda_graph_trace not in GRAPH_TRACE:
        raise UsageError(f"--cuda-graph-trace {options.cuda_graph_trace!r}: use node or graph")
    cmd = [str(nsys), "profile", f"--trace={options.trace}", "--sample=none", "--cpuctxsw=none",
           f"--cuda-graph-trace={options.cuda_graph_trace}"]
    if options.range_name:
        cmd += ["--capture-range=nvtx", f"--nvtx-capture={nvtx_capture(options.range_name)}",
                "--capture-range-end=stop"]
    cmd += ["--output", str(out.base), f"--force-overwrite={'true' if force else 'false'}", *options.extra]
    return cmd + list(command)


def nsys_export(nsys: Path, out: Outputs) -> list[str]:
    return [str(nsys), "export", "--type", "sqlite", "--output", str(out.sqlite), "--force-overwrite", "true",
            str(out.report)]


def ncu_profile(ncu: Path, options: NcuOptions, out: Outputs, command: list[str], force: bool) -> list[str]:
    cmd = [str(ncu), "--nvtx"]  # ranges recorded, so that `ncu --group-by nvtx` and --derive can read them
    if options.set_name:
        cmd += ["--set", options.set_name]
    if options.kernel:
        cmd += ["-k", options.kernel]
    if options.count is not None:
        cmd += ["-c", str(options.count)]
    for include in options.nvtx_include:
        cmd += ["--nvtx-include", include]
    cmd += ["-o", str(out.base)]
    if force:
        cmd.append("-f")
    return cmd + [*options.extra, *command]


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", text)
