"""Find the SQLite export behind a user's path and check that it is a readable nsys export.

Every failure raises ProfileError with a one-line message: the file, what is wrong, what to do.
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import shutil
import sqlite3
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..core import files, progress
from ..core.errors import ProfileError

if TYPE_CHECKING:
    import subprocess

SQLITE_MAGIC = b"SQLite format 3\x00"
REPORT_SUFFIXES = (".nsys-rep", ".qdrep")
EXPORT_HINT = "export it with `nsys export --type sqlite FILE.nsys-rep`"
# Tables of which an nsys export always has at least one (StringIds since 2020).
NSYS_MARKER_TABLES = ("StringIds", "TARGET_INFO_GPU", "ThreadNames", "ProcessStreams")


def resolve(path: str | os.PathLike) -> Path:
    """Return the SQLite file to read for `path`: the export itself, a copy of a WAL-mode export, or the export of
    a report (made once, in the cache folder). Nothing is ever written beside `path`."""
    p = Path(path).expanduser()
    if p.is_dir():  # a parquetdir/arrowdir export is read in place (columnar.py)
        from . import columnar

        if columnar.is_export_dir(p):
            return p
        raise ProfileError(
            f"{p}: is a directory; pass an nsys SQLite export (`nsys export --type sqlite`), a .nsys-rep file, "
            "or a folder written by `nsys export --type parquetdir`"
        )
    check_regular_file(p, "an nsys SQLite export (`nsys export --type sqlite`) or a .nsys-rep file")
    files.note_input(p)
    if p.suffix == ".ncu-rep":
        raise not_nsys_error(p)
    read = _exported_report(p) if p.suffix in REPORT_SUFFIXES else readable_export(p)
    files.note_input(read)
    return read


def not_nsys_error(p: Path) -> ProfileError:
    """What every nsys command says when given Nsight Compute input (a report, or its raw-page CSV)."""
    what = "a CSV file" if p.suffix == ".csv" else "an Nsight Compute report"
    return ProfileError(
        f"{p}: is {what}, not an Nsight Systems export; pass an nsys `.sqlite` export or `.nsys-rep` report "
        "(for Nsight Compute reports: `nsys-analytics ncu` or `nsys-analytics sql`)"
    )


def check_regular_file(p: Path, what: str) -> os.stat_result:
    """The file's stat after checking that it is a readable regular file; it is never opened here, so a named pipe
    or a device cannot hang or feed us. `what` completes "pass ..." in the messages."""
    try:
        st = os.stat(p)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise ProfileError(f"{p}: is a symlink loop (its links lead back to themselves); pass the file itself") from None
        if p.is_symlink():
            raise ProfileError(f"{p}: is a symbolic link to {os.readlink(p)}, which does not exist; "
                               "fix the link or pass the file itself") from None
        if e.errno == errno.ENOENT:
            raise ProfileError(f"{p}: no such file; check the path") from None
        if e.errno == errno.EACCES:
            raise ProfileError(f"{p}: permission denied; make the file readable (chmod +r) or copy it") from None
        raise ProfileError(f"{p}: cannot be read ({e.strerror}); check the path") from None
    kind = _NOT_A_FILE.get(stat.S_IFMT(st.st_mode))
    if kind:
        raise ProfileError(f"{p}: is {kind}, not a file; pass {what}")
    if not os.access(p, os.R_OK):
        raise ProfileError(f"{p}: permission denied; make the file readable (chmod +r) or copy it")
    return st


_NOT_A_FILE = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a named pipe (FIFO), which can be read only once and a profile is read many times over",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def inputs() -> list[Path]:
    """Every profile path this process has opened (the path given, and the file read for it)."""
    return files.inputs()


def readable_export(p: Path) -> Path:
    """`p` after checking it (check_sqlite_file), or, for a WAL-mode export, a copy in the cache folder: SQLite
    opens a WAL database only with -wal and -shm files beside it, which must not appear beside a user's file."""
    header = check_sqlite_file(p)
    return _wal_copy(p) if header[18:20] == b"\x02\x02" else p


