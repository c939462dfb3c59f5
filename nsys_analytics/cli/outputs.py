"""Files the CLI writes (-o, --plot): never an input of the command, always whole (a temporary file renamed into
place, so a failure or Ctrl-C leaves the old file as it was)."""

from __future__ import annotations

import functools
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from ..data import source
from ..core.errors import UsageError
from ..output.render import escape_controls, for_people

OUTPUT_PARAMS = ("output", "plot", "plot_path")  # the options that name a file a command writes


def guarded(command):
    """`command` with its outputs checked against its inputs before it runs (idempotent)."""
    if getattr(command, "_outputs_guarded", False) or command.callback is None:
        return command
    callback = command.callback

    @functools.wraps(callback)
    def checked(*args, **kwargs):
        outputs = [Path(v) for k, v in kwargs.items() if k in OUTPUT_PARAMS and v]
        inputs = [p for k, v in kwargs.items() if k not in OUTPUT_PARAMS for p in _paths(v)]
        for output in outputs:
            check_output(output, inputs)
        return callback(*args, **kwargs)

    command.callback = checked
    command._outputs_guarded = True
    return command


def _paths(value) -> list[Path]:
    """The file paths in one parameter's value: paths, lists of them, ALIAS=PATH, open files."""
    if isinstance(value, (list, tuple)):
        return [p for v in value for p in _paths(v)]
    if isinstance(value, Path):
        return [value]
    if isinstance(value, str):
        candidate = value.partition("=")[2] if "=" in value else value
        return [Path(candidate)] if candidate and os.path.lexists(candidate) else []
    name = getattr(value, "name", None)  # a click.File
    return [Path(name)] if isinstance(name, str) and os.path.lexists(name) else []


def check_output(output: Path, inputs: list[Path]) -> None:
    """UsageError when `output` is one of `inputs` (the same file by any name) or cannot be written."""
    for path in inputs:
        try:
            same = os.path.samefile(output, path)
        except OSError:
            continue
        if same:
            raise UsageError(f"{output}: that is an input profile or file of this command ({path}); write the "
                             "output to another file")
    folder = Path(os.path.realpath(output)).parent
    if not folder.is_dir():
        raise UsageError(f"{output}: the folder {folder} does not exist; create it or write elsewhere")


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temporary file beside `path` (same suffix) that replaces `path` when the block succeeds. A symbolic link
    is followed: its target is replaced, the link stays. A path that is not a regular file (/dev/null, a FIFO) is
    written to directly: renaming over it would replace a device with a file."""
    path = Path(path)
    check_output(path, source.inputs())
    target = Path(os.path.realpath(path))
    if target.exists() and not target.is_file():  # /dev/null, a FIFO, a terminal: written to, never replaced
        yield target
        return
    remove_killed(target.parent)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.stem}.{os.getpid()}.", suffix=f".partial{target.suffix}",
                                    dir=target.parent)
    except OSError as e:
        raise UsageError(f"{path}: cannot be written ({e.strerror}); write elsewhere") from None
    os.close(fd)
    partial = Path(name)
    _partials.add(partial)
    try:
        yield partial
        os.chmod(partial, stat.S_IMODE(target.stat().st_mode) if target.exists() else _default_mode())
        os.replace(partial, target)
    except OSError as e:
        raise UsageError(f"{path}: cannot be written ({e.strerror}); write elsewhere") from None
    finally:
        partial.unlink(missing_ok=True)
        _partials.discard(partial)


_partials: set[Path] = set()
# `replacing`'s temporary files: `.<stem>.<pid>.<8 random characters of mkstemp>.partial<suffix>`
_PARTIAL = re.compile(r"^\..*\.(\d+)\.[a-z0-9_]{8}\.partial(\.[^.]*)?$")
GRACE_S = 15 * 60  # a temporary file written to this recently is left, whatever its process (another machine's?)


def remove_killed(folder: Path) -> None:
    """Remove the temporary files that writers killed at once (SIGKILL) left in `folder`: only names of our own
    pattern, whose process is gone and that were last written more than GRACE_S ago."""
    from ..data.cache.orphans import pid_alive

    now = time.time()
    for path in folder.glob(".*.partial*"):
        m = _PARTIAL.match(path.name)
        try:
            old = now - path.lstat().st_mtime > GRACE_S
        except OSError:
            continue
        if m and old and path.is_file() and not path.is_symlink() and not pid_alive(int(m.group(1))):
            path.unlink(missing_ok=True)


def partial_files() -> list[Path]:
    """The temporary outputs being written now (removed if the process must end at once)."""
    return list(_partials)


def write_text(path: Path, text: str) -> None:
    """Write `text` to `path` whole (see `replacing`)."""
    with replacing(path) as partial:
        partial.write_text(text)


def emit(text: str, output: Path | None) -> None:
    """`text` as it is to stdout, or whole to the file -o names (see `write_text`)."""
    if output is None:
        click.echo(text, nl=False)
    else:
        write_text(Path(output), text)
        click.echo(f"wrote {output}", err=True)


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def deliver(text: str, fmt: str, output: Path | None, what: str = "") -> None:
    """A command's rendered output to stdout or, whole, to the file -o names. Human formats (everything but CSV and
    JSON) have their control characters escaped: names in a profile are anyone's strings."""
    text = for_people(text, fmt)
    if output is None:
        click.echo(text, nl=False, color=True)  # as it is: click would strip some escape sequences off a pipe
        return
    write_text(Path(output), text)
    click.echo(escape_controls(f"wrote {what + ' to ' if what else ''}{output}"), err=True)


def write_parquet_tables(tables: dict, output: Path | None, inputs=(), only=None) -> None:
    """--format parquet of a command with several tables (`tables`: {name: Result, or why it could not be made}):
    one table named by --table (`only`: a name or names) goes to FILE itself; otherwise each table goes to
    FILE.<name>.parquet (FILE without its .parquet suffix), and a table that could not be made is named on stderr.
    Parquet holds one table per file, so a multi-table report is a family of files, as `breakdown` writes."""
    from ..core.errors import MissingDataError
    from ..output.render import pick_table, write_parquet
    from ..capabilities.visual.outputs import check_not_input, check_parquet_output

    output = check_parquet_output(output, inputs)
    chosen = [only] if isinstance(only, str) else list(only or ())
    if len(chosen) == 1:
        result = pick_table(tables, chosen[0], chosen[0])
        write_parquet(result, output)
        click.echo(escape_controls(f"wrote {len(result.rows)} rows ({chosen[0]}) to {output}"), err=True)
        return
    for name in chosen:
        pick_table(tables, name, name)  # an unknown name: the list of tables (exit 2)
    written = 0
    for name in chosen or list(tables):
        table = tables[name]
        if isinstance(table, str):
            click.echo(escape_controls(f"table {name} not written: {table}"), err=True)
            continue
        path = check_not_input(output.with_name(f"{output.name.removesuffix('.parquet')}.{name}.parquet"), inputs)
        write_parquet(table, path)
        click.echo(escape_controls(f"wrote {len(table.rows)} rows to {path}"), err=True)
        written += 1
    if not written:
        raise MissingDataError(f"no table to write: {'; '.join(f'{n}: {t}' for n, t in tables.items())}")
