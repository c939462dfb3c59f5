"""Where per-file work runs: in this process, in a local process pool (the default), or on a Dask cluster.

Every engine has `map(fn, items)`: fn(item) for each item, results in input order, an exception returned in place
of the result of an item that failed (so that one bad file among 64 can be named); and `imap(fn, items)`, the
same results one at a time as they arrive, so that a caller can fold each into its answer and drop it (the parent
of 64 ranks never holds them all). Workers read
their own files and return small frames; only those cross process or network boundaries. Dask is imported only
when a scheduler is named.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .errors import NsysAnalyticsError

SCHEDULER_ENV = "NSYS_ANALYTICS_SCHEDULER"
CONNECT_TIMEOUT_S = 3


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
    parent may hold DuckDB connections and threads, which `fork` would copy in a broken state."""

    name = "pool"

    def __init__(self, jobs: int | None = None):
        self.jobs = max(1, jobs or os.cpu_count() or 1)

    def map(self, fn, items):
        return list(self.imap(fn, items))

    def imap(self, fn, items):
        if len(items) <= 1 or self.jobs == 1:
            yield from Sequential().imap(fn, items)
            return
        import multiprocessing  # here: a command on one file never starts a pool (10 ms of start-up)
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["nsys_analytics.profile", "pandas"])
        with ProcessPoolExecutor(max_workers=min(self.jobs, len(items)), mp_context=context) as pool:
            yield from pool.map(_Guarded(fn), items)  # in order; each result is let go once yielded

    def close(self) -> None:
        pass


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
    else a local pool of `jobs` processes (1: sequential)."""
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