def check_sqlite_file(p: Path) -> bytes:
    """Check the SQLite header, size and tables without modifying the file; return the 100-byte header."""
    size = p.stat().st_size
    if size == 0:
        raise ProfileError(f"{p}: is empty (0 bytes); re-run `nsys export --type sqlite` on the report")
    with open(p, "rb") as f:
        header = f.read(100)
    if not header.startswith(SQLITE_MAGIC):
        raise ProfileError(f"{p}: {_describe_foreign(header)}")
    if _being_written(p):
        raise ProfileError(f"{p}: is being written (a -journal/-wal file with changes is next to it); wait for the "
                           "writer to finish, or copy the file once it has")
    expected = _expected_size(header)
    if expected and size < expected:
        raise ProfileError(
            f"{p}: is truncated ({size} of {expected} bytes); copy it again or re-run `nsys export --type sqlite`"
        )
    tables = list_tables(p)
    if not any(t in tables for t in NSYS_MARKER_TABLES):
        raise ProfileError(
            f"{p}: is an SQLite database but not an Nsight Systems export (no StringIds or CUPTI/NVTX tables); "
            f"{EXPORT_HINT}"
        )
    return header


def _describe_foreign(header: bytes) -> str:
    if len(header) < len(SQLITE_MAGIC):
        return f"is too short to be an SQLite file ({len(header)} bytes); {EXPORT_HINT}"
    if header[:4] == b"PK\x03\x04":
        return f"is a zip archive, not an SQLite export; {EXPORT_HINT}"
    for magic, tool in ((b"\xfd7zXZ\x00", "xz -dk"), (b"\x1f\x8b", "gzip -dk"), (b"BZh", "bzip2 -dk"),
                        (b"\x28\xb5\x2f\xfd", "zstd -d")):
        if header.startswith(magic):
            return f"is compressed ({tool.split()[0]}), not an SQLite export: decompress it first (`{tool} FILE`)"
    return f"is not an SQLite file; pass an nsys SQLite export or a .nsys-rep report ({EXPORT_HINT})"


def _being_written(p: Path) -> bool:
    """A rollback journal, or a write-ahead log with frames in it, beside the file: a writer is at work (or died),
    and the file alone is not the whole database. An empty -wal (and its -shm) is what a reader of a WAL-mode
    file leaves: the file is whole."""
    journal = Path(f"{p}-journal")
    wal = Path(f"{p}-wal")
    return journal.exists() or (wal.exists() and wal.stat().st_size > 0)


def _expected_size(header: bytes) -> int:
    """Database size from the header, valid when the 'version-valid-for' number matches the change counter."""
    if len(header) < 100:
        return 0
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    n_pages = int.from_bytes(header[28:32], "big")
    valid = header[92:96] == header[24:28]
    return page_size * n_pages if valid else 0


def connect_readonly(p: Path) -> sqlite3.Connection:
    """A read-only sqlite3 connection that never writes to, or locks, the file."""
    uri = Path(p).resolve().as_uri() + "?mode=ro&immutable=1"
    con = sqlite3.connect(uri, uri=True)
    con.text_factory = _decode_text  # SQLite keeps any bytes: text that is not UTF-8 gets replacement characters
    return con


def rowid_span(p: Path, table: str) -> int | None:
    """max(rowid) - min(rowid) + 1 of an export's table (0 when empty), which bounds its rows from above: SQLite
    finds both ends in its index without a scan. None when that cannot be read."""
    try:
        con = connect_readonly(p)
        try:
            # two subqueries: SQLite reads one end of the rowid order only for a lone min() or max()
            low, high = con.execute(f'SELECT (SELECT min(rowid) FROM "{table}"), (SELECT max(rowid) FROM "{table}")'
                                    ).fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return None
    return 0 if low is None else high - low + 1


def _decode_text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def list_tables(p: Path) -> set[str]:
    try:
        con = connect_readonly(p)
        try:
            rows = con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").fetchall()
        finally:
            con.close()
    except sqlite3.DatabaseError as e:
        raise ProfileError(f"{p}: is corrupt or not a valid SQLite database ({e}); re-export it") from e
    return {name for (name,) in rows}


