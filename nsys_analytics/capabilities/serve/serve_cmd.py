"""`nsys-analytics serve`."""

from __future__ import annotations

from pathlib import Path

import click

from ...cli.profiles import note_one_rank, open_profile
from ...cli.rules_option import RULES_OPTION
from ...core.errors import UsageError
from ...core.words import plural

DEFAULT_PORT = 8765


@click.command("serve")
@click.argument("profiles", nargs=-1, required=True, metavar="PROFILES...",
                type=click.Path(path_type=str, readable=False))
@click.option("--vs", "vs", multiple=True, metavar="PROFILE", type=click.Path(path_type=str, readable=False),
              help="A profile to compare with (the diff page: PROFILES as BASE, this as NEW; repeat it for the "
                   "ranks of NEW).")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True,
              help="The port to listen on (0: any free port).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; only this machine can connect by default.")
@click.option("--by-rank", is_flag=True, help="Treat one report holding several processes as one rank per process.")
@click.option("--ncu", "ncu_report", type=click.Path(path_type=str, readable=False), metavar="REPORT",
              help="An Nsight Compute report (.ncu-rep or raw CSV) of the same program: a kernel's page shows its "
                   "metrics, as `ncu REPORT --nsys PROFILE`.")
@RULES_OPTION
def command(profiles, vs, port, host, by_rank, ncu_report, rules_files):
    """Explore profiles in a browser: overview, a zoomable timeline, kernels, NVTX ranges, categories, ranks, diff.

    A local web app over one profile, the ranks of one run (files or a folder), or two profiles compared
    (--vs). The timeline asks only for the window on screen, summed per pixel column in DuckDB: an answer's
    size depends on the pixels, not on the kernels. Read-only; only the profiles named here are reachable.
    Ctrl-C stops it. See docs/explore.md.

    \b
    Examples:
      nsys-analytics serve run.sqlite
      nsys-analytics serve runs/ --port 9000
      nsys-analytics serve before.sqlite --vs after.sqlite
      nsys-analytics serve run.sqlite --ncu run.ncu-rep
    """
    from .server import Server

    session = open_session(list(profiles), list(vs), rules_files, by_rank, ncu_report)
    try:
        try:
            server = Server(session, host, port)
        except OSError as e:
            raise UsageError(f"cannot listen on {host}:{port}: {e.strerror or e}; pick another with --port") from None
        count = plural(len(session.served), "profile")
        click.echo(f"Serving {count} at {server.url} (Ctrl-C to stop)", err=True)
        click.echo(server.url)
        try:
            server.serve_forever(poll_interval=0.2)
        finally:
            server.server_close()
    finally:
        close_session(session)


def open_session(profiles: list[str], vs: list[str] = (), rules_files=(), by_rank: bool = False,
                 ncu: str | None = None):
    """Open every profile before anything listens: a bad file is its one-line error, as in every command."""
    from ..categories import load_rules
    from .api import Served, Session
    from .timeline_window import prepare

    rules = load_rules(rules_files)
    pset = None
    if len(profiles) == 1 and _one_profile(Path(profiles[0])) and not by_rank:
        opened = [(Path(profiles[0]).name, "profile", open_profile(profiles[0]))]
        note_one_rank(profiles[0], opened[0][2], by_rank="serve --by-rank")  # a whole launch: its ranks page
    else:
        from ...data.engine import make_engine
        from ...data.profile_set import ProfileSet

        pset = ProfileSet(profiles, engine=make_engine(None, 1))
        for line in pset.messages():
            click.echo(line, err=True)
        opened = [(m.name, f"rank {m.rank}", open_profile(m)) for m in pset.members]
    opened += [(Path(p).name, "compared (--vs)", open_profile(p)) for p in vs]
    if ncu is not None:
        from ..ncu.report import NcuReport

        NcuReport(ncu).close()  # a bad report: its one-line error now
    served = [Served(f"p{i}", name, role, profile, rules, ncu=None if role.startswith("compared") else ncu)
              for i, (name, role, profile) in enumerate(opened)]
    for s in served:  # the timeline's tables now, so that the first paint waits for no one
        s.timeline = prepare(s.profile, rules)
    base = profiles if pset is None else list(dict.fromkeys(m.path for m in pset.members))  # a folder: its files
    return Session(served, rules, pset, base, vs)


def _one_profile(path: Path) -> bool:
    """A file, or a folder that is one parquetdir/arrowdir export (not a folder of profiles)."""
    from ...data.columnar import is_export_dir

    return path.is_file() or is_export_dir(path)


def close_session(session) -> None:
    for served in session.served.values():
        served.profile.close()
    if session.pset is not None:
        session.pset.engine.close()
