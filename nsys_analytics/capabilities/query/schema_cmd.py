"""`nsys-analytics schema`."""

from __future__ import annotations

import click

from ...data import sql_files
from ...core.errors import UsageError
from ...core.result import Result
from ...data.schema_objects import PUBLIC_VIEWS
from ...cli.options import output_options
from ...output.write import write


@click.command("schema")
@click.argument("view", required=False)
@output_options
def command(view, fmt, output):
    """The normalized views and their columns, with what each column means.

    \b
    Examples:
      nsys-analytics schema
      nsys-analytics schema kernels
      nsys-analytics schema nvtx_events --format markdown
    """
    if view is None:
        rows = [(v, sql_files.read("views", v).summary) for v in PUBLIC_VIEWS]
        result = Result(["view", "description"], rows)
        result.notes.append("Raw nsys tables are reachable as raw.<TABLE>. Details: nsys-analytics schema VIEW")
    else:
        if view not in PUBLIC_VIEWS:
            raise UsageError(f"no view {view!r}; the views are: {', '.join(PUBLIC_VIEWS)}")
        sql = sql_files.read("views", view)
        result = Result(["column", "description"], [(c.name, c.doc) for c in sql_files.view_columns(view)])
        result.notes.extend(line for line in sql.header if not line.startswith("Extends:"))
        result.notes.append(f"Reads: {', '.join(sql.front.needs) or 'no table'}")
    write(result, fmt, output)
