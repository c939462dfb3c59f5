"""Answers replayed: a report command run again with the same words on the same profile prints what it printed
before, without opening the profile, DuckDB or pandas (a whole `kernels` or `nvtx` in 0.03 s instead of 0.12 s at
1 M kernels).

The output of a run is kept, with its exit code, in the cache folder's SUMMARIES next to the profile's other caches,
under a key made of everything that output can depend on:
- the profile's identity (data/cache/identity.py: its path, the digest of its bytes, SQLite's header facts);
- the command line as typed and the working folder it is read from;
- the settings that change what is printed: every NSYS_ANALYTICS_* variable, the terminal (whether stdout and
  stderr are terminals, their width), the locale and time zone;
- the code that printed it: the size and modification time of every file of the package and of the libraries that
  format its output (duckdb, pandas, numpy, pyarrow, click).
Only the plain report commands (REPLAYED) are replayed, and only where nothing else is read or written: one profile,
a `.sqlite` export of any size (one under the cache's minimum size is read directly, yet its answer is kept: a
replayed `nvtx` of a 1 MB export takes 0.02 s where computing it takes 0.14 s), no other file among the words, no
`-o`, no `--no-cache`, no `--debug`. A run is kept when it ended with exit code 0, all its output was written (not
cut off by a closed pipe, `| head`), that output is at most MAX_BYTES and the profile did not change while it ran; a
damaged or unreadable record is run again. `--no-cache` (NSYS_ANALYTICS_NO_CACHE=1) and NSYS_ANALYTICS_REPLAY=0
neither read nor keep any (the second: the columnar cache is still used).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
from pathlib import Path

FORMAT = "replay-v1"
SWITCH = "NSYS_ANALYTICS_REPLAY"  # 0: every command computes its answer
SUFFIX = "replay"
REPLAYED = frozenset({"kernels", "nvtx", "nvtx-kernels", "nvtx-gpu", "info", "diagnose"})
KEEP = 512             # records kept in the cache folder; the least recently written go first
MAX_BYTES = 4 * 2**20  # a longer output is not kept (it takes longer to print than to compute from the cache)
_REFUSED = ("--no-cache", "--debug", "--help", "-h", "--version")
_LIBRARIES = ("duckdb", "pandas", "numpy", "pyarrow", "click")
_SETTINGS = ("COLUMNS", "LINES", "TERM", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "LANG", "LC_ALL", "LC_CTYPE", "TZ",
             "PYTHONIOENCODING", "PYTHONUTF8")


def replay_or_record(args: list[str]) -> "Recording | None":
    """Print and exit where this command line was answered before; else a Recording of this run, or None where
    the command line is not one to replay."""
    try:
        found = _record_path(args)
    except (OSError, ValueError):
        return None
    if found is None:
        return None
    path, profile = found
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
        out, err, code = kept["stdout"].encode("utf-8", "surrogateescape"), \
            kept["stderr"].encode("utf-8", "surrogateescape"), int(kept["code"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return Recording(path, profile)
    _print_and_exit(out, err, code)


def _record_path(args: list[str]) -> tuple[Path, Path] | None:
    """(where this command line's output is kept, the profile), or None where it is not replayed."""
    from ..data.cache.folder import cache_dir, enabled

    command = next((i for i, a in enumerate(args) if not a.startswith("-")), None)
    if command is None or args[command] not in REPLAYED or not enabled() or os.environ.get(SWITCH) == "0":
        return None
    if any(a in _REFUSED or a.startswith(("-o", "--output", "--debug")) for a in args):
        return None
    files = [Path(a) for i, a in enumerate(args) if i != command and os.path.lexists(a)]
    if len(files) != 1:
        return None
    profile = files[0]
    if profile.suffix != ".sqlite" or not profile.is_file():
        return None
    from ..data.cache.identity import identity, path_prefix
    from ..data.cache.memo import SUMMARIES

    h = hashlib.sha256()
    for part in (FORMAT, os.getcwd(), *args, *_settings(), _code_fingerprint(), identity(profile, FORMAT)):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return cache_dir() / SUMMARIES / f"{path_prefix(profile)}{h.hexdigest()[:32]}.{SUFFIX}", profile


def _settings() -> list[str]:
    env = sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith("NSYS_ANALYTICS_") or k in _SETTINGS)
    terminal = []
    for stream in (sys.stdout, sys.stderr):
        try:
            tty = stream.isatty()
            terminal.append(f"tty={tty} size={os.get_terminal_size(stream.fileno()) if tty else ''}")
        except (AttributeError, OSError, ValueError):
            terminal.append("tty=?")
    return env + terminal + [sys.version]


