"""`nsys-analytics timeline`."""

from __future__ import annotations

from pathlib import Path

import click

from ..categories import load_rules
from ...core.errors import UsageError
from ...core.files import check_output
from ...core.words import plural
from .plot import check_path, data_width_px, plot_timeline
from .rank_timeline import launch_ranks, rank_timelines, stacked
from .timeline import build_timeline
from ..categories.classify_cmd import RULES_OPTION
from ...cli.options import window_options
from ...cli.profiles import open_profile
from ...core.words import plural


@click.command("timeline")
@click.argument("profiles", nargs=-1, required=True, metavar="PROFILES...",
                type=click.Path(path_type=str, readable=False))
@window_options
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The picture to write: FILE.png or FILE.svg.")
@click.option("--no-api", is_flag=True, help="Leave out the CUDA API rows.")
@click.option("--no-nvtx", is_flag=True, help="Leave out the NVTX rows.")
@click.option("--skip-bad", is_flag=True, help="Several profiles: go on without those that cannot be read (named on "
                                               "stderr).")
@RULES_OPTION
def command(profiles, window, output, no_api, no_nvtx, skip_bad, rules_files):
    """A timeline picture: kernels (coloured by category), copies, memsets and CUDA graph launches per GPU stream,
    then NVTX ranges and CUDA API calls per thread, on a time axis in ms.

    PROFILES: one profile, or several (one per rank: files, globs or a folder): the ranks are drawn on one time
    axis (clocks aligned), their rows titled "rank N"; --range step_3 then draws each rank's step_3. One report of
    a whole launch titles its processes' rows "rank N" too.

    Kernels narrower than two pixels are summed per pixel column into a density band (its height is the share
    of the column the stream was busy), so a window over millions of kernels draws as fast as a small one.
    Threads whose CUDA calls fill under 0.1 % of the window share one row.
    Without --start/--end/--range the picture spans the profile's GPU work and NVTX ranges.

    \b
    Examples:
      nsys-analytics timeline train.sqlite -o train.png
      nsys-analytics timeline train.sqlite --range step_3 -o step3.svg
      nsys-analytics timeline train.sqlite --range forward --instance 2 -o fwd2.png
      nsys-analytics timeline big.sqlite --start 2.5s --end 2.51s -o ten_ms.png
      nsys-analytics timeline runs/ --range step_3 -o step3_ranks.png
    """
    output = check_path(check_output(output, [Path(p) for p in profiles]))
    options = {"rules": load_rules(rules_files), "width_px": data_width_px(), "api": not no_api, "nvtx": not no_nvtx}
    if len(profiles) == 1 and Path(profiles[0]).is_file():
        with open_profile(Path(profiles[0])) as p:
            pids, devices = launch_ranks(p.path)
            timeline = build_timeline(p, window, pid_labels=pids, device_labels=devices, **options)
            if not timeline.lanes and not window.is_everything:
                _refuse_empty(p, timeline.window)
    else:
        timeline = _ranks_timeline(profiles, window, options, skip_bad)
    plot_timeline(timeline, output)
    ops = sum(b.count for b in timeline.boxes)
    click.echo(f"wrote {output} ({plural(len(timeline.lanes), 'row')}, {ops:,} operations)",
               err=True)


def _refuse_empty(profile, window) -> None:
    """A window that holds nothing of the profile (outside its span) is refused as `export` refuses it, not drawn
    as an empty picture."""
    start, end = profile.run_file("visual", "timeline_span").rows[0]
    raise UsageError(f"the window [{window.start_ns}, {window.end_ns}) ns holds nothing of the profile; its GPU work "
                     f"spans [{start}, {end}) ns")


def _ranks_timeline(profiles, window, options, skip_bad: bool):
    from ...data.engine import make_engine
    from ...data.profile_set import ProfileSet

    pset = ProfileSet(list(profiles), engine=make_engine(jobs=1), skip_bad=skip_bad)
    for line in [f"{plural(len(pset), 'rank')} (rank ids from the {pset.rank_source})", *pset.messages()]:
        click.echo(line, err=True)
    parts = rank_timelines(pset, window, **options)
    return stacked(parts, f"{plural(len(parts), 'rank')}: {parts[0].timeline.window.source}")
