"""`export --to perfetto`: the Chrome trace event format (JSON, gzipped when the name ends in .gz), which
ui.perfetto.dev and chrome://tracing open, streamed: events are made in SQL (sql/visual/trace_*.sql, one JSON text
per row), written by DuckDB itself to a temporary file on all cores and copied from there into the trace as bytes (in a
thread, so gzip on one core runs while DuckDB writes the next family), so a profile of millions of kernels exports
in bounded memory and Python never touches one event.

Tracks: each host process (a "process") with its threads (CUDA API calls and NVTX push/pop ranges as nested
slices, start/end ranges as async slices, marks as instants); each GPU of a profile as a process whose threads are
its streams (kernels, copies, memsets); flow arrows from each CUDA call to the GPU work it launched. Several
profiles (ranks) go into one trace: profile i's process ids are offset by i * PID_STRIDE and its processes named
after the file, so each file is its own group of processes, and its times are moved onto the lowest rank's clock
(each session stamps its own; data/profile_set.py, align_clocks), so that one step lines up across the ranks.
"""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ...core import progress
from ..categories import RuleSet
from .data import create_window_views, fill_categories
from .window import WHOLE_PROFILE, TimeWindow

if TYPE_CHECKING:
    from ...data.profile import Profile

PID_STRIDE = 10_000_000    # profile i: host pid p -> i * PID_STRIDE + p (Linux pids stay below 2^22)
GPU_PID_OFFSET = 9_000_000  # profile i: GPU d -> i * PID_STRIDE + GPU_PID_OFFSET + d
OVERLAP_TID_OFFSET = 1_000_000  # stream s's second track (operations that start before the last one ended)
COPY_CHUNK = 1 << 20  # bytes copied from DuckDB's file into the trace at a time
SEPARATOR = b",\n"    # between two events
# DuckDB's CSV writer puts each event on a line of its own, never quoted (QUOTE ''; with a quote character it
# quotes a value holding '#', as PyTorch's op and lambda names do, and the trace was no JSON); the delimiter is a
# control character, which a JSON text never holds raw (json_object writes it as \u0003), and a JSON text has no
# raw line break either.
_EVENT_LINES = "FORMAT csv, HEADER false, QUOTE '', DELIMITER '\x03'"
EVERYTHING = TimeWindow(-(1 << 62), 1 << 62, WHOLE_PROFILE)
FAMILIES = ("nvtx", "api", "gpu", "flows")  # trace_<family>.sql


@dataclass
class TraceSummary:
    """What an export wrote: events per family, and per profile its label and window."""

    events: dict[str, int] = field(default_factory=lambda: dict.fromkeys(("metadata", *FAMILIES), 0))
    profiles: list[dict] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.events.values())


