"""Which columns of a table a width holds, and how wide each is: long names and sentences (the flexible columns)
narrow first, down to a floor; then columns are left out by priority until the rest fits. No text here."""

from __future__ import annotations

import re
from dataclasses import dataclass

NAME_FLOOR = 40  # a shortened kernel name narrower than this no longer tells kernels apart at a glance
TIGHT_NAME_FLOOR = 28  # ... unless a key column (a diff's range, a table's rank) would be left out for it
PROSE_FLOOR = 24  # a sentence wrapped narrower than this reads a few words a line
GAP = 2  # spaces between columns
MIN_WIDTH = 8  # below the floors (a very narrow terminal), no name or sentence column narrower than this
# Statistics a reader looks at last: left out first, from the right.
_STATS = re.compile(r"\b(?:min|max|std\s*dev|stddev|std|med|median|p\d\d)\b", re.IGNORECASE)
# Means, next: a mean is the total over the count, which the count column (Instances) tells with the total.
_MEANS = re.compile(r"\b(?:avg|average|mean)\b", re.IGNORECASE)
_IDS = re.compile(r"(?:grid|block)\s*xyz|category", re.IGNORECASE)  # a launch config, a kernel's category
_MEASURE = re.compile(r"\(|%|time|_ns\b|_ms\b|_pct\b", re.IGNORECASE)  # a unit: kept longer than ids and counts
_SHARES = re.compile(r"%|_pct\b", re.IGNORECASE)  # a share of the rows' summed total (Time (%))
_COUNTS = re.compile(r"\b(?:instances|calls|count)\b", re.IGNORECASE)  # how many: not told by any other column
_POSITIONS = re.compile(r"position|#", re.IGNORECASE)  # a row's place in the list, which the order of the rows tells


@dataclass
class Plan:
    shown: list[int]  # the columns kept, in table order
    widths: dict[int, int]  # column -> its width
    dropped: list[int]  # the columns left out, in table order


