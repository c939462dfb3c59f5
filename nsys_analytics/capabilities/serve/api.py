"""The JSON API: a request's path and query in, (status, content type, body) out; no socket here.

Only the profiles the command line named are reachable, by their ids (p0, p1, ...), never by a path. A request
that cannot be answered (an unknown id, page or parameter, a profile without the data a page needs) is a 4xx
with a short JSON error; only a bug is a 500, and even that says one line, never a traceback.
"""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

from ...core.errors import NsysAnalyticsError, UsageError
from ...core.result import Result
from ...output.report import records
from . import pages, timeline_window

JSON = "application/json; charset=utf-8"
CSV = "text/csv; charset=utf-8"
MAX_ROWS = 2000  # rows of one table sent to the browser; its CSV holds them all
MAX_QUERY = 4096  # bytes of a query string


class BadRequest(Exception):
    """A request refused: its status and one line."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


@dataclass
class Served:
    """One profile the viewer serves: its id, what it is (a rank, the profile compared with) and its timeline."""

    id: str
    name: str
    role: str
    profile: object
    rules: object
    timeline: timeline_window.Timeline | None = None
    ncu: str | None = None  # an Nsight Compute report of the same program (--ncu)
    lock: threading.Lock = field(default_factory=threading.Lock)  # one DuckDB connection: one query at a time

    def to_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "role": self.role}


class Session:
    """Everything the server answers from: the served profiles, and the reports already built (kept, bounded)."""

    def __init__(self, served: list[Served], rules, pset=None, base_paths=(), vs=()):
        self.served = {s.id: s for s in served}
        self.rules = rules
        self.pset = pset
        self.base_paths = list(base_paths)
        self.vs = list(vs)
        self._reports: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def meta(self) -> dict:
        return {"profiles": [s.to_dict() for s in self.served.values()],
                "ranks": self.pset is not None and len(self.pset) > 1, "diff": bool(self.vs)}

    def profile(self, args: dict) -> Served:
        served = self.served.get(args.get("p", ""))
        if served is None:
            raise BadRequest(404, "no such profile id; the ids are those /api/meta lists")
        return served

    def report(self, key: tuple, build):
        """A report built once per key (the last 32 kept): pages are asked again as users come back."""
        with self._lock:
            if key in self._reports:
                self._reports.move_to_end(key)
                return self._reports[key]
        report = build()
        with self._lock:
            self._reports[key] = report
            while len(self._reports) > 32:
                self._reports.popitem(last=False)
        return report


def handle(session: Session, path: str, query: str) -> tuple[int, str, bytes]:
    """Answer one GET of the API."""
    try:
        args = _args(query)
        body, ctype = _route(session, path, args)
        return 200, ctype, body
    except BadRequest as e:
        return e.status, JSON, _error(str(e))
    except UsageError as e:
        return 400, JSON, _error(str(e))
    except NsysAnalyticsError as e:  # a profile without the data this page needs
        return 422, JSON, _error(str(e))


def _error(message: str) -> bytes:
    return json.dumps({"error": message.splitlines()[0] if message else "error"}).encode()


def _args(query: str) -> dict:
    if len(query) > MAX_QUERY:
        raise BadRequest(414, "query string too long")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query), errors="strict")
    except ValueError:
        raise BadRequest(400, "malformed query string") from None
    args = dict(pairs)
    if len(args) != len(pairs):
        raise BadRequest(400, "a parameter is given twice")
    return args


def _route(session: Session, path: str, args: dict) -> tuple[bytes, str]:
    if path == "/api/meta":
        return _json(session.meta()), JSON
    if path == "/api/timeline":
        return _json(_timeline(session.profile(args), args)), JSON
    if path == "/api/lanes":
        served = session.profile(args)
        return _json({**served.to_dict(), **_prepared(served).to_dict()}), JSON
    if path == "/api/table":
        return _table(session, args)
    raise BadRequest(404, "no such API path")


def _prepared(served: Served) -> timeline_window.Timeline:
    with served.lock:
        if served.timeline is None:
            served.timeline = timeline_window.prepare(served.profile, served.rules)
        return served.timeline


def _timeline(served: Served, args: dict) -> dict:
    timeline = _prepared(served)
    window = timeline_window.Window(_int(args, "t0"), _int(args, "t1"), _int(args, "px"))
    with served.lock:
        return timeline_window.answer(served.profile, window, timeline)


def _int(args: dict, name: str) -> int:
    try:
        value = int(args[name])
    except KeyError:
        raise BadRequest(400, f"missing parameter {name}") from None
    except ValueError:
        raise BadRequest(400, f"parameter {name} is not an integer") from None
    if abs(value) >= 1 << 62:
        raise BadRequest(400, f"parameter {name} is out of range")
    return value


def _table(session: Session, args: dict) -> tuple[bytes, str]:
    """A page's tables as JSON, or one of them as the writer's CSV (format=csv&table=NAME)."""
    view, fmt = args.get("view", ""), args.get("format", "json")
    if fmt not in ("json", "csv"):
        raise BadRequest(400, "format must be json or csv")
    options = {k: v for k, v in sorted(args.items()) if k not in ("view", "format", "table", "p")}
    if view in pages.PAGES:
        served = session.profile(args)

        def build():
            with served.lock:
                return pages.PAGES[view](served, options)

        report = session.report((served.id, view, tuple(options.items())), build)
    elif view in pages.SESSION_PAGES:
        report = session.report((view,), lambda: pages.SESSION_PAGES[view](session, options))
    else:
        raise BadRequest(404, "no such view")
    if fmt == "csv":
        table = args.get("table")
        if table is not None and table not in report.tables():
            raise BadRequest(404, "no such table in this view")
        return report.render("csv", table).encode(), CSV
    return _json(_report_dict(report)), JSON


def _report_dict(report) -> dict:
    tables = {}
    for name, t in report.tables().items():
        tables[name] = _result_dict(t) if isinstance(t, Result) else {"missing": t}
    doc = report.to_dict() if hasattr(report, "doc") else None
    return {"tables": tables, "default": report.default_table(), "doc": doc}


def _result_dict(result: Result) -> dict:
    rows = records(result)
    return {"columns": result.columns, "headers": result.display_headers, "rows": rows[:MAX_ROWS],
            "total_rows": len(rows), "notes": list(result.notes)}


def _json(value) -> bytes:
    try:
        return json.dumps(value, default=str, allow_nan=False, separators=(",", ":")).encode()
    except ValueError:  # a NaN or infinity, which JSON cannot hold: null, as the writer's JSON has it
        return json.dumps(_finite(value), default=str, separators=(",", ":")).encode()


def _finite(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
