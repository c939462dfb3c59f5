"""`runs add`'s catalog, opened beside the profile's summary: in a forked process where the CLI runs in a process
of its own, else on a thread.

SQLAlchemy's import (about 0.22 s of CPU) and the catalog's opening are Python work: on a thread they hold the GIL
that the summary's Python work needs too, so they overlap little. A process forked before the profile is read
imports SQLAlchemy and opens the catalog on the other CPU; the summaries (tens of KB) come to it pickled through a
pipe, it stores each run in one transaction (`data.add_run`, as on the thread) and answers with the run id or the
error (its exit code and one-line message; a bug's traceback as the message of an internal error).

The fork is made only in a process that runs the one command (the CLI's main(), not a test runner or notebook
calling it) and before DuckDB is loaded in it (no DuckDB thread or open file is forked); elsewhere the thread does
the same work.
Ctrl-C reaches both processes (the child then just ends: a transaction under way is rolled back by the database).
The child never returns into the caller's code: it ends with os._exit, so no atexit handler or buffered output of
the parent runs twice. It writes nothing to the terminal (its stdout and stderr are /dev/null): what it has to say
comes back through the pipe.

The `nsys-analytics` executable forks this process at its very start when the command line is `runs add`
(`fork_early`, from cli/launch.py): SQLAlchemy's import is then under way while the CLI itself is imported, about
0.06 s sooner than from the command. The command's CatalogWriter takes that process over and sends it the catalog's
URL; where no writer does (a usage error), the process ends when it finds the pipe closed.
"""

from __future__ import annotations

import gc
import importlib
import os
import pickle
import signal
import sys
import traceback
from typing import TYPE_CHECKING

from ...core.errors import NsysAnalyticsError

if TYPE_CHECKING:
    from ..diff.summary import ProfileSummary


# Modules both processes import after the fork: the version lookups of DuckDB and SQLAlchemy (importlib.metadata),
# what SQLAlchemy and the profile's summary use (concurrent.futures, logging, socket), what the summaries are made of.
_SHARED = ("importlib.metadata", "importlib.resources", "concurrent.futures", "logging", "socket",
           "nsys_analytics.capabilities.diff.summary")
_early: tuple | None = None  # (pid, pipe to it, pipe from it) of the process fork_early made, not yet taken over


class CatalogProcessError(NsysAnalyticsError):
    """An error of the catalog process, re-raised here with its exit code and message."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code


def can_fork() -> bool:
    """Whether this process may fork the catalog process now (the caller also knows the process is its own): not
    once DuckDB's engine is loaded, whose threads a fork would not copy (the package imports `_duckdb` itself)."""
    return hasattr(os, "fork") and sys.modules.keys().isdisjoint(("duckdb", "_duckdb"))


