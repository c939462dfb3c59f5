"""Options shared by several commands, defined once."""

from __future__ import annotations

import functools
from pathlib import Path

import click

from ..core.filters import ATTRIBUTIONS, NAME_KINDS, kernel_filter_from
from ..output.options import output_options, table_option  # noqa: F401 (the commands' one import of options)
from . import many

# PROFILES...: one profile as always, or several (files, globs, a folder) read as ranks (cli/many.py).
PROFILE_ARG = many.profiles_argument()
# Exactly one profile (commands that open more in their own way, e.g. `sql -a`).
SINGLE_PROFILE_ARG = click.argument("profile", type=click.Path(path_type=Path, readable=False))


GRAPHS_OPTION = click.option(
    "--graphs", is_flag=True,
    help="Also count whole CUDA graph executions (profiles made with nsys' default --cuda-graph-trace=graph) as "
         "[CUDA graph N] rows; nsys stats leaves them out, and so does this command by default (a note says how "
         "much).")


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
