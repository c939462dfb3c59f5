"""The ranks of a job on one time axis (no I/O): each rank's timeline of the same window on the set's common clock.

A rank's timestamps are on its own session's clock; `Member.clock_offset_ns` (data/profile_set.py) puts them on the
lowest rank's. The window is resolved on every rank (its own `step_3`), moved onto the common clock, and the union
is drawn for all ranks, so one step lines up across them; each rank's boxes are moved by its offset.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ...core.errors import NsysAnalyticsError
from .timeline import Timeline, build_timeline
from .window import TimeWindow, WindowRequest, resolve


@dataclass
class RankTimeline:
    rank: int
    timeline: Timeline  # on the common clock


def common_window(pset, request: WindowRequest) -> TimeWindow:
    """The union over the ranks of the requested window, on the set's common clock."""
    spans = []
    for member in pset.members:
        with member.open() as profile:
            try:
                w = resolve(profile, request)
            except NsysAnalyticsError as e:  # say which rank lacks the range or the work
                raise type(e)(f"rank {member.rank} ({member.name}): {e}") from e
        spans.append((w.start_ns + member.clock_offset_ns, w.end_ns + member.clock_offset_ns, w.source))
    source = spans[0][2] if len({s[2] for s in spans}) == 1 else "the requested window"
    return TimeWindow(min(s[0] for s in spans), max(s[1] for s in spans), f"{source}, its union over the ranks")


def rank_timelines(pset, request: WindowRequest, **options) -> list[RankTimeline]:
    """One timeline per rank, all of the same window on the common clock (`options` as `build_timeline`'s)."""
    window = common_window(pset, request)
    out = []
    for member in pset.members:
        off = member.clock_offset_ns
        own = TimeWindow(window.start_ns - off, window.end_ns - off, window.source)
        with member.open() as profile:
            t = build_timeline(profile, own, title=f"rank {member.rank}: {window.source}", **options)
        out.append(RankTimeline(member.rank, shifted(t, off, window, f"rank {pset.members[0].rank}'s clock")))
    return out


def shifted(t: Timeline, offset_ns: int, window: TimeWindow, clock: str) -> Timeline:
    """`t` moved onto the common clock (`clock` names it on the time axis)."""
    boxes = [replace(b, start_ns=b.start_ns + offset_ns, end_ns=b.end_ns + offset_ns) for b in t.boxes]
    highlight = None if t.highlight is None else (t.highlight[0] + offset_ns, t.highlight[1] + offset_ns)
    return replace(t, window=window, boxes=boxes, highlight=highlight, clock=clock)


def stacked(parts: list[RankTimeline], title: str) -> Timeline:
    """The ranks' timelines as one, top to bottom in rank order, each row title led by 'rank N'."""
    first = parts[0].timeline
    out = Timeline(title, first.window, first.width_px, first.ns_per_px, categories=first.categories,
                   clock=first.clock)
    for part in parts:
        base = len(out.lanes)
        out.lanes += [replace(lane, key=(part.rank, *lane.key), title=f"rank {part.rank} · {lane.title}")
                      for lane in part.timeline.lanes]
        out.boxes += [replace(b, lane=b.lane + base) for b in part.timeline.boxes]
    return out


def launch_ranks(path: Path) -> tuple[dict[int, str], dict[int, str]]:
    """({pid: 'rank N'}, {device: 'rank N'}) for a report of a whole launch (several processes with GPU work; a
    device only where one rank used it); ({}, {}) otherwise."""
    from ...data.profile_set import NSYS_SUFFIXES, assign_ranks, file_facts

    if not path.is_file() or path.suffix not in NSYS_SUFFIXES:
        return {}, {}
    facts = file_facts(str(path))
    if len(facts.processes) < 2:
        return {}, {}
    members, _ = assign_ranks([facts])
    pids = {m.pid: f"rank {m.rank}" for m in members if m.pid is not None}
    devices = [(device, pids.get(pid)) for pid, device, _ in facts.processes if device is not None]
    shared = {d for d, _ in devices if sum(1 for x, _ in devices if x == d) > 1}
    return pids, {d: label for d, label in devices if d not in shared and label}