class CatalogWriter:
    """Adds runs to the catalog `db` (made if missing), opened from now on beside the caller's work.
    Use as a context manager; `add` returns (run id, True) or (the stored run's id, False)."""

    def __init__(self, db: str | None, fork: bool = False):
        """`fork`: in a process of its own where it can (can_fork), else on a thread."""
        global _early
        self._db = db
        self._pid = None
        self._pool = None
        if fork and (_early is not None or can_fork()):
            if _early is None:
                for module in _SHARED:  # loaded once, before the fork, instead of once in each process after it
                    importlib.import_module(module)
                _early = _fork()
            (self._pid, self._to, self._from), _early = _early, None
            pickle.dump(db, self._to, protocol=pickle.HIGHEST_PROTOCOL)  # the child opens the catalog on its own
            self._to.flush()
        else:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=1)
            self._opening = self._pool.submit(_open, db)

    # -- the caller's side ---------------------------------------------------------------------
    def add(self, summaries: list[ProfileSummary], tags: dict[str, str],
            found: list[list[dict]] | None = None) -> tuple[int, bool]:
        if self._pool is not None:
            catalog, add_run = self._opening.result()
            return add_run(catalog, summaries, tags, found)
        pickle.dump((summaries, tags, found), self._to, protocol=pickle.HIGHEST_PROTOCOL)
        self._to.flush()
        try:
            reply = pickle.load(self._from)
        except EOFError:
            raise RuntimeError("the catalog process ended without an answer") from None
        kind, *rest = reply
        if kind == "ok":
            return rest[0]
        if kind == "error":
            message, code = rest
            raise CatalogProcessError(message, code)
        from .connect import scrub_text  # a crash's text may quote the URL: masked like every catalog message

        text = scrub_text(rest[0], self._db)
        raise RuntimeError(f"in the catalog process: {text.splitlines()[-1]}") from RuntimeError(text)

    def close(self) -> None:
        """Wait for the catalog's opening (thread) or for the process to end (it ends when this side's pipe
        closes)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
            if self._opening.exception() is None:
                self._opening.result()[0].close()  # SQLite's -wal/-shm go with the last connection
        if self._pid is not None:
            for f in (self._to, self._from):
                try:
                    f.close()
                except OSError:  # the child ended first: its pipe end is gone
                    pass
            os.waitpid(self._pid, 0)
            self._pid = None

    def __enter__(self) -> CatalogWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def fork_early() -> None:
    """Fork the catalog process now, at the start of a `runs add` process, before the CLI is imported (see the
    module doc). Only where the process is this one command's and nothing but the standard library is loaded."""
    global _early
    if _early is None and can_fork():
        _early = _fork()


def _fork() -> tuple[int, object, object]:
    """The catalog process: (its pid, a pipe to it, a pipe from it). It imports SQLAlchemy, then reads the catalog's
    URL and serves runs (`_serve`)."""
    down_r, down_w = os.pipe()  # the URL, then summaries, to the child
    up_r, up_w = os.pipe()  # answers to the parent
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child
        code = 0
        try:
            os.close(down_w)
            os.close(up_r)
            _serve(os.fdopen(down_r, "rb"), os.fdopen(up_w, "wb"))
        except BaseException:  # noqa: BLE001 - nothing may return into the parent's code
            code = 1
        finally:
            os._exit(code)
    os.close(down_r)
    os.close(up_w)
    return pid, os.fdopen(down_w, "wb"), os.fdopen(up_r, "rb")


# -- the catalog process ------------------------------------------------------------------------
def _open(db: str | None):
    from .connect import Catalog
    from .data import add_run

    return Catalog(db, True), add_run


def _serve(requests, answers) -> None:
    """Import what storing a run needs, read the catalog's URL and open it, then store each run sent until the
    parent closes the pipe."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends this process at once; the parent reports it
    try:
        signal.set_wakeup_fd(-1)  # the parent's interrupt watcher listens on that pipe, not for this process
    except ValueError:
        pass
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    gc.disable()  # the collector would run through the imports' objects again and again: a tenth of their time
    catalog = add_run = failure = None
    try:
        from ..diff import report  # noqa: F401 - add_run's step_of: loaded before a run arrives
        from . import connect, data  # noqa: F401 - SQLAlchemy, imported while the parent starts
    except BaseException as e:  # noqa: BLE001 - reported on the first run sent
        failure = _failure(e)
    gc.enable()
    try:
        db = pickle.load(requests)
    except EOFError:  # nobody took this process over
        return
    if failure is None:
        try:
            catalog, add_run = _open(db)
        except BaseException as e:  # noqa: BLE001 - reported on the first run sent
            failure = _failure(e)
    while True:
        try:
            summaries, tags, found = pickle.load(requests)
        except EOFError:
            break
        if failure is None:
            try:
                reply = ("ok", add_run(catalog, summaries, tags, found))
            except BaseException as e:  # noqa: BLE001
                reply = _failure(e)
        else:
            reply = failure
        pickle.dump(reply, answers, protocol=pickle.HIGHEST_PROTOCOL)
        answers.flush()
    if catalog is not None:
        catalog.close()


def _failure(e: BaseException) -> tuple:
    if isinstance(e, NsysAnalyticsError):
        return ("error", str(e), e.exit_code)
    return ("crash", "".join(traceback.format_exception(e)).rstrip())
