"""What the file system and SQLite say of a file's present version, read in well under a millisecond, and the wait
after a change that makes a later change tell itself apart (identity.py, digest.py, memo.py)."""

from __future__ import annotations

import os
import time
from pathlib import Path

# A file changed this recently could be changed again within the same tick of its change time (Linux stamps it from
# a clock of 1-10 ms resolution): what is read of it is remembered only once this much has passed.
SETTLE_NS = 20_000_000


def facts(path: Path) -> str:
    """What the file system and SQLite say of the file's present version, in well under a millisecond: device, inode,
    size, modification time and change time (no user can set a ctime: `touch -r` and os.utime set it to now), SQLite's
    header facts and the -wal file's (above). A folder (an nsys parquetdir/arrowdir export): its own and each file's."""
    if os.path.isdir(path):
        files = sorted(p for p in Path(path).iterdir() if p.is_file())
        st = os.stat(path)
        return f"{st.st_dev}:{st.st_ino}:{st.st_mtime_ns}:{st.st_ctime_ns}|" + "|".join(
            f"{p.name}={facts(p)}" for p in files)
    st = os.stat(path)
    return (f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{sqlite_facts(path)}:"
            f"{wal_facts(path)}")


def sqlite_facts(path: Path) -> str:
    """SQLite's file change counter, page count and schema cookie (header offsets 24, 28, 40); '' for another file
    or a folder."""
    if os.path.isdir(path):
        return ""
    with open(path, "rb") as f:
        header = f.read(100)
    if not header.startswith(b"SQLite format 3\x00") or len(header) < 100:
        return ""
    return f"{header[24:28].hex()}.{header[28:32].hex()}.{header[40:44].hex()}"


def wal_facts(path: Path) -> str:
    """The size and 32-byte header (checkpoint sequence at 12, salts at 16 and 20) of the -wal file beside `path`."""
    try:
        with open(f"{path}-wal", "rb") as f:
            header = f.read(32)
            return f"{os.fstat(f.fileno()).st_size}.{header.hex()}"
    except OSError:
        return ""


def stat_key(path: Path) -> tuple:
    """(size, mtime, ctime, inode) of a file, to tell whether it changed while something was read from it."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def settle(path: Path) -> None:
    """Wait until the file's last change is SETTLE_NS old (then a later change gets another ctime)."""
    try:
        wait = os.stat(path).st_ctime_ns + SETTLE_NS - time.time_ns()
    except OSError:
        return
    if 0 < wait <= SETTLE_NS:
        time.sleep(wait / 1e9)
