"""Ctrl-C ends the command at once: exit 130, "Interrupted.", not an error some seconds later.

Python runs its SIGINT handler only between bytecodes of the main thread. DuckDB looks for signals while a query
runs and stops it, and the handler marks the interruption so that whatever error the query then raises is taken
for it. Where DuckDB does not look (a long scan), a watcher thread woken by the signal itself (a wakeup pipe)
interrupts the connections after a moment, and ends the process after a little longer, removing the temporary
files a write had under way. (It does not interrupt at once: interrupt() while the main thread closes the same
connection can deadlock in DuckDB.)
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

from ..core.errors import EXIT_INTERRUPTED

GRACE_S = (1.0, 2.0)  # before interrupting the queries, then before ending the process
_requested = threading.Event()


def install() -> None:
    """Handle SIGINT so (main thread of the CLI only; a SIGINT ignored, as under nohup, stays ignored)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return
    signal.signal(signal.SIGINT, _on_sigint)
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    threading.Thread(target=_watch, args=(read_end,), daemon=True, name="interrupts").start()


def _on_sigint(signum, frame):
    _requested.set()
    raise KeyboardInterrupt


def _watch(read_end: int) -> None:
    while data := os.read(read_end, 64):
        if signal.SIGINT in data:
            break
    _requested.set()
    time.sleep(GRACE_S[0])  # the main thread usually ends within this
    # Looked up, not imported: start-up does not pay for DuckDB (`runs list`, --help), and a process that never
    # loaded it has no query to interrupt nor partial file to remove.
    database, files = (sys.modules.get(f"nsys_analytics.{m}") for m in ("data.database", "core.files"))
    if database is not None:
        database.interrupt_all()
    time.sleep(GRACE_S[1])
    if files is not None:
        files.remove_partial_files()
    sys.stderr.write("Interrupted.\n")
    sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


def requested() -> bool:
    """True once Ctrl-C was pressed: whatever error a query then raises is the interruption."""
    return _requested.is_set()
