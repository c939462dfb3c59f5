"""Where per-file work runs: in this process, in a local process pool (the default, which runs small work in this
process: small_work), or on a Dask cluster.

Every engine has `map(fn, items)`: fn(item) for each item, results in input order, an exception returned in place
of the result of an item that failed (so that one bad file among 64 can be named); and `imap(fn, items)`, the
same results one at a time as they arrive, so that a caller can fold each into its answer and drop it (the parent
of 64 ranks never holds them all). Workers read
their own files and return small frames; only those cross process or network boundaries. Dask is imported only
when a scheduler is named.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..core.errors import NsysAnalyticsError

SCHEDULER_ENV = "NSYS_ANALYTICS_SCHEDULER"
CONNECT_TIMEOUT_S = 3
# Below this total of SQLite exports the default pool runs the work in this process: starting workers costs more
# than they save. `kernels` over ddp_straggler's 2 ranks (bench/bench_engine_choice.py, 2 cores): 2 MB in all 0.79 s
# in-process vs 1.56 s in a pool of 2; 24 MB 0.76 vs 1.57 s; 118 MB 1.26 vs 1.83 s; 236 MB 1.34 vs 2.30 s; 32 ranks of
# 1 MB 3.23 vs 4.46 s (DuckDB already spreads one file's query over every core).
IN_PROCESS_BELOW = 256 * 2**20


class EngineError(NsysAnalyticsError):
    """The execution engine cannot run (e.g. the Dask scheduler is unreachable)."""


class Sequential:
    name = "sequential"

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        return list(self.imap(fn, items))

    def imap(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> Iterator[Any]:
        return (_guarded(fn, item) for item in items)

    def close(self) -> None:
        pass


class LocalPool:
    """A pool of worker processes on this machine (one per core by default), started with `forkserver`: the
    parent may hold DuckDB connections and threads, which `fork` would copy in a broken state.

    A worker started that way first runs the `__main__` module again (as `__mp_main__`). Where that would run the
    caller's own work again, or cannot be done (a script without an `if __name__ == "__main__":` block calling us
    from its top level, a script read from standard input), the pool is of threads instead: DuckDB does its work
    outside the GIL, so they still overlap, and nothing of the script runs twice."""

    name = "pool"

    def __init__(self, jobs: int | None = None):
        self.chosen = jobs is not None  # --jobs N: a pool whatever the work
        self.jobs = max(1, jobs or os.cpu_count() or 1)

    def map(self, fn, items):
        return list(self.imap(fn, items))

    def imap(self, fn, items):
        if len(items) <= 1 or self.jobs == 1 or (not self.chosen and small_work(items)):
            yield from Sequential().imap(fn, items)
            return
        workers = min(self.jobs, len(items))
        if not workers_can_import_main():
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="nsys-analytics") as pool:
                yield from pool.map(_Guarded(fn), items)
            return
        import multiprocessing  # here: a command on one file never starts a pool (10 ms of start-up)
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["nsys_analytics.data.profile", "pandas"])
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            yield from pool.map(_Guarded(fn), items)  # in order; each result is let go once yielded

    def close(self) -> None:
        pass


def small_work(items: Sequence[Any]) -> bool:
    """Whether the items are SQLite exports (paths, or members with a `path`) under IN_PROCESS_BELOW in all. Anything
    else (a report to export with nsys, a folder, a file that cannot be read) counts as large: the pool."""
    total = 0
    for item in items:
        path = item if isinstance(item, (str, os.PathLike)) else getattr(item, "path", None)
        if path is None or not str(path).endswith(".sqlite"):
            return False
        try:
            total += os.stat(path).st_size
        except OSError:
            return False
    return total < IN_PROCESS_BELOW


def workers_can_import_main() -> bool:
    """Whether a process started by `forkserver` or `spawn` can run this process's `__main__` module again without
    running our caller again: no main file (an interactive session, a notebook, `python -c`), a package's
    `__main__` (multiprocessing skips it: `python -m nsys_analytics`), or a file whose top level calls us from
    inside its `if __name__ == "__main__":` block (the `nsys-analytics` executable, a script written for
    multiprocessing)."""
    main = sys.modules.get("__main__")
    spec_name = getattr(getattr(main, "__spec__", None), "name", None)
    if spec_name is not None and spec_name.rpartition(".")[2] == "__main__":
        return True
    path = getattr(getattr(main, "__spec__", None), "origin", None) or getattr(main, "__file__", None)
    if path is None:
        return True
    if not os.path.isfile(path):  # "<stdin>": a worker would fail to read it
        return False
    guarded, line = _guarded_lines(path), _main_line(main)
    if line is None:  # called after the top level ended (a thread, atexit): a worker runs only what is unguarded
        return bool(guarded)
    return any(first <= line <= last for first, last in guarded)


def _main_line(main) -> int | None:
    """The line of the `__main__` module's top level that is running now (it called us), if any."""
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals is getattr(main, "__dict__", None):
            return frame.f_lineno
        frame = frame.f_back
    return None


