"""`nsys-analytics export`."""

from __future__ import annotations

from pathlib import Path

import click

from ..categories import load_rules
from ...core.errors import UsageError
from ...core.files import check_output, replacing
from .parquet import export_parquet
from .perfetto import TraceWriter
from .window import resolve
from ..categories.classify_cmd import RULES_OPTION
from ...cli.options import window_options
from ...cli.profiles import open_profile


@click.command("export")
@click.argument("profiles", nargs=-1, required=True, type=click.Path(path_type=Path, readable=False))
@click.option("--to", "target", type=click.Choice(["perfetto", "parquet"]), required=True,
              help="perfetto: a Chrome trace (JSON, .gz to compress) for ui.perfetto.dev; parquet: one file per "
                   "normalized view into a folder.")
@click.option("-o", "--output", required=True, type=click.Path(path_type=Path),
              help="perfetto: FILE.json or FILE.json.gz; parquet: a new (or empty) folder.")
@window_options
@RULES_OPTION
def command(profiles, target, output, window, rules_files):
    """Hand a profile to other tools: Perfetto / chrome://tracing, or Parquet for pandas, polars, Spark.

    --to perfetto writes CUDA API calls and NVTX ranges per thread, kernels, copies and memsets per GPU stream,
    and an arrow from each launch to its kernel. Several profiles (e.g. one per rank) go into one trace, one
    group of processes per file. --to parquet writes every view of `nsys-analytics schema` (kernels, cuda_api,
    nvtx_events, memcpy, memset, ...) as FOLDER/<view>.parquet.

    A window (--start/--end or --range) keeps what overlaps it; the trace streams, so a whole profile of
    millions of kernels exports in bounded memory.

    \b
    Examples:
      nsys-analytics export train.sqlite --to perfetto -o train.json.gz
      nsys-analytics export train.sqlite --to perfetto --range step_3 -o step3.json.gz
      nsys-analytics export rank0.sqlite rank1.sqlite --to perfetto -o ranks.json.gz
      nsys-analytics export train.sqlite --to parquet -o train_parquet/
    """
    if target == "parquet":
        if len(profiles) > 1:
            raise UsageError("--to parquet exports one profile per folder; run it once per profile")
        check_output(output, profiles, folder=True)
        with open_profile(profiles[0]) as p:
            rows = export_parquet(p, output, resolve_window(p, window))
        click.echo(f"wrote {len(rows)} views ({sum(rows.values()):,} rows) to {output}/", err=True)
        return
    output = check_output(output, profiles)
    if not (output.name.endswith(".json") or output.name.endswith(".json.gz")):
        raise UsageError(f"-o {output}: give a file name ending in .json or .json.gz")
    rules = load_rules(rules_files)
    shifts = _clock_offsets(profiles)
    with replacing(output) as tmp, TraceWriter(tmp, compress=output.name.endswith(".gz")) as writer:
        for i, path in enumerate(profiles):
            with open_profile(path) as p:
                label = f"{path.stem}: " if len(profiles) > 1 else ""
                writer.add(p, i, label, resolve_window(p, window), rules, shifts.get(Path(path).resolve(), 0))
    events = writer.summary.events
    click.echo(f"wrote {output}: {writer.summary.total:,} events ({events['gpu']:,} GPU operations, "
               f"{events['api']:,} CUDA calls, {events['nvtx']:,} NVTX events (a start/end range is two), "
               f"{events['flows'] // 2:,} launch arrows)",
               err=True)


def _clock_offsets(profiles) -> dict[Path, int]:
    """{path: ns to add} that put several profiles (ranks) on the lowest rank's clock, as `timeline` and `ranks` do
    (each nsys session stamps its events from its own start); the notes of the set (a partial set, clocks that
    could not be aligned) go to stderr. One profile: none."""
    if len(profiles) < 2:
        return {}
    from ...data.engine import make_engine
    from ...data.profile_set import ProfileSet

    pset = ProfileSet([str(p) for p in profiles], engine=make_engine(jobs=1))
    for line in pset.messages():
        click.echo(line, err=True)
    return {Path(m.path).resolve(): m.clock_offset_ns for m in pset.members}


def resolve_window(profile, request):
    """The whole profile without asking for its span (the export keeps everything), else the window asked for."""
    from .window import WHOLE_PROFILE, TimeWindow

    if request.is_everything:
        return TimeWindow(0, 0, WHOLE_PROFILE)
    return resolve(profile, request)
