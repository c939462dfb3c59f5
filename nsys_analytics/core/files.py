"""The one way this package writes a file that someone reads: whole or not at all. A temporary file beside the target
(`.<stem>.<pid>.<8 random characters>.partial<suffix>`) replaces it when the writing succeeded; a failure or Ctrl-C
leaves the old file as it was. Every temporary file being written is in one registry (`partial_files`), which the
interrupt handler empties when the process must end at once; one that a SIGKILL left is removed by the next write
to its folder, once its process is gone.

Outputs are never an input: every profile or file a command reads is noted here (`note_input`), and a target that
is one of them, by any name, is refused before anything is written.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import UsageError

GRACE_S = 15 * 60  # a temporary file written to this recently is left, whatever its process (another machine's?)
_PARTIAL = re.compile(r"^\..*\.(\d+)\.[a-z0-9_]{8}\.partial(\.[^.]*)?$")
_partials: set[Path] = set()
_inputs: list[Path] = []


# -- inputs -------------------------------------------------------------------------------------------------------
def note_input(path: str | Path) -> None:
    """`path` is read by this process: no output may replace it."""
    _inputs.append(Path(path))


def inputs() -> list[Path]:
    """Every input this process has noted (the path given, and the file read for it)."""
    return list(_inputs)


def check_output(output: str | Path, inputs: Iterable[str | Path] = (), option: str = "-o",
                 folder: bool = False) -> Path:
    """`output` as a Path; UsageError when it is one of `inputs` or of those noted (the same file by any name, or
    the SQLite export beside a report), a folder (unless `folder`), or in a folder that does not exist."""
    output = Path(output)
    target = _real(output)
    for path in [*map(Path, inputs), *_inputs]:
        if target in (_real(path), _real(path.with_suffix(".sqlite"))) or _same(output, path):
            raise UsageError(f"{option} {output}: that is an input profile or file of this command ({path}); write "
                             "the output to another file")
    if output.is_dir() and not folder:
        raise UsageError(f"{option} {output}: is a directory; give a file name")
    if not target.parent.is_dir():
        if target.parent.exists():
            raise UsageError(f"{option} {output}: {target.parent} is a file, not a folder; write elsewhere")
        raise UsageError(f"{option} {output}: the folder {target.parent} does not exist; create it or write elsewhere")
    return output


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
        return path.absolute()


# -- writing --------------------------------------------------------------------------------------------------------
@contextmanager
def replacing(path: str | Path, option: str = "-o", inputs: Iterable[str | Path] = ()) -> Iterator[Path]:
    """A temporary file beside `path` (same suffix) that replaces `path` when the block succeeds. A symbolic link
    is followed: its target is replaced, the link stays. A path that is not a regular file (/dev/null, a FIFO) is
    written to directly: renaming over it would replace a device with a file."""
    path = check_output(path, inputs, option)
    target = Path(os.path.realpath(path))
    if target.exists() and not target.is_file():  # /dev/null, a FIFO, a terminal: written to, never replaced
        try:
            yield target
        except OSError as e:  # /dev/full: no space left
            raise UsageError(f"{option} {path}: cannot be written ({e.strerror}); write elsewhere") from None
        return
    remove_killed(target.parent)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.stem}.{os.getpid()}.", suffix=f".partial{target.suffix}",
                                    dir=target.parent)
    except OSError as e:
        raise UsageError(f"{option} {path}: cannot be written ({e.strerror}); write elsewhere") from None
    os.close(fd)
    partial = Path(name)
    _partials.add(partial)
    try:
        yield partial
        os.chmod(partial, stat.S_IMODE(target.stat().st_mode) if target.exists() else _default_mode())
        os.replace(partial, target)
    except OSError as e:
        raise UsageError(f"{option} {path}: cannot be written ({e.strerror}); write elsewhere") from None
    finally:
        partial.unlink(missing_ok=True)
        _partials.discard(partial)


def write_text(path: str | Path, text: str, option: str = "-o", inputs: Iterable[str | Path] = ()) -> None:
    """Write `text` (UTF-8) to `path` whole (see `replacing`)."""
    with replacing(path, option, inputs) as partial:
        partial.write_text(text, encoding="utf-8")


@contextmanager
def temporary(target: Path) -> Iterator[Path]:
    """A registered temporary name beside `target` for a writer that renames it into place itself (an export into
    the cache folder): removed unless the block moved it away."""
    partial = target.with_name(f".{target.stem}.{os.getpid()}.{os.urandom(4).hex()}.partial{target.suffix}")
    _partials.add(partial)
    try:
        yield partial
    finally:
        _remove(partial)
        _partials.discard(partial)


@contextmanager
def replacing_folder(folder: Path, option: str = "-o") -> Iterator[Path]:
    """A new temporary folder beside `folder` that takes its place when the block succeeds; an earlier `folder` is
    moved aside first and removed after (a reader sees the old folder or the new one, never half of one)."""
    import shutil

    folder = Path(folder)
    try:
        partial = Path(tempfile.mkdtemp(prefix=f".{folder.name}.{os.getpid()}.", suffix=".partial",
                                        dir=folder.absolute().parent))
    except OSError as e:
        raise UsageError(f"{option} {folder}: cannot be written ({e.strerror})") from None
    _partials.add(partial)
    try:
        yield partial
        os.chmod(partial, 0o777 & ~_umask())  # as an ordinary new folder, not mkdtemp's 0700
        old = None
        if folder.exists():
            old = folder.with_name(f".{folder.name}.{os.getpid()}.old")
            os.replace(folder, old)
        os.replace(partial, folder)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as e:
        raise UsageError(f"{option} {folder}: cannot be written ({e.strerror})") from None
    finally:
        _remove(partial)
        _partials.discard(partial)


def move_into_place(partial: Path, target: Path) -> None:
    """Rename `partial` (from `temporary`) onto `target`: the one rename of a finished file."""
    os.replace(partial, target)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        import shutil

        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def remove_on_interrupt(path: Path) -> None:
    """`path` (a file of this process alone, e.g. a private copy) goes too if the process must end at once."""
    _partials.add(path)


def partial_files() -> list[Path]:
    """The temporary files being written now (removed if the process must end at once)."""
    return list(_partials)


def remove_partial_files() -> None:
    for path in partial_files():
        _remove(path)


def remove_killed(folder: Path) -> None:
    """Remove the temporary files that writers killed at once (SIGKILL) left in `folder`: only names of our own
    pattern, whose process is gone and that were last written more than GRACE_S ago."""
    now = time.time()
    for path in folder.glob(".*.partial*"):
        m = _PARTIAL.match(path.name)
        try:
            old = now - path.lstat().st_mtime > GRACE_S
        except OSError:
            continue
        if m and old and path.is_file() and not path.is_symlink() and not pid_alive(int(m.group(1))):
            path.unlink(missing_ok=True)


def pid_alive(pid: int) -> bool:
    """Whether a process of that id runs on this machine (one of another user counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _default_mode() -> int:
    return 0o666 & ~_umask()


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask
