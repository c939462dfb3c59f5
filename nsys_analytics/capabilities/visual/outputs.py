"""Where the visual commands write: never onto an input, always through a temporary file that replaces the
target at the end (a reader never sees half a file, and a failed run leaves nothing behind)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from contextlib import contextmanager
from pathlib import Path

from ...core.errors import UsageError


def check_not_input(output: str | Path, inputs: Iterable[str | Path], option: str = "-o", folder: bool = False) -> Path:
    """`output` as a Path; UsageError when it names one of `inputs` (or the SQLite export beside a report)."""
    output = Path(output)
    target = _real(output)
    for path in inputs:
        path = Path(path)
        if target in (_real(path), _real(path.with_suffix(".sqlite"))):
            raise UsageError(f"{option} {output}: that is an input profile; write somewhere else")
    if output.is_dir() and not folder:
        raise UsageError(f"{option} {output}: is a directory; give a file name")
    return output


def check_parquet_output(output: str | Path | None, inputs: Iterable[str | Path] = ()) -> Path:
    """The -o file of --format parquet: required, and never one of the inputs."""
    if output is None:
        raise UsageError("--format parquet writes a file: add -o FILE.parquet")
    return check_not_input(output, inputs)


@contextmanager
def atomic_path(path: str | Path, option: str = "-o"):
    """Yield a temporary path beside `path`; on success it replaces `path`, on failure it is removed. A path that
    is not a regular file (/dev/null, a FIFO) is yielded itself: renaming over it would replace a device with a file."""
    path = Path(path)
    if path.exists() and not path.is_file() and not path.is_dir():
        yield path
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent if str(path.parent) else ".")
    except OSError as e:
        raise UsageError(f"{option} {path}: cannot be written ({e.strerror})") from e
    os.close(fd)
    try:
        yield Path(tmp)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # as an ordinary new file, not mkstemp's 0600
        os.replace(tmp, path)
    except OSError as e:
        raise UsageError(f"{option} {path}: cannot be written ({e.strerror})") from e
    finally:
        Path(tmp).unlink(missing_ok=True)


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
        return path.absolute()
