"""Turn a Result into text: an aligned table, CSV, JSON or markdown. No queries here."""

from __future__ import annotations

import csv
import io
import json
import math
import re

FORMATS = ("table", "csv", "json", "markdown")
NAME_WIDTH = 128  # long kernel names are shortened to this many characters, in the table format only


def render(result, fmt: str = "table") -> str:
    if fmt == "csv":
        return to_csv(result)
    if fmt == "json":
        return to_json(result)
    if fmt == "markdown":
        return to_markdown(result)
    return to_table(result)


def to_csv(result) -> str:
    """CSV as nsys writes it: one decimal on fractional columns, integers as they are."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(result.display_headers)
    # The csv module writes None as '' and other values with str(); only floats need their one decimal. A
    # comprehension per row, not a call per cell: a trace can have millions of rows.
    writer.writerows([f"{v:.1f}" if type(v) is float else v for v in row] for row in result.rows)
    return out.getvalue()


def to_json(result) -> str:
    records = [dict(zip(result.columns, (_json_value(v) for v in row))) for row in result.rows]
    return json.dumps(records, indent=2, default=str) + "\n"


def to_markdown(result) -> str:
    headers = result.display_headers
    numeric = _numeric_columns(result)
    lines = ["| " + " | ".join(headers) + " |"]
    lines.append("|" + "|".join("---:" if numeric[i] else "---" for i in range(len(headers))) + "|")
    for row in result.rows:
        cells = [_pretty(v).replace("|", "\\|") for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines + [""] + [f"_{n}_" for n in result.notes]) + "\n"


def to_table(result) -> str:
    """An aligned table like nsys' console output: numbers right-aligned with thousands separators."""
    headers = result.display_headers
    if not result.rows:
        return "(no rows)\n" + "".join(f"{n}\n" for n in result.notes)
    numeric = _numeric_columns(result)
    cells = [[_pretty(v) if numeric[i] else shorten_name(_plain(v)) for i, v in enumerate(row)]
             for row in result.rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    lines = [_line(headers, widths, [False] * len(headers)), "  ".join("-" * w for w in widths)]
    lines += [_line(r, widths, numeric) for r in cells]
    text = "\n".join(line.rstrip() for line in lines) + "\n"
    return text + "".join(f"\n{n}" for n in result.notes) + ("\n" if result.notes else "")


def _line(cells, widths, right) -> str:
    return "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right))


def _numeric_columns(result) -> list[bool]:
    kinds = []
    for i in range(len(result.columns)):
        values = [row[i] for row in result.rows if row[i] is not None]
        kinds.append(bool(values) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values))
    return kinds


def _plain(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.1f}" if math.isfinite(v) else str(v)
    return str(v)


def _pretty(v) -> str:
    if isinstance(v, bool) or v is None:
        return _plain(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.1f}" if math.isfinite(v) else str(v)
    return str(v)


def _json_value(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


_ARGS = re.compile(r"\((?:[^()]|\([^()]*\))*\)\s*$")


def shorten_name(name: str, width: int = NAME_WIDTH) -> str:
    """Shorten a long C++ kernel name for a table: drop the argument list, then nested template
    arguments, then cut the middle (the outer template arguments tell variants apart). `void f<a<b>, c>(int, float)` -> `void f<a<…>, c>(…)`."""
    if len(name) <= width:
        return name
    short = _ARGS.sub("(…)", name.replace("<unnamed>", "\0"))
    if len(short) > width:
        short = _collapse_templates(short, 2)
    short = short.replace("\0", "<unnamed>")
    if len(short) > width:
        keep = width - 1
        short = short[: keep // 2] + "…" + short[len(short) - (keep - keep // 2):]
    return short


def _collapse_templates(name: str, level: int) -> str:
    """Replace what is nested `level` or more template brackets deep with `<…>`."""
    depth, out = 0, []
    for ch in name:
        if ch == "<":
            depth += 1
            if depth <= level:
                out.append("<…>" if depth == level else "<")
        elif ch == ">":
            if depth < level:
                out.append(">")
            depth = max(depth - 1, 0)
        elif depth < level:
            out.append(ch)
    return "".join(out)
