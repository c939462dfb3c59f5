"""`nsys-analytics cache list|info|clear`."""

from __future__ import annotations

from pathlib import Path

import click

from .options import output_options
from ..core.words import plural
from ..output.write import write


@click.group("cache")
def command():
    """The columnar cache: profiles' event tables copied once into Parquet files that later commands read.

    The folder is $NSYS_ANALYTICS_CACHE, else ~/.cache/nsys-analytics; nothing is ever written beside a profile.
    `--no-cache` (before the command) or NSYS_ANALYTICS_NO_CACHE=1 reads profiles directly. See docs/cache.md.

    \b
    Examples:
      nsys-analytics cache list
      nsys-analytics cache info
      nsys-analytics cache clear               # every cache
      nsys-analytics cache clear run.sqlite    # the caches of one profile
    """


@command.command("list")
@output_options
def list_command(fmt, output):
    """One row per cached profile: status (current, changed, missing), parts, size, last use."""
    from ..data.cache.listing import cache_rows
    from ..core.result import Result

    write(Result(*cache_rows(), key_columns=("profile", "status", "size_mib")), fmt, output)


@command.command("info")
@output_options
def info_command(fmt, output):
    """The cache folder, its size and bound, and the smallest profile that gets a cache."""
    from ..data.cache.listing import summary
    from ..core.result import Result

    info = summary()
    write(Result(["setting", "value"], [(k, v) for k, v in info.items()]), fmt, output)


@command.command("clear")
@click.argument("profile", required=False, type=click.Path(path_type=Path))
def clear_command(profile):
    """Remove every cache, WAL copy, report export and remembered result, or those of PROFILE (of a report: its
    export's too); what another command is reading stays."""
    from ..data import cache

    done = cache.clear(profile.expanduser() if profile else None)
    in_use = f"; {len(done.kept)} in use by another command, kept" if done.kept else ""
    parts = [plural(len(done.caches), "cache")]
    parts += [plural(len(found), noun) for found, noun in ((done.exports, "report export"),
              (done.remembered, "remembered result"), (done.spills, "spill folder")) if found]
    click.echo(f"removed {_joined(parts)} ({done.bytes / 2**20:.1f} MiB) from {cache.cache_dir()}{in_use}", err=True)


def _joined(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