def _exported_report(rep: Path) -> Path:
    """An .nsys-rep as SQLite: the user's own export beside it while newer than the report, else an export made
    once with the nsys CLI into the cache folder (reused while the report is unchanged). `--reexport` asks for a
    fresh export; it too goes to the cache folder: a user's file is never replaced or deleted."""
    beside = rep.with_suffix(".sqlite")
    target = cache_file(rep, "exports", ".sqlite")
    fresh = _reexport and str(target) not in _reexported
    if not fresh:
        if beside.is_file() and beside.stat().st_mtime >= rep.stat().st_mtime:
            return readable_export(beside)
        if target.is_file():
            return readable_export(target)
    nsys = shutil.which("nsys")
    if nsys is None:
        raise ProfileError(f"{rep}: reading a report needs the `nsys` CLI on PATH; or {EXPORT_HINT}")
    import subprocess  # here: only a report to export runs a process (5 ms of every command's start-up)

    with _temporary_beside(target) as partial:
        cmd = [nsys, "export", "--type", "sqlite", "--output", str(partial), str(rep)]
        with progress.showing(f"exporting {rep.name} with nsys (once)"):
            done = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False)
        if done.returncode != 0 or not partial.is_file() or partial.stat().st_size == 0:
            raise _export_error(rep, nsys, done)
        check_sqlite_file(partial)
        files.move_into_place(partial, target)
    _reexported.add(str(target))
    return readable_export(target)


_reexport = False
_reexported: set[str] = set()


def reexport_reports(on: bool = True) -> None:
    """Export every .nsys-rep opened from now on afresh, once per process (the CLI's --reexport)."""
    global _reexport
    _reexport = on
    _reexported.clear()


def _export_error(rep: Path, nsys: str, done: subprocess.CompletedProcess) -> ProfileError:
    said = ((done.stderr or "") + (done.stdout or "")).strip().splitlines()
    last = said[-1] if said else f"exit code {done.returncode}"
    written, installed = report_writer_version(rep), installed_nsys_version(nsys)
    newer = written and installed and _version_key(written) > _version_key(installed)
    if newer or (not written and "version" in last.lower()):
        made_by = f"nsys {written}" if written else "a newer nsys"
        return ProfileError(
            f"{rep}: was written by {made_by}, newer than the installed {installed or 'nsys'} ({last}); export it "
            f"where that version is installed (`nsys export --type sqlite {rep.name}`) and pass the .sqlite"
        )
    return ProfileError(f"{rep}: `nsys export` failed ({last}); {EXPORT_HINT} and pass the .sqlite")


_REPORT_HEADER = re.compile(rb"^NVIDIA Tegra Profiler Report (\d+)\.")


