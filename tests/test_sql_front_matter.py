"""The front matter of every SQL file (name, kind, params, needs) and its documented output columns, checked
against the file itself and against DuckDB: the columns a view, macro or query really has come from DESCRIBE on
a fixture profile; those of SQL that only runs inside a pipeline (its needs name PIPELINE_OBJECTS) from DuckDB's
parser. The checker is shown to fail on small bad texts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest

import nsys_analytics
from nsys_analytics.data import schema_objects, sql_files
from nsys_analytics.data.cache.layout import tables_named
from nsys_analytics.data.sql_files import PIPELINE_OBJECTS, Relation, SqlFile

SQL = Path(__file__).resolve().parent.parent / "sql"
FILES = sorted((p.parent.name, p.stem) for p in SQL.rglob("*.sql"))
FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "profiles" / "gpt_train.sqlite"

_NOT_CODE = re.compile(r"'(?:[^']|'')*'|--[^\n]*")
_PARAM = re.compile(r"\$([A-Za-z_]\w*)")
# `CREATE ... TABLE $table AS <query>` (attributed_ops): its columns are the query's.
_CREATE = re.compile(r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP\s+)?TABLE\s+\$\w+\s+AS\s", re.I | re.M)
# Parameter values for DESCRIBE: NULL, except a relation (FROM $ops) and lists (unnest).
_VALUES = {"ops": Relation("_op_ranges"), "table": Relation("_front_matter_check"),
           "events": Relation("_serve_events"), "patterns": [], "fused_names": [], "names": [], "metrics": []}


def _code(text: str) -> str:
    return _NOT_CODE.sub(" ", text)


def _exists(need: str) -> bool:
    schema, _, table = need.rpartition(".")
    from nsys_analytics.data.raw_schema import RAW_TABLES

    return (need in schema_objects.VIEWS or need in schema_objects.TABLE_MACROS or need in schema_objects.SCALAR_MACROS
            or need in PIPELINE_OBJECTS or (schema in ("compat", "raw") and table in RAW_TABLES) or need in _fragments())


def _fragments() -> dict[str, str]:
    return {name: sql_files.read(folder, name).text for folder, name in FILES
            if sql_files.read(folder, name).front.kind == "fragment"}


def front_problems(sql: SqlFile) -> list[str]:
    """What is wrong with a file's front matter: its name, its params against the body, its needs."""
    try:
        front = sql.front
    except sql_files.FrontMatterError as e:
        return [str(e)]
    problems = [] if front.name == sql.name else [f"{sql.name}: name {front.name!r} is not the file's name"]
    code = _code(sql.text)
    used = {"$" + p for p in _PARAM.findall(code)}
    if front.kind.endswith("macro"):
        args = {a.split(":=")[0].strip() for a in front.params}
        problems += [f"{sql.name}: argument {a} is not used" for a in sorted(args) if not re.search(rf"\b{a}\b", code)]
        problems += [f"{sql.name}: a macro has no $params ({p})" for p in sorted(used)]
    else:
        problems += [f"{sql.name}: {p} is used but not in params" for p in sorted(used - set(front.params))]
        problems += [f"{sql.name}: {p} is in params but not used" for p in sorted(set(front.params) - used)]
    problems += [f"{sql.name}: needs {n!r}, which is no view, macro or table" for n in front.needs if not _exists(n)]
    read = schema_objects.named_in(sql.text) | {"compat." + t for t in tables_named(code)}
    read |= {m for m in schema_objects.SCALAR_MACROS if re.search(rf"\b{m}\s*\(", code)}
    problems += [f"{sql.name}: reads {n} but does not list it in needs" for n in sorted(read - set(front.needs) - {sql.name})]
    body = sql.text.split("\n", len(sql_files.FRONT_KEYS))[-1]
    problems += [f"{sql.name}: needs {n} but never names it" for n in front.needs if n not in body]
    return problems


def statement(folder: str, name: str, text: str | None = None) -> str:
    """A query's text as it runs: the fragments it needs appended, every $param given a value."""
    sql = SqlFile(name, text) if text is not None else sql_files.read(folder, name)
    body = sql.text + "".join("\n" + _fragments()[n] for n in sql.front.needs if n in _fragments())
    body = _CREATE.sub("", body)
    return sql_files.inline_params(body, {p: _VALUES.get(p) for p in _PARAM.findall(body)})


