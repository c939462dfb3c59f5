"""The tools: one per report command, with typed arguments that mirror the command's options.

A tool turns its arguments into the command's own arguments and has `run(command, args)` build the command's
report (mcp_cmd.py: the CLI's code, so a tool and `nsys-analytics COMMAND ... --format json` cannot drift). The
answer is that JSON document with every list cut to `max_rows`, what was cut, and the terminal command that
prints it whole. Options a tool leaves out (None) take the command's default, so the command line stays short.

No `from __future__ import annotations` here: the SDK reads these annotations as objects (the tools are closures).
"""

import functools
import json
import shlex
from collections.abc import Callable
from typing import Annotated, Any, Literal, Optional

from mcp.types import CallToolResult, TextContent
from pydantic import Field
from typing_extensions import TypedDict

from ..breakdown.report import BASES
from ..diagnose import RULES
from ..diff import ATTRIBUTIONS as DIFF_ATTRIBUTIONS, TABLES as DIFF_TABLES
from ..nvtx.steady import WINDOWS
from .profiles import Served
from ...core.errors import NsysAnalyticsError
from ...core.filters import ATTRIBUTIONS, NAME_KINDS

MAX_ROWS = 10_000

Profile = Annotated[str, Field(description="A profile of this server, by the name the `profiles` tool lists.")]
MaxRows = Annotated[int, Field(ge=1, le=MAX_ROWS, description="Rows kept per table; a note says how many more "
                                                                "there are and the command that prints them all.")]
Time = Annotated[Optional[str], Field(description="A time on the profile's clock, e.g. 1.5s, 200ms, 1200us.")]
Count = Annotated[Optional[int], Field(ge=1)]
NameKind = Optional[Literal[NAME_KINDS]]
Attribution = Optional[Literal[ATTRIBUTIONS]]
Window = Optional[Literal[WINDOWS]]


class Cut(TypedDict):
    table: str  # where the list is in `result` (keys joined by '.')
    rows: int  # how many it had
    shown: int  # how many are kept


class Answer(TypedDict):
    command: str  # the terminal command that prints this result whole
    result: Any  # its `--format json` document, lists cut to max_rows
    truncated: list[Cut]
    note: str  # what the command noted on stderr (`Note: ...`), then what was left out; or ''


# What a tool returns: an Answer (its output schema), or an error result whose text is the CLI's one line as it is
# (a ToolError would reach the client behind the SDK's "Error executing tool NAME: " prefix).
Reply = Annotated[CallToolResult, Answer]


class Failure(Exception):
    """A tool's failure: its text is the line the CLI prints (`Error: ...`)."""


def replying(tool: Callable) -> Callable:
    """`tool` (which returns an Answer or raises Failure) as the SDK's tool function, with its signature."""

    @functools.wraps(tool)
    def reply(**kwargs) -> CallToolResult:
        try:
            answer = tool(**kwargs)
        except Failure as e:
            return CallToolResult(content=[TextContent(type="text", text=str(e))], is_error=True)
        return CallToolResult(content=[TextContent(type="text", text=json.dumps(answer))], structured_content=answer)

    return reply


def flags(**options) -> list[str]:
    """Keyword options as command-line options: None and False left out, True a bare flag, a list repeated."""
    out: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        else:
            for item in value if isinstance(value, (list, tuple)) else [value]:
                out += [flag, str(item)]
    return out


def positional(value: str) -> list[str]:
    """An argument that could read as an option ('--help') kept an argument."""
    return ["--", value] if value.startswith("-") else [value]


def with_json(args: list[str]) -> list[str]:
    """The arguments with `--format json`: at the end, or before a `--` that ends the options."""
    at = args.index("--") if "--" in args else len(args)
    return [*args[:at], "--format", "json", *args[at:]]


def terminal_command(command: str, args: list[str]) -> str:
    return shlex.join(["nsys-analytics", command, *with_json(args)])


def answer(command: str, args: list[str], doc, max_rows: int, notes: tuple[str, ...] = ()) -> Answer:
    """`notes`: the lines the command printed on stderr as `Note: ...` (a terminal shows them beside the table:
    one rank's file of a larger job, a report of a whole launch read as one profile)."""
    cut: list[Cut] = []
    result = _cut(doc, max_rows, "", cut)
    line = terminal_command(command, args)
    return {"command": line, "result": result, "truncated": cut,
            "note": "\n".join([*notes, _note(cut, line)]).strip()}


def _cut(doc, max_rows: int, where: str, cut: list[Cut]):
    """`doc` with every list longer than `max_rows` cut to its first rows (recorded in `cut`)."""
    if isinstance(doc, dict):
        return {k: _cut(v, max_rows, f"{where}.{k}" if where else str(k), cut) for k, v in doc.items()}
    if isinstance(doc, list):
        if len(doc) > max_rows:
            cut.append({"table": where or "rows", "rows": len(doc), "shown": max_rows})
        return [_cut(v, max_rows, f"{where}[{i}]", cut) for i, v in enumerate(doc[:max_rows])]
    return doc