def _guarded_lines(path: str) -> list[tuple[int, int]]:
    """(first, last) line of each top-level `if __name__ == "__main__":` block of the file at `path`."""
    import ast

    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return []
    return [(node.lineno, node.end_lineno or node.lineno) for node in tree.body
            if isinstance(node, ast.If) and _is_main_test(node.test)]


def _is_main_test(test) -> bool:
    import ast

    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    texts = [s.value for s in sides if isinstance(s, ast.Constant)]
    return names == ["__name__"] and texts == ["__main__"]


class DaskEngine:
    """Tasks on a Dask distributed cluster (`tcp://HOST:8786`). The workers must have nsys-analytics installed
    and see the profile files at the same paths."""

    name = "dask"

    def __init__(self, address: str, connect_timeout_s: float = CONNECT_TIMEOUT_S):
        try:
            import dask
            from distributed import Client
        except ImportError as e:  # pragma: no cover - a dependency
            raise EngineError("--scheduler needs the `distributed` package; pip install 'dask[distributed]'") from e
        self.address = address
        try:
            with dask.config.set({"distributed.comm.timeouts.connect": f"{connect_timeout_s}s"}):
                self.client = Client(address, timeout=f"{connect_timeout_s}s", set_as_default=False)
        except (OSError, TimeoutError) as e:
            raise EngineError(f"cannot reach the Dask scheduler at {address} ({_one_line(e)}); start it with "
                              f"`dask scheduler` or leave out --scheduler / {SCHEDULER_ENV} to run locally") from e
        except ValueError as e:
            raise EngineError(f"--scheduler {address!r}: {_one_line(e)}; write tcp://HOST:8786") from e

    def map(self, fn, items):
        if not items:
            return []
        futures = self.client.map(_Guarded(fn), list(items), pure=False)
        return self.client.gather(futures)

    def imap(self, fn, items):
        """Results in input order, each fetched from its worker when the caller is ready for it and then released
        on the cluster."""
        futures = self.client.map(_Guarded(fn), list(items), pure=False) if items else []
        futures.reverse()
        while futures:
            future = futures.pop()
            yield future.result()
            future.release()

    def close(self) -> None:
        self.client.close()


def make_engine(scheduler: str | None = None, jobs: int | None = None):
    """The engine for the options: a Dask cluster when a scheduler is named (or set in NSYS_ANALYTICS_SCHEDULER),
    else a local pool of `jobs` processes (1: sequential; None: one per core, or this process for small work)."""
    scheduler = scheduler or os.environ.get(SCHEDULER_ENV) or None
    if scheduler:
        return DaskEngine(scheduler)
    if jobs == 1:
        return Sequential()
    return LocalPool(jobs)


class _Guarded:
    """fn(item), or the exception it raised: one failing file must not hide the others' results."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, item):
        return _guarded(self.fn, item)


def _guarded(fn, item):
    try:
        return fn(item)
    except KeyboardInterrupt:
        raise
    except Exception as e:  # noqa: BLE001 - returned, not raised: the caller names the file
        return e


def _one_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__