def _code_fingerprint() -> str:
    """The size and modification time of every file of the package (its SQL included) and of the top modules of
    the libraries its output goes through: any edit or upgrade makes every record another."""
    from importlib.util import find_spec

    h = hashlib.sha256()
    roots = [Path(__file__).resolve().parents[1]]
    sql = find_spec("nsys_analytics.sql")
    roots += [Path(p) for p in (sql.submodule_search_locations or [])] if sql else []
    for root in roots:
        for folder, dirs, names in sorted(os.walk(root)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                if name.endswith((".py", ".sql", ".json", ".yaml", ".toml", ".md")):
                    s = os.stat(os.path.join(folder, name))
                    h.update(f"{folder}/{name}:{s.st_size}:{s.st_mtime_ns}\0".encode())
    for library in _LIBRARIES:
        spec = find_spec(library)
        if spec is not None and spec.origin:
            s = os.stat(spec.origin)
            h.update(f"{spec.origin}:{s.st_size}:{s.st_mtime_ns}\0".encode())
    return h.hexdigest()


def _print_and_exit(out: bytes, err: bytes, code: int) -> None:
    for stream, data in ((sys.stdout, out), (sys.stderr, err)):
        try:
            stream.buffer.write(data)
            stream.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass
    os._exit(code)


class _Tee(io.RawIOBase):
    """Bytes written to the stream it replaces, and kept up to MAX_BYTES."""

    def __init__(self, stream):
        self.stream = stream
        self.kept = bytearray()
        # False once a write failed (a pipe closed by `head`) or the output outgrew MAX_BYTES: nothing to keep
        self.whole = True

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        try:
            n = self.stream.buffer.write(data)
            self.stream.buffer.flush()
        except (OSError, ValueError):
            self.whole = False
            raise
        if self.whole and len(self.kept) + len(data) <= MAX_BYTES:
            self.kept += bytes(data)
        else:  # a long output is not held in memory for nothing
            self.whole = False
            self.kept.clear()
        return n if n is not None else len(data)

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()


class _Recorded(io.TextIOWrapper):
    original = None


class Recording:
    """stdout and stderr kept while the command runs; `finish(code)` keeps them for the next run."""

    def __init__(self, path: Path, profile: Path):
        from ..data.cache.facts import stat_key

        self.path, self.profile, self.before = path, profile, stat_key(profile)
        self.tees = []
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            tee = _Tee(stream)
            recorded = _Recorded(tee, encoding=stream.encoding, errors=stream.errors,
                                 line_buffering=stream.line_buffering, write_through=True)
            recorded.original = stream  # progress lines go there, not into the record (main.py)
            setattr(sys, name, recorded)
            self.tees.append(tee)

    def finish(self, code) -> None:
        """Keep what was printed, where the run succeeded and the profile did not change meanwhile."""
        from ..data.cache.facts import settle, stat_key
        from ..data.cache.memo import remember

        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                return
        out, err = (bytes(t.kept) for t in self.tees)
        if code not in (0, None) or not all(t.whole for t in self.tees) or len(out) + len(err) > MAX_BYTES:
            return
        try:
            settle(self.profile)
            if stat_key(self.profile) != self.before:
                return
        except OSError:
            return
        remember(self.path, json.dumps({"stdout": out.decode("utf-8", "surrogateescape"),
                                        "stderr": err.decode("utf-8", "surrogateescape"), "code": 0}), KEEP)