def plan(headers: list[str], natural: list[int], flexible: list[bool], prose: list[bool], keys: list[int],
         width: int) -> Plan:
    """Columns at their `natural` widths, fitted to `width`: flexible ones narrowed to their floor, then columns
    left out in `drop_order` until the floors fit; the room left goes back to the flexible ones."""
    floor = _floors(headers, natural, flexible, prose, NAME_FLOOR)
    shown = list(range(len(headers)))
    keys = key_columns(headers, natural, flexible, keys)
    order = drop_order(headers, natural, flexible, keys)
    # the key columns come last in the order, the first measure (`Total Time (ns)`) just before them: a table of
    # names without one number says nothing, so the names narrow before it goes too
    kept = len([i for i in order if i in keys]) + (1 if _first_measure(headers, keys) in order else 0)
    while _total(shown, floor) > width and len(order) > kept:
        shown.remove(order.pop(0))
    if _total(shown, floor) > width:  # a key column would go: names narrower first, so that it stays
        floor = _floors(headers, natural, flexible, prose, TIGHT_NAME_FLOOR)
    while _total(shown, floor) > width and order:
        shown.remove(order.pop(0))
    flex = [i for i in shown if flexible[i]]
    if _total(shown, floor) > width and flex:  # narrower than the floors: the names and sentences share what is left
        room = width - _total([i for i in shown if not flexible[i]], floor) - GAP * len(flex)
        floor = [max(MIN_WIDTH, room // len(flex)) if i in flex else w for i, w in enumerate(floor)]
    widths = {i: floor[i] for i in shown}
    _grow(flex, widths, natural, width - _total(shown, floor))
    return Plan(shown, widths, [i for i in range(len(headers)) if i not in shown])


def _floors(headers, natural, flexible, prose, name_floor: int) -> list[int]:
    return [min(n, max(PROSE_FLOOR if p else name_floor, len(h))) if f else n
            for h, n, f, p in zip(headers, natural, flexible, prose)]


def drop_order(headers: list[str], natural: list[int], flexible: list[bool], keys: list[int]) -> list[int]:
    """The columns that may be left out, first to go first: a list's Position (the row order tells it), statistics
    (Min, Max, StdDev, ...), then means (Avg: the total over the count), then the other columns not in `keys` (ids
    and counts before measures with a unit: `Total Time (ns)`), each from the right, the first measure last; then
    `keys` from the least important, all but the first two. A share (Time (%): a total over the rows' sum) in a
    table that shows the total and a count goes just before the count, which no other column tells. `keys`: a
    report's key columns, most important first; by default the widest text one (the name), the first column and
    `rank`."""
    keys = key_columns(headers, natural, flexible, keys)
    rest = [i for i in reversed(range(len(headers))) if i not in keys]
    stats = [i for i in rest if _POSITIONS.fullmatch(headers[i].strip())]
    stats += [i for i in rest if i not in stats and _STATS.search(headers[i])]
    stats += [i for i in rest if i not in stats and _MEANS.search(headers[i])]
    derived = _derived_shares(headers, keys)
    shares = [i for i in rest if i in derived]
    first = _first_measure(headers, keys, derived)
    measures = [i for i in rest if i not in stats + shares and _MEASURE.search(headers[i]) and i != first]
    others = [i for i in rest if i not in stats + shares + measures and i != first]
    count = next((k for k, i in enumerate(others) if _COUNTS.search(headers[i])), len(others))
    return (stats + others[:count] + shares + others[count:] + measures + ([first] if first is not None else [])
            + keys[:1:-1])


def key_columns(headers: list[str], natural: list[int], flexible: list[bool], keys: list[int]) -> list[int]:
    """`keys` as given, else the widest text column (the name), the first column, `rank`, and the columns that tell
    rows of one name apart or say what they are (GridXYZ and BlockXYZ, Category)."""
    if keys:
        return keys
    names = sorted((i for i, f in enumerate(flexible) if f), key=lambda i: -natural[i])
    ranks = [i for i, h in enumerate(headers) if h.lower() == "rank"]  # tables over ranks: whose row it is
    ids = [i for i, h in enumerate(headers) if _IDS.fullmatch(h.strip())]
    first = [0] if headers and not _POSITIONS.fullmatch(headers[0].strip()) else []
    return list(dict.fromkeys([*names[:1], *first, *ranks, *ids]))


def _first_measure(headers: list[str], keys: list[int], shares: list[int] | None = None) -> int | None:
    """The leftmost column with a unit that is not a statistic, a key or a derived share (`shares`, found here
    unless given): the table's main figure."""
    shares = _derived_shares(headers, keys) if shares is None else shares
    return next((i for i in _measures(headers, keys) if i not in shares), None)


def _measures(headers: list[str], keys: list[int]) -> list[int]:
    """The columns with a unit that are not statistics, means or keys."""
    return [i for i, h in enumerate(headers) if i not in keys and _MEASURE.search(h)
            and not _STATS.search(h) and not _MEANS.search(h)]


def _derived_shares(headers: list[str], keys: list[int]) -> list[int]:
    """The shares (Time (%)) of a table that also shows a count (Instances) and a total with a unit (Total Time (ns)):
    a share is that total over the rows' sum, while how many times nothing else tells, so the count stays longer."""
    if not any(_COUNTS.search(h) for i, h in enumerate(headers) if i not in keys):
        return []
    measures = _measures(headers, keys)
    shares = [i for i in measures if _SHARES.search(headers[i])]
    return shares if len(shares) < len(measures) else []


def _total(shown: list[int], widths) -> int:
    return sum(widths[i] for i in shown) + GAP * (len(shown) - 1)


def _grow(flex: list[int], widths: dict[int, int], natural: list[int], room: int) -> None:
    """Share `room` among the flexible columns, the narrowest need first, none past its natural width."""
    for k, i in enumerate(sorted(flex, key=lambda i: natural[i] - widths[i])):
        add = max(0, min(natural[i] - widths[i], room // (len(flex) - k)))
        widths[i] += add
        room -= add
