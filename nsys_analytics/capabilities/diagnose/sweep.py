"""One pass over every GPU operation of the window, in start order per process/device, that finds what several
rules share: the idle gaps (`_diag.gaps`) and the busy time of the merged operations up to given times
(`_diag.busy_at`).

A gap runs from the latest end of the operations started so far to the next start. An island is a stretch where
some operation runs (streams merged): it starts where an operation starts after every earlier one has ended, and
ends at the latest end before the next island starts. Both need a running maximum of end times in start order,
which a SQL window computes with a segment tree per aggregate (about a second per column on 3 M operations, and
the islands, one per operation when nothing overlaps, filled memory); here it is one `numpy.maximum.accumulate`
per batch with the state carried from batch to batch, and of the islands only their busy time up to the times the
rules ask about (`_busy_queries.sql`) is kept. Memory is bounded by the time slice read (about SLICE_ROWS operations):
the rows kept go to DuckDB as they come (`_Table`).

busy(t), the busy time of the islands before t, is `busy_before + min(t, end) - start` of the last island that
starts at or before t (0 before the first): a time is answered once the island after it has started.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.memory import give_back_freed
from ...data import sql_files
from ...data.database import store_arrays

if TYPE_CHECKING:
    from ...data.profile import Profile

BATCH_ROWS = 262_144  # operations handled at once by numpy
SLICE_ROWS = 2_000_000  # operations read and sorted at once (about 100 MB)
NONE = -(2**63)  # "no operation yet" in a running maximum
KERNEL_WORK, OVERHEAD = 1, 2  # the `work` codes of sql/diagnose/_sweep_ops.sql (0: a copy or memset)
GAP_COLUMNS = ("pid", "device", "start_ns", "end_ns", "context", "op_key", "work")
BUSY_COLUMNS = ("kernels", "pid", "device", "t", "busy_ns")
NEXT_COLUMNS = ("pid", "device", "t", "next_start_ns", "latest_end_ns")
NO_NEXT = -1  # next_start_ns when no operation starts at or after the time


@dataclass
class _Busy:
    """The islands of one kind of work (every operation but overhead, or kernels and graphs only) of the current
    process/device, and the times still to answer."""

    kernels_only: bool
    queries: dict  # (pid, device) -> sorted times
    out: _Table  # _diag.busy_at
    max_end: int = NONE  # running maximum of the ends so far
    open_start: int | None = None  # start of the island not yet closed
    busy_ns: int = 0  # busy time of the islands closed so far
    pending: object = None  # times of this process/device not answered yet
    key: tuple = ()

    def start(self, key: tuple[int, int], np) -> None:
        self.key, self.max_end, self.open_start, self.busy_ns = key, NONE, None, 0
        self.pending = self.queries.get(key, np.empty(0, dtype=np.int64))

    def add(self, np, start, end) -> None:
        """Extend the islands with the next operations (in start order) of this kind."""
        running = np.maximum.accumulate(end)
        before = np.empty_like(end)  # the latest end of the operations before each one
        before[0] = self.max_end
        np.maximum(running[:-1], self.max_end, out=before[1:])
        first = np.flatnonzero((before == NONE) | (start > before))  # operations that start a new island
        self.max_end = max(self.max_end, int(running[-1]))
        if not len(first):
            return
        # Each new island closes the one before it: its end is the latest end before the new start.
        starts = start[first]
        if self.open_start is None:
            closed_starts, closed_ends = starts[:-1], before[first][1:]
        else:
            closed_starts, closed_ends = np.r_[self.open_start, starts[:-1]], before[first]
        self.open_start = int(starts[-1])
        self._answer(np, closed_starts, closed_ends, bound=self.open_start)

    def finish(self, np) -> None:
        """Close the last island of the process/device and answer every time left."""
        if self.open_start is not None:
            self._answer(np, np.array([self.open_start]), np.array([self.max_end]), bound=None)
        elif len(self.pending):
            self._answer(np, np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), bound=None)

    def _answer(self, np, starts, ends, bound: int | None) -> None:
        """Record closed islands: answer the pending times before `bound` (None: all), which no later island
        can reach."""
        lengths = ends - starts
        busy_before = self.busy_ns + np.r_[0, np.cumsum(lengths)[:-1]] if len(lengths) else lengths
        self.busy_ns += int(lengths.sum())
        times = self.pending if bound is None else self.pending[: np.searchsorted(self.pending, bound, "left")]
        if len(times):
            i = np.searchsorted(starts, times, "right") - 1
            j = np.maximum(i, 0)
            busy = np.where(i >= 0, busy_before[j] + np.minimum(times, ends[j]) - starts[j], 0) if len(starts) \
                else np.zeros(len(times), dtype=np.int64)
            self.out.add((self.kernels_only, *self.key, times, busy))
            self.pending = self.pending[len(times):]


@dataclass
class _Next:
    """At the times asked for one process/device (_next_queries.sql: the synchronization calls' returns), the start
    of the first operation of all work (overhead left out) starting at or after each time, and the latest end of
    the operations started before it (NONE: none)."""

    key: tuple
    pending: object  # times not answered yet, sorted
    out: _Table  # _diag.next_at
    max_end: int = NONE  # running maximum of the ends so far

    def add(self, np, start, end) -> None:
        """The next operations (in start order): answer the pending times up to the last start."""
        running = np.maximum.accumulate(end)
        times = self.pending[: np.searchsorted(self.pending, start[-1], "right")]
        if len(times):
            i = np.searchsorted(start, times, "left")  # the first operation starting at or after each time
            latest = np.maximum(np.where(i > 0, running[np.maximum(i - 1, 0)], NONE), self.max_end)
            self._keep(np, times, start[i], latest)
            self.pending = self.pending[len(times):]
        self.max_end = max(self.max_end, int(running[-1]))

    def finish(self, np) -> None:
        """The times after every start: nothing follows them."""
        if len(self.pending):
            n = len(self.pending)
            self._keep(np, self.pending, np.full(n, NO_NEXT, dtype=np.int64), np.full(n, self.max_end, dtype=np.int64))

    def _keep(self, np, times, next_start, latest) -> None:
        self.out.add((*self.key, times, next_start, latest))


def sweep(profile: Profile, min_gap_ns: int, chunks: int) -> None:
    """Create `_diag.gaps` (idle gaps of at least `min_gap_ns` before an operation, with that operation) and
    `_diag.busy_at` (busy time of the islands, kernels only and all work, at the times of _busy_queries.sql for
    `chunks` chunks) and `_diag.next_at` (the next operation's start and the latest end before it, at the times of
    _next_queries.sql) from `_diag.gpu_ops`, reading the operations in time slices of about SLICE_ROWS, each sorted
    here (each process/device's state goes on from slice to slice)."""
    import numpy as np

    queries = _queries(profile, np, chunks)
    queries["next"] = _next_queries(profile, np)
    keys, slices = _slices(profile)
    only_key = keys[0] if len(keys) == 1 else None
    # The tables are written while the pass goes on, on a connection of their own: the reader thread uses the
    # profile's. At 50 M kernels the 12 M gaps alone were 660 MB of arrays held to the end.
    writer = profile.con.cursor()
    try:
        tables = {name: _Table(writer, np, name, columns) for name, columns in
                  (("gaps", GAP_COLUMNS), ("busy_at", BUSY_COLUMNS), ("next_at", NEXT_COLUMNS))}
        _pass(profile, np, queries, slices, only_key, min_gap_ns, tables)
        for table in tables.values():
            table.flush()
    finally:
        writer.close()
    give_back_freed()  # the pass's freed arrays: at 50 M kernels 450 MB more through the rules' queries


def _pass(profile: Profile, np, queries: dict, slices: list, only_key: tuple[int, int] | None, min_gap_ns: int,
          tables: dict[str, _Table]) -> None:
    states: dict[tuple[int, int], _State] = {}
    for cols in _read_ahead(profile, np, slices, only_key):
        for seg in _segments(np, cols, only_key):
            key = (int(seg["pid"]), int(seg["device"]))
            state = states.get(key)
            if state is None:
                state = states[key] = _State(key, queries, np, tables)
            state.max_end, state.max_context = _gaps(np, seg, key, state.max_end, state.max_context,
                                                     min_gap_ns, tables["gaps"])
            work, start, end = seg["work"], seg["start_ns"], seg["end_ns"]
            for k in state.kinds:
                member = work == KERNEL_WORK if k.kernels_only else work != OVERHEAD
                if member.all():  # nothing to leave out (nearly always): no copies
                    k.add(np, start, end)
                elif member.any():
                    k.add(np, start[member], end[member])
            _add_next(np, state.next, work, start, end)
    for state in states.values():
        for k in state.kinds:
            k.finish(np)
        state.next.finish(np)


def _add_next(np, nxt: _Next, work, start, end) -> None:
    """Feed a batch's operations of all work (overhead left out) to `nxt`, when it still has times to answer."""
    if not len(nxt.pending):
        return
    member = work != OVERHEAD
    if member.all():
        nxt.add(np, start, end)
    elif member.any():
        nxt.add(np, start[member], end[member])


def _read_ahead(profile: Profile, np, slices: list[tuple[int, int]], only_key: tuple[int, int] | None):
    """The operations of each time slice in turn (`_read`), the next one read on a thread while the caller works
    on this one: DuckDB's reading and numpy's pass then overlap (numpy and DuckDB release the GIL in their loops).
    Nothing else uses the profile's connection meanwhile (a cursor would not see an arrowdir export's registered
    tables); two slices are held at once."""
    from concurrent.futures import ThreadPoolExecutor

    if not slices:
        return
    with ThreadPoolExecutor(max_workers=1) as reader:
        ahead = reader.submit(_read, profile, np, *slices[0], only_key)
        for lo, hi in slices[1:]:
            cols = ahead.result()
            ahead = reader.submit(_read, profile, np, lo, hi, only_key)
            yield cols
            del cols
        yield ahead.result()


def _read(profile: Profile, np, lo: int, hi: int, only_key: tuple[int, int] | None) -> dict:
    """The operations starting in [lo, hi) as numpy arrays, unsorted (a scan, in parallel). `only_key`: the
    window's one (pid, device), whose columns are then not read (a third of the reading time where one process ran
    on one GPU)."""
    text = sql_files.inline_params(sql_files.read("diagnose", "_sweep_ops").text, {"lo": lo, "hi": hi})
    if only_key is not None:
        text = f"SELECT start_ns, end_ns, context, op_key, work FROM ({text})"
    return {c: np.asarray(v) for c, v in profile.con.execute(text).fetchnumpy().items()}


def _segments(np, cols: dict, only_key: tuple[int, int] | None):
    """The operations of a slice (`_read`) in start order per process/device, as batches of at most BATCH_ROWS of
    one process/device: {pid, device (one value each), start_ns, end_ns, work (arrays), context, op_key
    (lazy: `_Lazy`, read at the few rows a gap needs)}.

    numpy sorts the slice: a stable argsort of the starts, which the exports and the cache mostly keep in order
    (timsort then merges a few runs), where DuckDB's ORDER BY cost a full sort of every column (at 10 M operations,
    most of the pass)."""
    n = len(cols["start_ns"])
    if not n:
        return
    order = np.argsort(cols["start_ns"], kind="stable")
    keys = [c for c in ("device", "pid") if only_key is None and (cols[c] != cols[c][0]).any()]
    for c in keys:  # stable sorts from the least significant key: (pid, device, start_ns)
        order = order[np.argsort(cols[c][order], kind="stable")]
    change = np.zeros(n - 1, dtype=bool)
    for c in keys:
        key = cols[c][order]
        change |= key[1:] != key[:-1]
    cut = np.flatnonzero(change) + 1
    bounds = [b for a, z in zip(np.r_[0, cut], np.r_[cut, n]) for b in _batches(a, z)]
    start, end, work = (cols[c][order] for c in ("start_ns", "end_ns", "work"))
    for a, b in bounds:
        rows = order[a:b]
        pid, device = only_key or (cols["pid"][rows[0]], cols["device"][rows[0]])
        yield {"pid": pid, "device": device, "start_ns": start[a:b],
               "end_ns": end[a:b], "work": work[a:b], "context": _Lazy(cols["context"], rows),
               "op_key": _Lazy(cols["op_key"], rows)}


def _batches(a: int, z: int) -> list[tuple[int, int]]:
    return [(i, min(i + BATCH_ROWS, z)) for i in range(int(a), int(z), BATCH_ROWS)]


class _Lazy:
    """A column of a sorted batch read only where indexed: values[rows[i]] (gaps need the context and operation
    id of a few rows, not a sorted copy of the whole column)."""

    def __init__(self, values, rows):
        self.values, self.rows = values, rows

    def __getitem__(self, i):
        return self.values[self.rows[i]]


class _State:
    """What the pass carries for one process/device: the latest end so far (and its context), and its islands."""

    def __init__(self, key: tuple[int, int], queries: dict, np, tables: dict[str, _Table]):
        self.max_end, self.max_context = NONE, -1
        self.kinds = (_Busy(False, queries[False], tables["busy_at"]), _Busy(True, queries[True], tables["busy_at"]))
        for k in self.kinds:
            k.start(key, np)
        self.next = _Next(key, queries["next"].get(key, np.empty(0, dtype=np.int64)), tables["next_at"])


def _slices(profile: Profile) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The (pid, device) keys of the window and time slices [lo, hi) of the operations' starts holding about
    SLICE_ROWS operations each (evenly cut), from the spans (no scan of the operations: every one starts within its
    span, the profiling overhead kept too)."""
    spans = profile.con.execute("SELECT pid, device, start_ns, end_ns, ops FROM _diag.spans ORDER BY ALL").fetchall()
    if not spans:
        return [], []
    lo, hi, n = min(s[2] for s in spans), max(s[3] for s in spans), sum(s[4] for s in spans)
    parts = max(1, -(-n // SLICE_ROWS))
    step = -(-(hi + 1 - lo) // parts)
    return [(s[0], s[1]) for s in spans], [(lo + i * step, min(lo + (i + 1) * step, hi + 1)) for i in range(parts)]


def _queries(profile: Profile, np, chunks: int) -> dict[bool, dict]:
    """{kernels_only: {(pid, device): sorted times}} of _busy_queries.sql."""
    text = sql_files.inline_params(sql_files.read("diagnose", "_busy_queries").text, {"chunks": chunks})
    data = profile.con.execute(text).fetchnumpy()
    out: dict[bool, dict] = {False: {}, True: {}}
    kernels, pid, device, t = (np.asarray(data[c]) for c in ("kernels", "pid", "device", "t"))
    if not len(t):
        return out
    order = np.lexsort((t, device, pid, kernels))  # sorted by kind, pid, device and time; repeats dropped
    kernels, pid, device, t = kernels[order], pid[order], device[order], t[order]
    keep = np.r_[True, _changes(kernels, pid, device) | (t[1:] != t[:-1])]
    kernels, pid, device, t = kernels[keep], pid[keep], device[keep], t[keep]
    cut = np.flatnonzero(_changes(kernels, pid, device)) + 1
    for lo, hi in zip(np.r_[0, cut], np.r_[cut, len(t)]):
        out[bool(kernels[lo])][(int(pid[lo]), int(device[lo]))] = t[lo:hi].astype(np.int64)
    return out


def _changes(*keys):
    """Where sorted key columns change: True at i when row i + 1 differs from row i in any of them."""
    change = keys[0][1:] != keys[0][:-1]
    for key in keys[1:]:
        change |= key[1:] != key[:-1]
    return change


def _next_queries(profile: Profile, np) -> dict:
    """{(pid, device): sorted times} of _next_queries.sql."""
    data = profile.con.execute(sql_files.read("diagnose", "_next_queries").text).fetchnumpy()
    pid, device, t = (np.asarray(data[c]) for c in ("pid", "device", "t"))
    cut = np.flatnonzero((pid[1:] != pid[:-1]) | (device[1:] != device[:-1])) + 1
    return {(int(pid[lo]), int(device[lo])): t[lo:hi].astype(np.int64)
            for lo, hi in zip(np.r_[0, cut], np.r_[cut, len(t)]) if hi > lo}


def _gaps(np, seg: dict, key: tuple[int, int], max_end: int, max_context: int, min_gap_ns: int,
          out: _Table) -> tuple[int, int]:
    """Append the gaps of one batch of one process/device; return the running maximum end and its context."""
    start, end, context = seg["start_ns"], seg["end_ns"], seg["context"]
    running = np.maximum.accumulate(end)
    before = np.empty_like(end)  # the latest end of the operations before each one
    before[0] = max_end
    np.maximum(running[:-1], max_end, out=before[1:])
    hit = np.flatnonzero((before != NONE) & (start - before >= min_gap_ns))
    if len(hit):
        # The context of the operation that ended last before the gap: the last one to reach the running maximum
        # (in this batch), else the one carried from earlier batches.
        reached = np.maximum.accumulate(np.where(end == running, np.arange(len(end)), -1))
        prev = np.maximum(hit - 1, 0)
        from_batch = (hit > 0) & (running[prev] > max_end)
        ctx = np.where(from_batch, context[reached[prev]], max_context)
        out.add((*key, before[hit], start[hit], ctx, seg["op_key"][hit], seg["work"][hit]))
    last = int(running[-1])
    if last > max_end:
        max_end, max_context = last, int(context[np.flatnonzero(end == last)[-1]])
    return max_end, max_context


_STORE_ROWS = 1 << 21  # rows handed to DuckDB at a time by _Table


class _Table:
    """A table _diag.<name> written as its rows come: parts (a value or an array per column; a value stands for
    each row) are handed to DuckDB, and freed, every _STORE_ROWS rows or more."""

    def __init__(self, con, np, name: str, columns: tuple[str, ...]):
        self.con, self.np, self.name, self.columns = con, np, name, columns
        self.parts: list[tuple[int, tuple]] = []  # (rows, part)
        self.rows, self.created = 0, False

    def add(self, part: tuple) -> None:
        rows = len(next(v for v in part if self.np.ndim(v)))
        self.parts.append((rows, part))
        self.rows += rows
        if self.rows >= _STORE_ROWS:
            self.flush()

    def flush(self) -> None:
        """Write the parts held (the table is created, empty if need be, on the first call)."""
        if self.created and not self.parts:
            return
        np, parts = self.np, self.parts
        self.parts, self.rows = [], 0
        types = {c: "BOOLEAN" if c == "kernels" else "BIGINT" for c in self.columns}
        data = {c: np.concatenate([p[i] if np.ndim(p[i]) else np.full(n, p[i]) for n, p in parts])
                if parts else np.array([], dtype=bool if types[c] == "BOOLEAN" else np.int64)
                for i, c in enumerate(self.columns)}
        del parts
        store_arrays(self.con, f"_diag.{self.name}", data, types, append=self.created)
        self.created = True