# The report's session record (a protobuf message near the file's end): field 2 its UUID, 4 the capture time, 5 the
# host, 6 the writer's version ("2025.3.1.0"), 7 the report format number; found by the UUID that opens it.
_SESSION_UUID = re.compile(rb"\x12\x24[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_VERSION = re.compile(r"^(\d{4}\.\d+(?:\.\d+)?)(?:\.\d+)*$")


def report_writer_version(rep: Path) -> str | None:
    """The nsys version that wrote an .nsys-rep ("2025.3.1"), or None where the file does not say.

    The report starts with "NVIDIA Tegra Profiler Report <N>." and, near its end, holds its session record, whose
    field 6 is the writer's version; read only the head and the last MiB, and only that field (a version-like
    string elsewhere, as in a path of an nsys install, is not the writer's)."""
    with open(rep, "rb") as f:
        if not _REPORT_HEADER.match(f.read(64)):
            return None
        f.seek(max(0, os.fstat(f.fileno()).st_size - (1 << 20)))
        tail = f.read()
    found = [v for m in _SESSION_UUID.finditer(tail) if (v := _session_version(tail, m.start()))]
    return found[-1] if found else None


def _session_version(data: bytes, at: int) -> str | None:
    """Field 6 of the protobuf message whose fields start at `at`, where it is a version, else None."""
    for _ in range(16):  # the version is the fourth field; a few more allowed
        tag, at = _varint(data, at)
        if tag is None or tag & 7 != 2:
            return None
        size, at = _varint(data, at)
        if size is None or at + size > len(data):
            return None
        if tag >> 3 == 6:
            m = _VERSION.match(data[at:at + size].decode("ascii", "replace"))
            return m.group(1) if m else None
        at += size
    return None


def _varint(data: bytes, at: int) -> tuple[int | None, int]:
    value, shift = 0, 0
    while at < len(data) and shift < 64:
        byte = data[at]
        value, at, shift = value | (byte & 0x7F) << shift, at + 1, shift + 7
        if byte < 0x80:
            return value, at
    return None, at


def installed_nsys_version(nsys: str) -> str | None:
    """The version of the nsys CLI at `nsys` ("2022.4.2"), from `nsys --version`."""
    import subprocess

    try:
        out = subprocess.run([nsys, "--version"], capture_output=True, text=True, timeout=60, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"(\d{4}\.\d+(?:\.\d+)?)", out)
    return found.group(1) if found else None


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _wal_copy(p: Path) -> Path:
    """A copy of a WAL-mode export in the cache folder, marked as a rollback-journal database (header bytes 18-19),
    so that reading it creates no -wal/-shm there either. Made once per version of the file (its identity), in a
    folder of its own whose lease this process holds to its end (eviction and `cache clear` leave it alone); the
    folders of the file's older versions go when a new one is made. `--no-cache`: a copy of this process only,
    removed when it ends."""
    from .cache.folder import enabled

    if not enabled():
        return _private_copy(p)
    from .cache.identity import identity, path_prefix
    from .cache.lease import LEASE, hold
    from .cache.orphans import remove_partials
    from .cache.store import WAL_COPIES, evict, forget_older

    folder = cache_dir() / WAL_COPIES / f"{path_prefix(p)}{identity(p, WAL_COPY_FORMAT)}"
    target = folder / f"{p.stem}.sqlite"
    if folder not in _copies:
        lease = hold(folder / LEASE)
        if lease is None:
            raise ProfileError(f"{folder}: the cache folder cannot be written; set NSYS_ANALYTICS_CACHE to a "
                               "writable folder")
        _copies[folder] = lease
    os.utime(folder)  # last used: the size bound removes the least recently used first
    if target.is_file():
        return target
    remove_partials(folder)
    _copy_marked(p, target)
    forget_older(folder)
    evict(keep=folder)
    return target


WAL_COPY_FORMAT = "wal-copy-v2"
_copies: dict[Path, object] = {}  # the WAL copies' folders this process reads, and its lease on each


def _copy_marked(p: Path, target: Path) -> None:
    with _temporary_beside(target) as partial:
        with progress.showing(f"copying WAL-mode {p.name} to the cache folder (once)"):
            shutil.copyfile(p, partial)
        with open(partial, "r+b") as f:
            f.seek(18)
            f.write(b"\x01\x01")
        files.move_into_place(partial, target)


def _private_copy(p: Path) -> Path:
    """A WAL copy for this process alone (`--no-cache`: nothing derived is read or written for later): removed at
    exit, on an interrupt (partial_files), or, after a SIGKILL, by the next copy or `cache clear`."""
    import atexit

    from .cache.facts import facts
    from .cache.orphans import remove_partials

    version = (p.resolve(), facts(p))  # this process opening the same version again reads the same copy
    if version in _private and _private[version].is_file():
        return _private[version]
    root = cache_dir() / "wal-copies"
    remove_partials(root)
    target = root / f".{p.stem}.{os.getpid()}.{secrets.token_hex(4)}.private.sqlite"
    _copy_marked(p, target)
    files.remove_on_interrupt(target)
    atexit.register(target.unlink, missing_ok=True)
    _private[version] = target
    return target


_private: dict[tuple, Path] = {}


def cache_dir() -> Path:
    """The cache folder (not created): `$NSYS_ANALYTICS_CACHE`, else `~/.cache/nsys-analytics` (cache/folder.py)."""
    from .cache.folder import cache_dir as folder

    return folder()


def cache_file(source: Path, kind: str, suffix: str) -> Path:
    """The cache folder's file of `kind` for one version of `source`: named by its path and identity
    (cache/identity.py: its bytes' digest and SQLite's header facts), so that a changed file gets a new one."""
    from .cache.identity import identity, path_prefix

    return cache_dir() / kind / f"{path_prefix(source)}{identity(source, kind)}{suffix}"


def cached_json(source: Path, kind: str, compute: Callable[[], dict]) -> dict:
    """`compute()` for one version of `source`, kept in the cache folder as JSON and read from there next time. A
    cache folder that cannot be written costs only the computation; `--no-cache` computes, and keeps nothing."""
    from .cache.folder import enabled
    from .cache.memo import recalled

    if not enabled():
        return compute()
    return recalled(source, cache_file(source, kind, ".json"), compute, _json_dict, json.dumps, 4096)


def _json_dict(text: str) -> dict | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


@contextmanager
def _temporary_beside(target: Path) -> Iterator[Path]:
    """A temporary name in `target`'s folder (created), removed unless the block renamed it into place."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ProfileError(f"{target.parent}: the cache folder cannot be created ({e.strerror}); set "
                           "NSYS_ANALYTICS_CACHE to a writable folder") from None
    with files.temporary(target) as partial:
        yield partial