class TraceWriter:
    """Writes one trace file; `add(profile, ...)` appends a profile's events. Use as a context manager."""

    def __init__(self, path: str | Path, compress: bool | None = None):
        path = Path(path)
        compress = str(path).endswith(".gz") if compress is None else compress
        # Level 1: compressing is the one step on a single core; on these traces level 1 writes 6 % more bytes than
        # level 3 (124 vs 117 MiB for a 1 M-kernel profile) at 1.4 times its speed.
        self._out: IO[bytes] = gzip.open(path, "wb", compresslevel=1) if compress else open(path, "wb")
        self._pending = False  # an event was written and the next one needs its separator first
        self._scratch = tempfile.TemporaryDirectory(prefix="nsys-analytics-trace-")
        # Every write to the trace goes through this one thread, in order: compressing a family's events (gzip
        # and file reads release the GIL) overlaps DuckDB's writing of the next one.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trace-writer")
        self._jobs: list[Future] = []
        self._files = 0
        self.summary = TraceSummary()
        self._out.write(b'{"displayTimeUnit": "ns", "traceEvents": [\n')

    def add(self, profile: Profile, index: int, label: str, window: TimeWindow, rules: RuleSet,
            shift_ns: int = 0) -> None:
        """Append the events of `profile` (the `index`-th of the export, named `label`) inside `window` (on the
        profile's own clock), each time moved by `shift_ns` (a rank's clock offset: ranks line up in the trace)."""
        whole = window.source == WHOLE_PROFILE
        window = EVERYTHING if whole else window
        create_window_views(profile, window, pushdown=not whole and not profile.cached)
        fill_categories(profile, rules)
        profile.sql(f"CREATE OR REPLACE TEMP TABLE _visual_early_ops AS {profile_sql('early_ops', {})}")
        params = {"pid_base": index * PID_STRIDE, "gpu_pid_base": index * PID_STRIDE + GPU_PID_OFFSET,
                  "file": index, "overlap_tid_offset": OVERLAP_TID_OFFSET, "from_ns": window.start_ns,
                  "to_ns": window.end_ns, "shift_ns": shift_ns}
        self._write_metadata(profile, index, label, params)
        for family in FAMILIES:
            if family == "nvtx" and not _has_nvtx(profile):
                continue
            self.summary.events[family] += self._stream(profile, f"trace_{family}", params)
        self.summary.profiles.append({"label": label, "path": str(profile.path), "start_ns": window.start_ns,
                                      "end_ns": window.end_ns, "whole_profile": whole, "shift_ns": shift_ns})

    def _write_metadata(self, profile: Profile, index: int, label: str, params: dict) -> None:
        rows = profile.run_file("visual", "trace_tracks", params).rows
        events, named = [], set()
        for kind, process, track, process_name, track_name in rows:
            if kind == "gpu":
                pid, sort = params["gpu_pid_base"] + process, 1_000 + process
                pname = f"{label}GPU {process}" + (f" ({process_name})" if process_name else "")
                tname = f"stream {track}" if track < OVERLAP_TID_OFFSET else \
                    f"stream {track - OVERLAP_TID_OFFSET} (started early)"
            else:
                pid, sort = params["pid_base"] + process, process % 1_000
                pname, tname = f"{label}{process_name or 'process'} ({process})", \
                    f"{track_name} ({track})" if track_name else f"thread {track}"
            if pid not in named:
                named.add(pid)
                events.append({"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": pname}})
                events.append({"name": "process_sort_index", "ph": "M", "pid": pid, "tid": 0,
                               "args": {"sort_index": index * 10_000 + sort}})
            events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": track, "args": {"name": tname}})
            events.append({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": track,
                           "args": {"sort_index": track}})
        if events:
            self._submit(self._write, ",\n".join(json.dumps(e, separators=(",", ":")) for e in events).encode())
        self.summary.events["metadata"] += len(events)

    def _stream(self, profile: Profile, query: str, params: dict) -> int:
        """Run sql/visual/<query>.sql into a file of events, one per line and each followed by a comma (DuckDB's
        COPY, in parallel), and copy that file into the trace; return how many events."""
        view = f"_{query}"
        profile.sql(f"CREATE OR REPLACE TEMP VIEW {view} AS {profile_sql(query, params)}")
        self._files += 1
        lines = Path(self._scratch.name) / f"{self._files}_{query}.txt"
        target = str(lines).replace("'", "''")
        with progress.showing(f"writing {query.removeprefix('trace_')} events of {profile.path.name}"):
            (count,) = profile.con.execute(f"COPY (SELECT event || ',' FROM {view}) TO '{target}' "
                                           f"({_EVENT_LINES})").fetchone()
        self._submit(self._copy_events, lines, count)
        return count

    def _copy_events(self, lines: Path, count: int) -> None:
        """The file's bytes but its last ',\n' (a separator goes before the next event instead: JSON takes no comma
        after the last one); then the file is removed."""
        if count:
            left = os.path.getsize(lines) - len(SEPARATOR)
            with open(lines, "rb") as src:
                if self._pending:
                    self._out.write(SEPARATOR)
                while left > 0 and (chunk := src.read(min(COPY_CHUNK, left))):
                    self._out.write(chunk)
                    left -= len(chunk)
            self._pending = True
        lines.unlink(missing_ok=True)

    def _submit(self, job, *args) -> None:
        """Run `job(*args)` on the writer thread after the writes before it; a failed one fails the export."""
        for done in [j for j in self._jobs if j.done()]:
            done.result()  # raises what the job raised (e.g. a full disk), before more work is queued
            self._jobs.remove(done)
        self._jobs.append(self._writer.submit(job, *args))

    def _write(self, events: bytes) -> None:
        """Events joined by SEPARATOR, after those written so far."""
        if self._pending:
            self._out.write(SEPARATOR)
        self._out.write(events)
        self._pending = True

    def close(self) -> None:
        try:
            for job in self._jobs:
                job.result()
        except BaseException:
            self.abort()
            raise
        self._writer.shutdown()
        other = {"exporter": "nsys-analytics", "profiles": self.summary.profiles}
        self._out.write(f'\n],\n"otherData": {json.dumps(other)}\n}}\n'.encode())
        self._out.close()
        self._scratch.cleanup()

    def abort(self) -> None:
        self._writer.shutdown(wait=True, cancel_futures=True)
        self._out.close()
        self._scratch.cleanup()

    def __enter__(self) -> "TraceWriter":
        return self

    def __exit__(self, exc_type, *_) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def profile_sql(query: str, params: dict) -> str:
    from ...data import sql_files

    return sql_files.inline_params(sql_files.read("visual", query).text, params)


def _has_nvtx(profile: Profile) -> bool:
    if not profile.has_table("NVTX_EVENTS"):
        return False
    return bool(profile.sql("SELECT 1 FROM compat.NVTX_EVENTS WHERE eventType IN (34, 59, 60, 70, 71) LIMIT 1").rows)
