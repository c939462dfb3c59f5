"""`diagnose` remembered in the cache folder: its rules scan every GPU operation and API call of the window, which
grows with the profile (warm: 0.94 s at 1 M kernels, 5.0 s at 10 M, 33 s at 50 M), where the other warm reports
read a few stored rows. The whole report (findings, each nsys rule's rows, the window) is kept as
`summaries/<stem>-<path hash>-<key>.diagnose`, the key hashing the file's identity with FORMAT and every option the
report depends on; the notes the reading printed are kept with it and printed again (data/cache/remembered.py,
`per_profile`). Only for profiles of at least the cache's minimum size, never with --no-cache."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...core.result import Result
from .findings import Finding
from .nsys_rules import NSYS_RULES, RuleOutcome

if TYPE_CHECKING:
    from ...data.profile import Profile

FORMAT = "diagnose-v6"  # change it when a rule or the report computes something else (v6: launch_bound's wait)
KEEP = 64
MAX_BYTES = 16 * 2**20


def remembered_report(profile: "Profile", options: tuple, compute: Callable[[], Any], make: Callable[..., Any]):
    """`compute()` (a DiagnoseReport), or the report it gave before for this file's present content and these
    `options`, made again by `make` (the DiagnoseReport class, which imports this module)."""
    from ...data.cache.remembered import per_profile

    salt = "\0".join([FORMAT, *map(repr, options)])
    return per_profile(profile, "diagnose", salt, compute, lambda found: _load(found, make), _dump, KEEP, MAX_BYTES)


def _dump(report) -> dict[str, Any]:
    return {"outcomes": [{"rule": o.rule.name, "result": None if o.result is None else _result_dict(o.result),
                          "skipped": o.skipped, "total_rows": o.total_rows, "total_ns": o.total_ns}
                         for o in report.outcomes],
            "findings": [vars(f) for f in report.findings], "range": report.range, "window": report.window,
            "rules": list(report.rules), "graphs": report.graphs}


def _load(found: dict[str, Any], make: Callable[..., Any]):
    outcomes = [RuleOutcome(NSYS_RULES[o["rule"]], None if o["result"] is None else _result(o["result"]),
                            o["skipped"], o["total_rows"], o["total_ns"]) for o in found["outcomes"]]
    findings = [Finding(**{**f, "windows": [tuple(w) for w in f["windows"]]}) for f in found["findings"]]
    return make(outcomes, findings, found["range"], found["window"], tuple(found["rules"]), found["graphs"])


def _result_dict(result: Result) -> dict[str, Any]:
    return {"columns": result.columns, "rows": result.rows, "notes": result.notes, "headers": result.headers,
            "exact": result.exact, "key_columns": list(result.key_columns)}


def _result(d: dict[str, Any]) -> Result:
    return Result(d["columns"], [tuple(r) for r in d["rows"]], d["notes"], d["headers"], exact=d["exact"],
                  key_columns=tuple(d["key_columns"]))
