"""One collection: run nsys (or ncu) on a program, make sure a readable report came out, export SQLite.

Files are written only into the output folder the user names, never over an existing report unless `force`.
Errors name what failed: the tool (its message), the program (its exit code and last lines), the importer
(a .qdstrm stream but no .nsys-rep), or a profile without kernels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import UsageError
from . import commands, runner
from .commands import NcuOptions, NsysOptions, Outputs
from .runner import NoKernels, NoReport, ProgramFailed, ToolFailed
from .tools import Tool, importer_beside

LIBDW_HINT = ("nsys' importer (QdstrmImporter) must be installed and needs libdw.so.1 (elfutils): install it "
              "(`apt-get install libdw1`) or put a folder holding libdw.so.1 and libelf.so.1 on LD_LIBRARY_PATH")


@dataclass
class Collected:
    outputs: Outputs
    files: list[Path]  # what was written, report first
    commands: list[list[str]] = field(default_factory=list)  # the command lines run, in order


def check_outputs(paths: list[Path], force: bool) -> None:
    existing = [p for p in paths if p.exists()]
    if existing and not force:
        raise UsageError(f"{existing[0]} exists; choose another --name or --dir, or pass --force to replace it")


def collect_nsys(tool: Tool, options: NsysOptions, out: Outputs, command: list[str], force: bool = False,
                 echo: Callable[[str], None] | None = None) -> Collected:
    """nsys profile + export; returns the files written (DIR/NAME.nsys-rep and DIR/NAME.sqlite)."""
    check_outputs(out.nsys_files(), force)
    out.directory.mkdir(parents=True, exist_ok=True)
    cmd = commands.nsys_profile(tool.path, options, out, command, force)
    done = runner.run(cmd, commands.NVTX_ENV if options.range_name else None, echo)
    collected = Collected(out, [], [cmd])
    if not out.report.exists():
        _no_report(tool, out, done, collected, echo)
    if done.returncode != 0:
        raise ProgramFailed(f"the program exited with code {done.returncode}; last lines: {done.program_lines()} "
                            f"(the report of what ran is kept: {out.report})")
    export = commands.nsys_export(tool.path, out)
    collected.commands.append(export)
    exported = runner.run(export, None, echo)
    if exported.returncode != 0 or not out.sqlite.exists():
        raise ToolFailed(f"nsys export failed (exit code {exported.returncode}): {exported.last_lines()}")
    collected.files = [out.report, out.sqlite]
    return collected


def _no_report(tool: Tool, out: Outputs, done: runner.Completed, collected: Collected, echo) -> None:
    """No .nsys-rep: convert a left-over .qdstrm with nsys' importer, or say what failed."""
    if not out.stream.exists():
        if done.returncode != 0:
            raise ToolFailed(f"nsys profile failed (exit code {done.returncode}) and wrote no report: "
                             f"{done.last_lines()}")
        raise ToolFailed(f"nsys profile wrote no report {out.report}: {done.last_lines()}")
    importer = importer_beside(tool.path)
    if importer is not None:
        cmd = [str(importer), "-i", str(out.stream)]
        collected.commands.append(cmd)
        converted = runner.run(cmd, None, echo)
        if out.report.exists():
            return
        why = f"{importer} failed: {converted.last_lines(2)}"
        convert = f"`{importer} -i {out.stream}`"
    else:
        why = "; ".join(line for line in done.tail if "mporter" in line) or done.last_lines(3)
        convert = f"`QdstrmImporter -i {out.stream}` (in the host folder of a full Nsight Systems install)"
    raise NoReport(f"nsys wrote {out.stream} but no .nsys-rep ({why}); {LIBDW_HINT}, then convert it with "
                   f"{convert} and export it with `nsys export --type sqlite`")


def collect_ncu(tool: Tool, options: NcuOptions, out: Outputs, command: list[str], force: bool = False,
                echo: Callable[[str], None] | None = None) -> Collected:
    """ncu on the program; returns DIR/NAME.ncu-rep."""
    check_outputs([out.ncu_report], force)
    out.directory.mkdir(parents=True, exist_ok=True)
    cmd = commands.ncu_profile(tool.path, options, out, command, force)
    done = runner.run(cmd, None, echo)
    collected = Collected(out, [out.ncu_report] if out.ncu_report.exists() else [], [cmd])
    if not out.ncu_report.exists():
        if any("No kernels were profiled" in line for line in done.tail):
            raise NoKernels("ncu profiled no kernel: check -k / --nvtx-include against the program's kernel and "
                            "range names (`--nvtx-include 'name/'` for a push/pop range), and that it runs on the GPU")
        raise ToolFailed(f"ncu wrote no report (exit code {done.returncode}): {done.program_lines()}")
    if done.returncode != 0:
        raise ProgramFailed(f"the program exited with code {done.returncode}; last lines: {done.program_lines()} "
                            f"(the report of what ran is kept: {out.ncu_report})")
    return collected
