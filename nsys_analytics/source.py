"""Find the SQLite export behind a user's path and check that it is a readable nsys export.

Every failure raises ProfileError with a one-line message: the file, what is wrong, what to do.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from . import progress
from .errors import ProfileError

SQLITE_MAGIC = b"SQLite format 3\x00"
REPORT_SUFFIXES = (".nsys-rep", ".qdrep")
EXPORT_HINT = "export it with `nsys export --type sqlite FILE.nsys-rep`"
# Tables of which an nsys export always has at least one (StringIds since 2020).
NSYS_MARKER_TABLES = ("StringIds", "TARGET_INFO_GPU", "ThreadNames", "ProcessStreams")


def resolve(path: str | os.PathLike) -> Path:
    """Return the SQLite export to read for `path` (an export, or a report exported once and cached)."""
    p = Path(path).expanduser()
    _check_exists(p)
    if p.suffix == ".ncu-rep":
        raise ProfileError(
            f"{p}: is an Nsight Compute report, not an Nsight Systems export; "
            "pass an nsys `.sqlite` export or `.nsys-rep` report (for ncu reports: `nsys-analytics ncu` or `sql`)"
        )
    if p.suffix in REPORT_SUFFIXES:
        return _exported_report(p)
    check_sqlite_file(p)
    return p


def _check_exists(p: Path) -> None:
    if not p.exists():
        raise ProfileError(f"{p}: no such file; check the path")
    if p.is_dir():
        raise ProfileError(
            f"{p}: is a directory; pass an nsys SQLite export (`nsys export --type sqlite`) or a .nsys-rep file"
        )
    if not os.access(p, os.R_OK):
        raise ProfileError(f"{p}: permission denied; make the file readable (chmod +r) or copy it")


def check_sqlite_file(p: Path) -> None:
    """Check the SQLite header, size and tables without modifying the file."""
    size = p.stat().st_size
    if size == 0:
        raise ProfileError(f"{p}: is empty (0 bytes); re-run `nsys export --type sqlite` on the report")
    with open(p, "rb") as f:
        header = f.read(100)
    if not header.startswith(SQLITE_MAGIC):
        raise ProfileError(f"{p}: {_describe_foreign(header)}")
    if _journal_exists(p):
        raise ProfileError(f"{p}: is being written (a -journal/-wal file is next to it); wait for nsys to finish")
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


def _describe_foreign(header: bytes) -> str:
    if len(header) < len(SQLITE_MAGIC):
        return f"is too short to be an SQLite file ({len(header)} bytes); {EXPORT_HINT}"
    if header[:4] == b"PK\x03\x04":
        return f"is a zip archive, not an SQLite export; {EXPORT_HINT}"
    return f"is not an SQLite file; pass an nsys SQLite export or a .nsys-rep report ({EXPORT_HINT})"


def _journal_exists(p: Path) -> bool:
    return any(Path(f"{p}{suffix}").exists() for suffix in ("-journal", "-wal"))


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
    return sqlite3.connect(uri, uri=True)


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
    """Export an .nsys-rep once with the nsys CLI; reuse the export while it is newer than the report."""
    for candidate in (rep.with_suffix(".sqlite"), _cache_path(rep)):
        if candidate.exists() and candidate.stat().st_mtime >= rep.stat().st_mtime:
            check_sqlite_file(candidate)
            return candidate
    nsys = shutil.which("nsys")
    if nsys is None:
        raise ProfileError(f"{rep}: reading a report needs the `nsys` CLI on PATH; or {EXPORT_HINT}")
    target = rep.with_suffix(".sqlite") if os.access(rep.parent, os.W_OK) else _cache_path(rep)
    target.parent.mkdir(parents=True, exist_ok=True)
    cmd = [nsys, "export", "--type", "sqlite", "--force-overwrite", "true", "--output", str(target), str(rep)]
    with progress.showing(f"exporting {rep.name} with nsys (once)"):
        done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0 or not target.exists():
        last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ProfileError(f"{rep}: `nsys export` failed ({last[0]}); {EXPORT_HINT} and pass the .sqlite")
    check_sqlite_file(target)
    return target


def _cache_path(rep: Path) -> Path:
    root = Path(os.environ.get("NSYS_ANALYTICS_CACHE", Path.home() / ".cache" / "nsys-analytics"))
    digest = hashlib.sha1(str(rep.resolve()).encode()).hexdigest()[:16]
    return root / f"{rep.stem}-{digest}.sqlite"
