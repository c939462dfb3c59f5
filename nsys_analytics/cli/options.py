"""Options shared by several commands, defined once."""

from __future__ import annotations

import functools
from pathlib import Path

import click

from ..core.filters import ATTRIBUTIONS, NAME_KINDS, kernel_filter_from
from ..output.render import FORMATS, PARQUET, chunks, escape_controls, render, write_parquet
from ..capabilities.visual.outputs import check_parquet_output
from . import many
from .outputs import deliver, replacing

# PROFILES...: one profile as always, or several (files, globs, a folder) read as ranks (cli/many.py).
PROFILE_ARG = many.profiles_argument()
# Exactly one profile (commands that open more in their own way, e.g. `sql -a`).
SINGLE_PROFILE_ARG = click.argument("profile", type=click.Path(path_type=Path, readable=False))


def output_options(f):
    """--format and -o/--output."""
    f = click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
                     help="Write to FILE instead of standard output.")(f)
    return click.option("--format", "fmt", type=click.Choice((*FORMATS, PARQUET)), default="table",
                        show_default=True, help="Output format (parquet: a file, give -o FILE.parquet).")(f)


def emit(result, fmt: str, output: Path | None, inputs=()) -> None:
    """Render a Result and write it to stdout or to the file named by -o (a streamed one, batch by batch;
    parquet: to the file only; in a rank's worker: hand it back)."""
    if many.collecting() is not None:
        many.collecting().append(result.materialize())
        return
    if fmt == PARQUET:
        write_parquet(result.materialize(), check_parquet_output(output, inputs))
        click.echo(f"wrote {len(result.rows)} rows to {output}", err=True)
        return
    if output is None and result.batches is not None:  # a long result: to stdout batch by batch
        for text in chunks(result, fmt):
            click.echo(text, nl=False)
        return
    if result.batches is not None and fmt in STREAMED:  # ... or to the file, batch by batch, replaced when done
        counted = _counting(result)
        with replacing(Path(output)) as partial, open(partial, "w") as out:
            for text in chunks(counted, fmt):
                out.write(text)
        click.echo(escape_controls(f"wrote {counted.rows_seen[0]} rows to {output}"), err=True)
        return
    result.materialize()  # a file is written whole through a temporary file (deliver)
    deliver(render(result, fmt), fmt, output, f"{len(result.rows)} rows")


STREAMED = ("csv", "json")  # the formats written a batch at a time (render.chunks)


def _counting(result):
    """A copy of a streamed result that counts the rows its batches hand out (in `rows_seen[0]`)."""
    from dataclasses import replace

    seen = [0]

    def batches():
        for batch in result.batches:
            seen[0] += len(batch)
            yield batch

    counted = replace(result, batches=batches())
    counted.rows_seen = seen
    return counted


GRAPHS_OPTION = click.option(
    "--graphs", is_flag=True,
    help="Also count whole CUDA graph executions (profiles made with nsys' default --cuda-graph-trace=graph) as "
         "[CUDA graph N] rows; nsys stats leaves them out, and so does this command by default (a note says how "
         "much).")


def table_option(default: str, names: str):
    """--table NAME: the one table `--format csv` writes, for commands with several (JSON keeps them all)."""
    return click.option("--table", "table", metavar="NAME",
                        help=f"With --format csv: the table to write ({names}; default {default}). CSV holds one "
                             "table, JSON every one.")


def attribution_options(f):
    """--attribution and --exclusive: how the NVTX reports place GPU work in ranges (docs/nvtx.md)."""
    f = click.option("--exclusive", is_flag=True,
                     help="Count each kernel in its innermost range only, so that totals add up (nsys counts it "
                          "in every enclosing range).")(f)
    return click.option("--attribution", type=click.Choice(ATTRIBUTIONS), default="thread", show_default=True,
                        help="thread: launched inside the range on its thread (nsys' rule); process: launched "
                             "inside its window on any thread (autograd's backward); gpu: execution overlaps it.")(f)


def kernel_filter_options(f):
    """--name, --device, --stream, --pid, --start, --end, --match, --range, --exclude-range, --attribution
    -> a `kernel_filter` argument."""
    options = [
        click.option("--name", "name_kind", type=click.Choice(NAME_KINDS), default="demangled", show_default=True,
                     help="Kernel name: demangled (nsys' default), short (nsys :base) or mangled (nsys :mangled)."),
        click.option("--device", type=int, help="Only kernels on this CUDA device id."),
        click.option("--stream", type=int, help="Only kernels on this CUDA stream id."),
        click.option("--pid", type=int, help="Only kernels of this process id."),
        click.option("--start", help="Only kernels starting at or after this profile time (e.g. 1.5s, 200ms)."),
        click.option("--end", help="Only kernels starting before this profile time (e.g. 2s)."),
        click.option("--match", help="Only kernels whose name matches this regular expression."),
        click.option("--range", "range_name", metavar="NAME",
                     help="Only kernels in an NVTX range of this name: 'forward', ':forward', 'train_loop:step_0', "
                          "or a glob such as 'step_*'."),
        click.option("--exclude-range", "exclude_range_name", metavar="NAME",
                     help="Leave out kernels in an NVTX range of this name (e.g. warmup)."),
        click.option("--attribution", type=click.Choice(ATTRIBUTIONS), default="thread", show_default=True,
                     help="How --range / --exclude-range place kernels in ranges: thread (nsys' rule), process "
                          "(launched from any thread, e.g. autograd's backward) or gpu (execution overlaps)."),
    ]
    for option in reversed(options):
        f = option(f)

    @functools.wraps(f)
    def wrapper(*args, name_kind, device, stream, pid, start, end, match, range_name, exclude_range_name,
                attribution, **kwargs):
        kwargs["kernel_filter"] = kernel_filter_from(
            name_kind=name_kind, device=device, stream=stream, pid=pid, start=start, end=end, match=match,
            range_name=range_name, exclude_range_name=exclude_range_name, attribution=attribution)
        return f(*args, **kwargs)

    return wrapper


def window_options(f):
    """--start, --end, --range, --instance -> a `window` argument (visual.window.WindowRequest)."""
    from ..capabilities.visual.window import WindowRequest

    options = [
        click.option("--start", help="Window start on the profile's clock (e.g. 2.5s, 2500ms)."),
        click.option("--end", help="Window end (e.g. 2.51s)."),
        click.option("--range", "range_name", metavar="NAME",
                     help="The window of the NVTX range NAME ('step_3', ':forward', a glob such as 'step_*'): "
                          "from its first instance's start to its last one's end."),
        click.option("--instance", type=int, metavar="N", help="With --range: only its N-th instance (from 1)."),
    ]
    for option in reversed(options):
        f = option(f)

    @functools.wraps(f)
    def wrapper(*args, start, end, range_name, instance, **kwargs):
        kwargs["window"] = WindowRequest(start, end, range_name, instance)
        return f(*args, **kwargs)

    return wrapper