def parsed_columns(query: str) -> list[str | None]:
    """The output column names of a query's outermost SELECT, from DuckDB's parser (None for a `*`)."""
    tree = json.loads(duckdb.execute("SELECT json_serialize_sql($1)", [query]).fetchone()[0])
    assert not tree["error"], tree.get("error_message")
    node = tree["statements"][0]["node"]
    while node["type"] == "SET_OPERATION_NODE":
        node = node["left"]
    names = []
    for e in node["select_list"]:
        names.append(e["alias"] or (e["column_names"][-1] if e["class"] == "COLUMN_REF" else None))
    return names


def real_columns(profile, folder: str, name: str, text: str | None = None) -> list[str | None]:
    """The columns DuckDB gives: DESCRIBE on the profile, or the parser where the SQL reads a pipeline's objects."""
    sql = SqlFile(name, text) if text is not None else sql_files.read(folder, name)
    front = sql.front
    if front.kind == "check" or any(n in PIPELINE_OBJECTS for n in front.needs):
        return parsed_columns(sql.text if front.kind == "table_macro" else statement(folder, name, text))
    if front.kind == "view":
        query = f"SELECT * FROM {name}"
    elif front.kind == "table_macro":
        query = f"SELECT * FROM {name}({', '.join('NULL' for a in front.params if ':=' not in a)})"
    else:
        query = statement(folder, name, text)
    return [row[0] for row in profile.sql(f"DESCRIBE {query}").rows]


def column_problems(profile, folder: str, name: str, text: str | None = None) -> list[str]:
    """Output columns without a `-- doc`, and documented columns that are no output, of one file."""
    sql = SqlFile(name, text) if text is not None else sql_files.read(folder, name)
    if sql.front.kind in ("scalar_macro", "fragment"):  # one value; a fragment: checked in the query it ends
        return []
    documented = [c.name for c in (sql_files.documented_columns(folder, name) if text is None else sql.columns)]
    documented += [c.name for n in sql.front.needs if n in _fragments() for c in sql_files.read(folder, n).columns]
    real = real_columns(profile, folder, name, text)
    if None in real and not documented:
        return [f"{name}: selects * and names no file whose columns it has (-- Columns: those of X)"]
    problems = [f"{name}: column {c} is not documented" for c in real if c is not None and c not in documented]
    if None not in real:
        problems += [f"{name}: documents {c}, which is no output column" for c in documented if c not in real]
    return problems


@pytest.fixture(scope="module")
def profile():
    return nsys_analytics.open(FIXTURE)


def test_every_sql_file_is_seen():
    assert len(FILES) >= 136
    kinds = {sql_files.read(f, n).front.kind for f, n in FILES}
    assert kinds == set(sql_files.KINDS)


@pytest.mark.parametrize("folder,name", FILES, ids=[f"{f}/{n}" for f, n in FILES])
def test_front_matter(folder, name):
    assert front_problems(sql_files.read(folder, name)) == []


@pytest.mark.parametrize("folder,name", FILES, ids=[f"{f}/{n}" for f, n in FILES])
def test_every_output_column_is_documented(profile, folder, name):
    assert column_problems(profile, folder, name) == []


# -- the checker fails on bad SQL ------------------------------------------------------------------------------

BAD = """-- name: bad
-- kind: query
-- params: $device, $unused
-- needs: kernels, no_such_view
-- bad: kernels per device, with a column left undocumented.
SELECT
    device,                                    -- CUDA device id
    count(*) AS n
FROM kernels
WHERE device = $device AND stream = $stream
GROUP BY device
"""


def test_checker_reports_a_param_missing_or_unused_and_an_unknown_need():
    assert front_problems(SqlFile("bad", BAD)) == [
        "bad: $stream is used but not in params",
        "bad: $unused is in params but not used",
        "bad: needs 'no_such_view', which is no view, macro or table",
        "bad: needs no_such_view but never names it",
    ]


def test_checker_reports_a_read_missing_from_needs_and_a_wrong_name():
    text = BAD.replace("-- name: bad", "-- name: other").replace("FROM kernels", "FROM kernels, devices")
    assert "bad: name 'other' is not the file's name" in front_problems(SqlFile("bad", text))
    assert "bad: reads devices but does not list it in needs" in front_problems(SqlFile("bad", text))


