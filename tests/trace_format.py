"""A checker for the Chrome trace event format (the JSON Object Format of Google's "Trace Event Format" document,
as Perfetto's JSON importer and chrome://tracing read it), used by the export tests.

What it checks, per the spec:
- the top level is an object with a `traceEvents` list (and `displayTimeUnit` "ms" or "ns" if present);
- every event has the fields its phase requires: X (name, ts, dur >= 0, pid, tid), M (process_name / thread_name
  with args.name, *_sort_index with an integer args.sort_index), b/e (name, cat, id, ts, pid), s/f (name, cat,
  id, ts, pid, tid; f may bind to the enclosing slice with bp = "e"), i (ts, s in g/p/t); ts and dur are finite
  numbers (microseconds);
- flows: each flow id has exactly one start and one end, the start not after the end, and each binds to a slice:
  an X event on its pid/tid that encloses its ts;
- async b/e pairs match by (pid, cat, id), the end not before the begin;
- complete events on one track nest (no partial overlap), which Perfetto needs to draw them as a stack; the spec
  lets them come in any order, so order is not checked;
- every pid and (pid, tid) with events is named by process_name / thread_name metadata.
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict

REQUIRED = {
    "X": ("name", "ts", "dur", "pid", "tid"),
    "M": ("name", "pid", "args"),
    "b": ("name", "cat", "id", "ts", "pid"),
    "e": ("cat", "id", "ts", "pid"),
    "s": ("name", "cat", "id", "ts", "pid", "tid"),
    "f": ("name", "cat", "id", "ts", "pid", "tid"),
    "i": ("name", "ts", "pid", "tid", "s"),
}
METADATA = {"process_name": "name", "thread_name": "name", "process_sort_index": "sort_index",
            "thread_sort_index": "sort_index"}


def check_trace(trace: dict) -> dict:
    """Raise AssertionError on the first violation; return counts of what was checked."""
    assert isinstance(trace, dict) and isinstance(trace.get("traceEvents"), list), "no traceEvents list"
    assert trace.get("displayTimeUnit", "ms") in ("ms", "ns"), "displayTimeUnit must be ms or ns"
    slices, flows, asyncs = defaultdict(list), defaultdict(list), {}
    named_pids, named_threads, used_pids, used_threads = set(), set(), set(), set()
    for e in trace["traceEvents"]:
        ph = e.get("ph")
        assert ph in REQUIRED, f"unknown phase {ph!r}: {e}"
        missing = [k for k in REQUIRED[ph] if k not in e]
        assert not missing, f"{ph} event without {missing}: {e}"
        if "ts" in e:
            assert _finite(e["ts"]), f"ts not a finite number: {e}"
        if ph == "M":
            _check_metadata(e, named_pids, named_threads)
            continue
        used_pids.add(e["pid"])
        if "tid" in e:
            used_threads.add((e["pid"], e["tid"]))
        if ph == "X":
            assert _finite(e["dur"]) and e["dur"] >= 0, f"bad dur: {e}"
            slices[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
        elif ph in "sf":
            assert ph == "s" or e.get("bp", "e") == "e", f"flow end binding must be 'e' here: {e}"
            flows[(e["cat"], e["name"], e["id"])].append(e)
        elif ph in "be":
            _check_async(e, asyncs)
        elif ph == "i":
            assert e["s"] in ("g", "p", "t"), f"instant scope: {e}"
    assert not [k for k, v in asyncs.items() if v is not None], "async begin without end"
    tracks = {k: _check_nesting(k, v) for k, v in slices.items()}
    for key, events in flows.items():
        _check_flow(key, events, tracks)
    assert used_pids <= named_pids, f"processes without a name: {sorted(used_pids - named_pids)[:5]}"
    assert used_threads <= named_threads, f"threads without a name: {sorted(used_threads - named_threads)[:5]}"
    return {"events": len(trace["traceEvents"]), "slices": sum(map(len, slices.values())), "flows": len(flows),
            "tracks": len(slices)}


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _check_metadata(e: dict, named_pids: set, named_threads: set) -> None:
    assert e["name"] in METADATA, f"unknown metadata event {e['name']!r}"
    value = e["args"].get(METADATA[e["name"]])
    if e["name"].endswith("sort_index"):
        assert isinstance(value, int), f"sort_index must be an integer: {e}"
    else:
        assert isinstance(value, str) and value, f"empty name: {e}"
    if e["name"] == "process_name":
        named_pids.add(e["pid"])
    elif e["name"] == "thread_name":
        assert "tid" in e, f"thread_name without tid: {e}"
        named_threads.add((e["pid"], e["tid"]))


def _check_async(e: dict, open_: dict) -> None:
    key = (e["pid"], e["cat"], e["id"])
    if e["ph"] == "b":
        assert open_.get(key) is None, f"async id begun twice: {e}"
        open_[key] = e["ts"]
    else:
        assert open_.get(key) is not None, f"async end without begin: {e}"
        assert e["ts"] >= open_[key], f"async end before begin: {e}"
        open_[key] = None


def _check_nesting(track, spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Sorted spans of one track; AssertionError when two of them overlap without one containing the other."""
    spans.sort(key=lambda s: (s[0], -s[1]))
    stack: list[float] = []
    for start, end in spans:
        while stack and stack[-1] <= start:
            stack.pop()
        assert not stack or end <= stack[-1] + 1e-9, f"slices overlap without nesting on {track}: ends {stack[-1]}, " \
                                                    f"next [{start}, {end}]"
        stack.append(end)
    return spans


def _check_flow(key, events: list[dict], tracks: dict) -> None:
    phases = sorted(e["ph"] for e in events)
    assert phases == ["f", "s"], f"flow {key} has phases {phases}, wants one s and one f"
    start = next(e for e in events if e["ph"] == "s")
    end = next(e for e in events if e["ph"] == "f")
    assert start["ts"] <= end["ts"], f"flow {key} ends before it starts"
    for e in (start, end):
        spans = tracks.get((e["pid"], e["tid"]), [])
        i = bisect.bisect_right(spans, (e["ts"], math.inf))
        assert any(s <= e["ts"] <= t for s, t in spans[max(0, i - 64):i]), f"flow {e['ph']} binds to no slice: {e}"
