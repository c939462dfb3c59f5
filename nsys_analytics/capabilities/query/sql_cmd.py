"""`nsys-analytics sql`."""

from __future__ import annotations

import sys

import click

from ...data import sql_guard
from ...data.cache.folder import cache_dir
from ...core.errors import QueryError, UsageError
from ...cli.options import SINGLE_PROFILE_ARG, output_options
from ...cli.profiles import open_any as open_profile
from ...output.write import write


@click.command("sql")
@SINGLE_PROFILE_ARG
@click.argument("query", nargs=-1, metavar="[QUERY]")
@click.option("-f", "--file", "query_file", type=click.File("r"), help="Read the query from a file ('-' = stdin).")
@click.option("-p", "--param", "params", type=(str, str), multiple=True, metavar="NAME VALUE",
              help="Bind $NAME in the query to VALUE (repeatable).")
@click.option("-a", "--attach", "attachments", multiple=True, metavar="ALIAS=PROFILE",
              help="Also open PROFILE; its views are ALIAS.kernels, ALIAS.nvtx_events, ... (repeatable).")
@output_options
def command(profile, query, query_file, params, attachments, fmt, output):
    """Run SQL over the normalized views (see `nsys-analytics schema`).

    The raw nsys tables stay reachable as raw.<TABLE> (e.g. raw.CUPTI_ACTIVITY_KIND_KERNEL). Statements are
    read-only: SELECT (WITH, DESCRIBE, SUMMARIZE, SHOW, EXPLAIN) over the profiles and the files you name as text
    (read_csv, read_parquet); nothing that writes, attaches, installs, loads or changes a setting.

    \b
    Examples:
      nsys-analytics sql run.sqlite "SELECT name, sum(duration_ns) AS t FROM kernels GROUP BY 1 ORDER BY t DESC"
      nsys-analytics sql run.sqlite "SELECT * FROM kernels WHERE duration_ns > \\$min" -p min 100000
      nsys-analytics sql run.sqlite -f query.sql --format csv -o out.csv
      echo "SELECT count(*) FROM nvtx_events" | nsys-analytics sql run.sqlite
      nsys-analytics sql a.sqlite -a b=b.sqlite "SELECT (SELECT count(*) FROM kernels), (SELECT count(*) FROM b.kernels)"
      nsys-analytics sql r.ncu-rep "SELECT metric, value, unit FROM ncu_metrics WHERE kernel_id = 0"   (docs/ncu.md)
    """
    text = _query_text(_one_query(profile, query), query_file)
    run_query(profile, text, {name: _typed(value) for name, value in params}, attachments,
              lambda result: write(result, fmt, output, inputs=[profile]))


def run_query(profile, text: str, params: dict, attachments, emit) -> None:
    """`text` over `profile` under the read-only guard; `emit(result)` reads the streamed result while the profile
    is open (the CLI writes it; the MCP server keeps its first rows)."""
    reads = sql_guard.check_read_only(text)
    aliases = _aliases(attachments)
    with open_profile(profile) as p:
        for alias, path in aliases.items():
            p.attach(path, alias)
        if hasattr(p, "prepare"):  # the views the query reads, made now; `PRAGMA table_info('kernels')` too
            p.prepare(" ".join([text, *reads.objects]))
        sql_guard.lock(p.con, [*reads.files, *_profile_files(p)], [cache_dir()])
        try:
            emit(p.sql(text, params, stream=True, own=True))
        except QueryError as e:
            if "Permission Error" not in str(e):
                raise
            raise QueryError(f"{e} (`sql` reads the files a query names as text, e.g. read_csv('timer.csv'), and "
                             "no others)") from e


def _aliases(attachments) -> dict[str, str]:
    """{alias: profile} of the -a options, each alias once."""
    aliases: dict[str, str] = {}
    for spec in attachments:
        alias, sep, path = spec.partition("=")
        if not sep or not alias or not path:
            raise UsageError(f"--attach {spec!r}: write ALIAS=PROFILE, e.g. -a base=baseline.sqlite")
        if alias in aliases:
            raise UsageError(f"--attach {alias}=: the alias {alias!r} is given twice; give each profile its own")
        aliases[alias] = path
    return aliases


def _profile_files(p) -> list:
    """The files the profile may still read while the query runs (the export, attached when `raw.` is read)."""
    return [f for f in (getattr(p, "sqlite_path", None), getattr(p, "path", None)) if f is not None]


def _one_query(profile, words: tuple[str, ...]) -> str | None:
    """The QUERY argument; more profiles, or a query left unquoted, get the one line that says what to do."""
    profiles = [w for w in words if _looks_like_profile(w)]
    if profiles:
        raise _a_profile(profiles[0])
    if len(words) > 1:
        raise UsageError(f"give the query as one argument, in quotes: {' '.join(words)!r}")
    return words[0] if words else None


def _looks_like_profile(word: str) -> bool:
    """A profile file's name or a folder; a query longer than a file name can be (the OS refuses to look it up)
    is neither."""
    from pathlib import Path

    if not word.strip():  # Path('') is the current folder
        return False
    if Path(word).suffix in (".sqlite", ".nsys-rep", ".qdrep", ".ncu-rep"):
        return True
    try:
        return Path(word).is_dir()
    except OSError:
        return False


def _a_profile(path: str) -> UsageError:
    return UsageError(f"{path!r} is a profile, not a query: sql reads one profile and attaches more with "
                      f"-a ALIAS=PROFILE (sql A.sqlite -a b={path} \"SELECT ... FROM b.kernels\")")


def _query_text(query: str | None, query_file) -> str:
    if query and query_file:
        raise UsageError("give the query as an argument or with -f, not both")
    if query_file is not None:
        try:
            text = query_file.read()
        except UnicodeDecodeError as e:
            raise UsageError(f"{query_file.name}: not UTF-8 text (at byte {e.start}); save the query as UTF-8") \
                from None
    elif query not in (None, "-"):
        text = query
    elif not sys.stdin.isatty():
        text = sys.stdin.read()
    else:
        raise UsageError("no query: pass it as an argument, with -f FILE, or on standard input")
    if not text.strip():
        raise UsageError("the query is empty")
    if text.strip().endswith((".sqlite", ".nsys-rep", ".qdrep")) and not any(c.isspace() for c in text.strip()):
        raise _a_profile(text.strip())  # a query file or standard input that names a profile
    return text


def _typed(value: str):
    """'42' -> 42, '1.5' -> 1.5, anything else stays a string."""
    for convert in (int, float):
        try:
            return convert(value)
        except ValueError:
            pass
    return value
