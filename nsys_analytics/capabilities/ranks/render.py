"""Render a `SetResult`: both tables in human formats, a JSON object of tables, or one CSV table."""

from __future__ import annotations

import json

from ...output.render import render, to_json

SET_TABLES = ("all", "combined", "ranks")


def render_set(result, fmt: str, table: str = "all") -> str:
    """table/markdown: each table under a title; json: {"combined": [...], "ranks": [...], "notes": [...]};
    csv: exactly one rectangular table: `all` (the default) writes the per-rank rows and the combined rows with
    rank `all`; `combined` or `ranks` writes that table alone."""
    tables = result.tables()
    if fmt == "json":
        out = {name: json.loads(to_json(t)) for name, t in tables.items()}
        out["notes"] = list(result.notes)
        return json.dumps(out, indent=2, default=str) + "\n"
    if fmt == "csv":
        return render(one_table(result, table), "csv")
    parts = []
    titles = {"combined": "All ranks", "ranks": "Per rank"}
    for name, t in tables.items():
        if table not in ("all", name):
            continue
        title = titles.get(name, name)
        parts.append(f"## {title}\n\n" if fmt == "markdown" else f"{title}\n")
        parts.append(render(t, fmt))
        parts.append("\n")
    notes = "".join(f"_{n}_\n" if fmt == "markdown" else f"{n}\n" for n in result.notes)
    return "".join(parts) + notes


def one_table(result, table: str):
    from ...core.result import Result

    if table == "combined" and result.combined is not None:
        return result.combined
    if table == "ranks" or result.combined is None:
        return result.ranks
    ranks, combined = result.ranks, result.combined
    columns = ranks.columns
    rows = [tuple(r) for r in ranks.rows]
    for row in combined.rows:
        values = dict(zip(combined.columns, row))
        rows.append(tuple("all" if c == "rank" else values.get(c) for c in columns))
    return Result(columns, rows, headers=ranks.headers)