def test_checker_reports_an_undocumented_column(profile):
    assert column_problems(profile, "kernels", "bad", BAD) == ["bad: column n is not documented"]
    documented = BAD.replace("count(*) AS n\n", "count(*) AS n                              -- kernels\n")
    assert column_problems(profile, "kernels", "bad", documented) == []


def test_checker_reports_a_documented_column_that_is_no_output(profile):
    """A column commented out of the SELECT whose doc stayed."""
    text = BAD.replace("count(*) AS n\n", "count(*) AS n                              -- kernels\n"
                                          "    -- , 0 AS zero                             -- zero\n")
    assert column_problems(profile, "kernels", "bad", text) == ["bad: documents zero, which is no output column"]


def test_a_file_without_front_matter_is_an_error():
    with pytest.raises(sql_files.FrontMatterError, match="should start with '-- name:'"):
        SqlFile("bare", "-- bare: no front matter\nSELECT 1 AS one -- one\n").front
    with pytest.raises(sql_files.FrontMatterError, match="kind 'table'"):
        SqlFile("t", "-- name: t\n-- kind: table\n-- params: none\n-- needs: none\nSELECT 1\n").front


# -- the creation order comes from the needs ---------------------------------------------------------------------

def _fronts(**needs: str) -> dict[str, sql_files.FrontMatter]:
    return {n: sql_files.FrontMatter(n, "view", (), tuple(filter(None, d.split(",")))) for n, d in needs.items()}


def test_creation_order_puts_each_object_after_its_needs():
    assert schema_objects.creation_order(_fronts(c="b", a="", b="a,compat.StringIds")) == ("a", "b", "c")
    made = set()
    for name in (*schema_objects.VIEWS, *schema_objects.TABLE_MACROS):
        if name in schema_objects.VIEWS:  # a macro is bound when called, a view when created
            assert {d for d in schema_objects.dependencies()[name] if d in schema_objects.VIEWS} <= made, name
        made.add(name)
    assert set(schema_objects.VIEWS) == set(sql_files.names("views"))


def test_creation_order_rejects_a_cycle_and_a_need_that_names_nothing():
    with pytest.raises(sql_files.FrontMatterError, match="cycle: a -> b -> a"):
        schema_objects.creation_order(_fronts(a="b", b="a"))
    with pytest.raises(sql_files.FrontMatterError, match="a.sql needs 'nowhere'"):
        schema_objects.creation_order(_fronts(a="nowhere"))


def test_schema_prints_what_the_front_matter_and_the_column_docs_say():
    from click.testing import CliRunner

    from nsys_analytics.cli.main import cli

    out = CliRunner().invoke(cli, ["schema", "kernel_ranges"])
    assert out.exit_code == 0, out.output
    sql = sql_files.read("views", "kernel_ranges")
    assert f"Reads: {', '.join(sql.front.needs)}" in out.output
    for column in sql_files.view_columns("kernel_ranges"):
        assert re.search(rf"^{column.name} +{re.escape(column.doc[:30])}", out.output, re.M), column
    listing = CliRunner().invoke(cli, ["schema"]).output
    assert all(re.search(rf"^{v} +{re.escape(sql_files.read('views', v).summary[:30])}", listing, re.M)
               for v in schema_objects.PUBLIC_VIEWS)


def test_a_column_doc_goes_on_in_comment_lines_indented_under_it():
    """kernel_ranges.kernel_id's doc is two lines; the second was dropped ("... (kind 'graph': in"). A comment
    indented as a column starts (a note about the next one) is no continuation."""
    doc = {c.name: c.doc for c in sql_files.view_columns("kernel_ranges")}["kernel_id"]
    assert doc.endswith("(kind 'graph': in raw.CUPTI_ACTIVITY_KIND_GRAPH_TRACE, graph_executions.op_id)"), doc
    text = ("-- name: t\n-- kind: view\n-- params: none\n-- needs: none\n-- t.\nSELECT\n"
            "    1 AS a,                   -- first\n"
            "                              -- and more\n"
            "    -- about b\n"
            "    2 AS b                    -- second\n")
    assert [(c.name, c.doc) for c in sql_files.SqlFile("t", text).columns] == [("a", "first and more"),
                                                                               ("b", "second")]