def _note(cut: list[Cut], line: str) -> str:
    if not cut:
        return ""
    parts = ", ".join(f"{c['table']}: {c['rows'] - c['shown']} of {c['rows']} rows left out" for c in cut)
    return f"{parts}; raise max_rows (up to {MAX_ROWS}), narrow the query, or run `{line}` for all of them"


def build(served: Served, run: Callable[[str, list[str]], tuple[Any, tuple[str, ...]]],
          run_sql: Callable) -> list[Callable]:
    """The tools over `served`: `run(command, args)` -> (the command's JSON document, its notes); `run_sql(path,
    text, params, attachments, max_rows)` -> (rows kept, rows in all) of the `sql` command's guarded query."""

    def call(command: str, args: list[str], max_rows: int) -> Answer:
        doc, notes = run(command, args)
        return answer(command, args, doc, max_rows, notes)

    def path(name: str) -> str:
        try:
            return served.path(name)
        except NsysAnalyticsError as e:
            raise Failure(f"Error: {e}") from None

    def profiles() -> list[dict]:
        """The profiles this server was started with: the names every other tool's `profile` argument takes."""
        return served.listing()

    def info(profile: Profile, max_rows: MaxRows = 50) -> Reply:
        """What a profile holds: nsys version, capture, GPUs, processes, row counts, and what is missing."""
        return call("info", [path(profile)], max_rows)

    def kernels(profile: Profile, limit: Count = None, by_launch_config: bool = False,
                name: NameKind = None, device: Optional[int] = None, stream: Optional[int] = None,
                pid: Optional[int] = None, start: Time = None, end: Time = None, match: Optional[str] = None,
                range: Optional[str] = None, exclude_range: Optional[str] = None, attribution: Attribution = None,
                graphs: bool = False, max_rows: MaxRows = 50) -> Reply:
        """Top kernels by total GPU time (nsys stats cuda_gpu_kern_sum), with the `kernels` command's filters:
        `match` a regular expression on the name, `range`/`exclude_range` an NVTX range name or glob."""
        return call("kernels", [path(profile), *flags(
            limit=limit, by_launch_config=by_launch_config, name=name, device=device, stream=stream, pid=pid,
            start=start, end=end, match=match, range=range, exclude_range=exclude_range, attribution=attribution,
            graphs=graphs)], max_rows)

    def nvtx(profile: Profile, max_rows: MaxRows = 50) -> Reply:
        """Time per NVTX range name (nsys stats nvtx_sum)."""
        return call("nvtx", [path(profile)], max_rows)

    def nvtx_kernels(profile: Profile, name: NameKind = None, attribution: Attribution = None, exclusive: bool = False,
                     per_instance: bool = False, graphs: bool = False, max_rows: MaxRows = 50) -> Reply:
        """GPU time of the kernels in each NVTX range (nsys stats nvtx_kern_sum); `attribution` process puts
        autograd's backward kernels in their range; `exclusive` counts a kernel in its innermost range only."""
        return call("nvtx-kernels", [path(profile), *flags(
            name=name, attribution=attribution, exclusive=exclusive, per_instance=per_instance, graphs=graphs)],
            max_rows)

    def breakdown(profile: Profile, basis: Optional[Literal[BASES]] = None, top: Count = None,
                  kernels_only: bool = False, by: Optional[Literal["range"]] = None,
                  range_names: Optional[list[str]] = None, window: Window = None, step_range: Optional[str] = None,
                  warmup_range: Optional[str] = None, start: Time = None, end: Time = None,
                  match: Optional[str] = None, max_rows: MaxRows = 50) -> Reply:
        """GPU time by kernel category, matmul vs non-matmul, and the heaviest non-matmul kernels; `by` range
        gives one column per NVTX range. By default the steady state (`window` all: the whole capture)."""
        return call("breakdown", [path(profile), *flags(
            basis=basis, top=top, kernels_only=kernels_only, by=by, range_names=range_names, window=window,
            step_range=step_range, warmup_range=warmup_range, start=start, end=end, match=match)], max_rows)

    def diagnose(profile: Profile, rule: Optional[list[Literal[RULES]]] = None, start: Time = None, end: Time = None,
                 range: Optional[str] = None, window: Window = None, step_range: Optional[str] = None,
                 warmup_range: Optional[str] = None, gap: Annotated[Optional[int], Field(ge=0)] = None,
                 threshold: Annotated[Optional[int], Field(ge=0, le=100)] = None,
                 short_kernel: Optional[float] = None, by_rank: bool = False, max_rows: MaxRows = 50) -> Reply:
        """Why the GPU waits: nsys' expert rules and the project's own (launch_bound, gpu_starved, ...), findings
        with the most GPU time at stake first. `gap` in ms, `threshold` in %, `short_kernel` in us. `by_rank`: a
        report holding several processes (the ranks of one launch) read as one rank each, the cross-rank findings
        (a straggler) first; the answer's note says when a report holds several."""
        return call("diagnose", [path(profile), *flags(
            rule=rule, start=start, end=end, range=range, window=window, step_range=step_range,
            warmup_range=warmup_range, gap=gap, threshold=threshold, short_kernel=short_kernel, by_rank=by_rank)],
            max_rows)

    def modules(profile: Profile, depth: Count = None, top: Count = None, window: Window = None,
                step_range: Optional[str] = None, warmup_range: Optional[str] = None,
                max_rows: MaxRows = 50) -> Reply:
        """GPU time per model module, forward and backward, per steady-state step (ms, ratio, share, TFLOP/s),
        from module ranges (nsys_analytics.torch.instrument) or emit_nvtx op ranges; `depth` folds the tree, `top`
        kernels are listed per module and direction."""
        return call("modules", [path(profile), *flags(
            depth=depth, top=top, window=window, step_range=step_range, warmup_range=warmup_range)], max_rows)

    def ranks(profiles: Optional[list[str]] = None, strict: bool = False, max_rows: MaxRows = 50) -> Reply:
        """Distributed training rank by rank (step time, busy, compute, communication, waits, the straggler),
        over `profiles` (default: every profile of this server, one per rank; one report of a whole launch is
        split by process)."""
        names = profiles or [p["name"] for p in served.listing()]
        return call("ranks", [*[path(n) for n in names], *flags(strict=strict)], max_rows)

    def diff(baseline: Profile, candidate: Profile, attribution: Optional[Literal[DIFF_ATTRIBUTIONS]] = None,
             window: Window = None, name: Optional[Literal["demangled", "short"]] = None,
             alpha: Annotated[Optional[float], Field(gt=0, le=1)] = None,
             table: Optional[list[Literal[DIFF_TABLES]]] = None, min_effect: Optional[list[str]] = None,
             max_rows: MaxRows = 50) -> Reply:
        """What changed from `baseline` to `candidate`: a verdict, then kernels, categories and NVTX ranges side
        by side, beyond noise or not. `min_effect`: e.g. step=5 (percent)."""
        return call("diff", [path(baseline), path(candidate), *flags(
            attribution=attribution, window=window, name=name, alpha=alpha, table=table, min_effect=min_effect)],
            max_rows)

    def report(forward: Profile, train: Optional[str] = None, forward_range: Optional[str] = None,
               step_range: Optional[str] = None, top: Count = None,
               max_rows: MaxRows = 50) -> Reply:
        """The assignment-style report over a forward-only profile and, optionally, a training one: forward time,
        heaviest kernel, non-matmul kernels, inference vs training categories."""
        train_path = path(train) if train is not None else None
        return call("report", flags(forward=path(forward), train=train_path, forward_range=forward_range,
                                    step_range=step_range, top=top), max_rows)

    def schema(view: Optional[str] = None, max_rows: MaxRows = 200) -> Reply:
        """The normalized views the `sql` tool reads and their columns, with what each column means; `view`:
        one view's columns."""
        return call("schema", positional(view) if view else [], max_rows)

    def sql(profile: Profile, query: str, params: Optional[dict[str, str | int | float]] = None,
            attach: Optional[dict[str, str]] = None, max_rows: MaxRows = 50) -> Reply:
        """Read-only SQL over the normalized views (see `schema`), under the `sql` command's guard: SELECT, WITH,
        DESCRIBE, SUMMARIZE, SHOW, EXPLAIN; `$name` placeholders bound from `params`; `attach` {alias: profile}
        opens another profile of this server as alias.kernels, ...; reading any other file is refused."""
        attachments = [f"{alias}={path(name)}" for alias, name in (attach or {}).items()]
        args = [path(profile), *[a for item in attachments for a in ("-a", item)],
                *[a for k, v in (params or {}).items() for a in ("-p", k, str(v))], *positional(query)]
        rows, total = run_sql(path(profile), query, params or {}, attachments, max_rows)
        cut: list[Cut] = [{"table": "rows", "rows": total, "shown": len(rows)}] if total > len(rows) else []
        line = terminal_command("sql", args)
        return {"command": line, "result": rows, "truncated": cut, "note": _note(cut, line)}

    return [profiles, *map(replying, [info, kernels, nvtx, nvtx_kernels, breakdown, diagnose, modules, ranks, diff,
                                      report, schema, sql])]
