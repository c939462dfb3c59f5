"""What `nsys-analytics sql` may run: read-only statements over the opened profiles.

Decided from DuckDB's own parse tree, never from the text: each statement DuckDB's parser finds must be a SELECT
(WITH, FROM-first, VALUES, DESCRIBE, SUMMARIZE, SHOW, PIVOT with an IN list, PRAGMA table_info and the other pragmas
DuckDB turns into a SELECT) or an EXPLAIN of one, and its tree (`json_serialize_sql`) is walked whole: every table
function it calls, at any depth, is looked up by the name DuckDB resolved (whatever the schema prefix, quoting or
comments) in an allow-list of functions that only return rows. Anything else is refused with exit code 2.
Then the engine itself is locked (`lock`): files only where the profiles, the cache folder and the files the query
names are, no Python objects found by name, and the configuration locked.
"""

from __future__ import annotations

import glob
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..core.duckdb_engine import duckdb
from .database import _quote
from ..core.errors import QueryError
from .schema_objects import TABLE_MACROS

WHAT = "`sql` runs read-only statements (SELECT, WITH, DESCRIBE, SUMMARIZE, SHOW, EXPLAIN)"
# Table functions that read the files the query names (their first argument: a path, a glob or a list of them).
FILE_READERS = frozenset({
    "read_csv", "read_csv_auto", "sniff_csv", "read_parquet", "parquet_scan", "parquet_metadata", "parquet_schema",
    "parquet_file_metadata", "parquet_kv_metadata", "parquet_full_metadata", "parquet_bloom_probe", "read_json",
    "read_json_auto", "read_ndjson", "read_ndjson_auto", "read_json_objects", "read_json_objects_auto",
    "read_ndjson_objects", "read_text", "read_blob", "glob"})
# Table functions that only return rows: series, unnesting, the catalog and settings, pragmas turned into SELECTs,
# and the project's own table macros (kernels_in, ...).
# A name not here (query, checkpoint, enable_profiling, enable_logging, sqlite_attach, sqlite_query, read_duckdb,
# arrow_scan, ...) is refused, and so is every function a later DuckDB adds until it is listed.
ROW_FUNCTIONS = frozenset({
    "range", "generate_series", "unnest", "repeat", "repeat_row", "json_each", "json_tree", "summary",
    "histogram", "histogram_values", "test_all_types", "test_vector_types", "icu_calendar_names",
    "pg_timezone_names", "pragma_table_info", "pragma_show", "pragma_version", "pragma_platform",
    "pragma_database_size", "pragma_storage_info", "pragma_metadata_info", "pragma_collations", "pragma_user_agent",
    "duckdb_columns", "duckdb_constraints", "duckdb_databases", "duckdb_dependencies", "duckdb_extensions",
    "duckdb_functions", "duckdb_indexes", "duckdb_keywords", "duckdb_memory", "duckdb_optimizers", "duckdb_schemas",
    "duckdb_sequences", "duckdb_settings", "duckdb_tables", "duckdb_types", "duckdb_views", "duckdb_variables",
    "duckdb_temporary_files", "duckdb_approx_database_count", "duckdb_connection_count", "duckdb_log_contexts",
    "duckdb_logs", "duckdb_logs_parsed", "duckdb_profiling_settings", *TABLE_MACROS})
# Reader options that store rejected lines as tables.
_WRITING_OPTIONS = frozenset({"store_rejects", "rejects_table", "rejects_scan"})
_WRITING_SCALARS = frozenset({"write_log"})  # appends to DuckDB's log
# Files a bare `FROM 'name'` reads (DuckDB's replacement scans); others (a DuckDB database) are refused.
_SCANNED_SUFFIXES = (".csv", ".tsv", ".parquet", ".json", ".jsonl", ".ndjson")
_COMPRESSED = (".gz", ".zst")
_WRITES = ("it would write, attach, install or load an extension, or change a setting (write results with "
           "--format csv -o FILE)")
_IMPORT = re.compile(r"\bIMPORT\s+DATABASE\b", re.IGNORECASE)
_COPY_DATABASE = re.compile(r"\bCOPY\s+FROM\s+DATABASE\b", re.IGNORECASE)  # made into several statements
_TOKEN = re.compile(r"\w+|\S")
_NAMED_OBJECT = frozenset({"pragma_table_info", "pragma_storage_info"})  # their argument names a table or view


@dataclass
class Reads:
    """What an allowed query reads besides the profiles: files, and views named only in a string."""

    files: list[str] = field(default_factory=list)
    objects: list[str] = field(default_factory=list)


def check_read_only(query: str) -> Reads:
    """QueryError unless every statement of `query` only reads; what it reads otherwise."""
    try:
        query.encode("utf-8")
    except UnicodeEncodeError as e:  # bytes that are not UTF-8, from the command line or a file
        raise QueryError(f"the query is not UTF-8 text (at character {e.start}); save it as UTF-8") from None
    # A connection of its own, never DuckDB's module-wide default one: a program that embeds the package may be using
    # that from another thread, and the check then hung the process (tests/test_sql_read_only.py).
    parser = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False,
                                    "threads": 1})
    try:
        statements = _statements(parser, query)
        if not statements:
            raise QueryError("the query has no statement (only ';' or comments)")
        reads = Reads()
        try:
            for statement in statements:
                _check(parser, query, statement, reads)
        except RecursionError:  # the tree is read recursively: hundreds of nested calls or lists
            raise QueryError("the query nests too deeply to be checked (hundreds of levels of calls, lists or "
                             "subqueries); write it flatter, e.g. with WITH") from None
        if len(statements) > 1:  # DuckDB would run them all and show the last alone
            raise QueryError(f"the query has {len(statements)} statements; give one (its rows are the answer), "
                             "e.g. with WITH ... SELECT or UNION ALL")
    finally:
        parser.close()
    return reads


def _check(parser, query: str, statement, reads: Reads) -> None:
    if not statement.query.strip():  # one statement DuckDB made several of: no text of its own to check
        if _IMPORT.search(query):
            raise _refused("IMPORT DATABASE", _WRITES)
        if _COPY_DATABASE.search(query):
            raise _refused("COPY FROM DATABASE", _WRITES)
        raise _refused("PIVOT without an IN list", "DuckDB creates a type for it first; list the values: "
                       "PIVOT t ON col IN ('a', 'b') USING …")
    if statement.type == duckdb.StatementType.EXPLAIN:
        inner = _statements(parser, _explained(statement.query))
        if len(inner) != 1:
            raise _refused("this EXPLAIN", "EXPLAIN one SELECT")
        _check(parser, query, inner[0], reads)
    elif statement.type != duckdb.StatementType.SELECT:
        # IMPORT DATABASE comes back as the statements of the dump it reads
        raise _refused("IMPORT DATABASE" if _IMPORT.search(query) else _first_word(statement.query), _WRITES)
    else:
        _walk(_tree(parser, statement.query), reads)


def _statements(parser, query: str) -> list:
    try:
        return parser.extract_statements(query)
    except duckdb.Error as e:
        message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise QueryError(f"SQL error: {message}") from None


def _tree(parser, text: str) -> dict:
    # A literal, not a $parameter: DuckDB binds parameters through pandas, whose import costs half a second.
    tree = json.loads(parser.execute(f"SELECT json_serialize_sql({_quote(text)})").fetchone()[0])
    if tree.get("error"):
        raise _refused(_first_word(text), f"DuckDB does not give its tree ({tree.get('error_message', '?')})")
    return tree


def _walk(node, reads: Reads) -> None:
    """Every node of the tree: the table functions, scalar functions and files it names."""
    if isinstance(node, list):
        for item in node:
            _walk(item, reads)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") == "TABLE_FUNCTION":
        _table_function(node["function"], reads)
    elif node.get("type") == "BASE_TABLE":
        _base_table(node, reads)
    elif node.get("class") == "FUNCTION" and node.get("function_name", "").lower() in _WRITING_SCALARS:
        raise _refused(f"{node['function_name']}()", "it writes to DuckDB's log")
    for value in node.values():
        _walk(value, reads)


def _table_function(function: dict, reads: Reads) -> None:
    name = function["function_name"].lower()
    if name not in FILE_READERS and name not in ROW_FUNCTIONS:
        raise _refused(f"{function['function_name']}()", "it acts beyond returning rows (functions that read: "
                       "read_csv, read_parquet, read_json, range, unnest, …)")
    args = function.get("children", [])
    for option in filter(None, map(_option_name, args)):
        if option in _WRITING_OPTIONS:
            raise _refused(f"{name}({option} := …)", "it stores the rejected lines as tables")
    positional = [a for a in args if _option_name(a) is None]
    if name in FILE_READERS and positional:
        reads.files += _strings(positional[0])
    if name in _NAMED_OBJECT and positional:
        reads.objects += _strings(positional[0])


def _base_table(node: dict, reads: Reads) -> None:
    """A table named like a file (`FROM 'timer.csv'`) is a read of that file: CSV, Parquet or JSON only."""
    name = node.get("table_name", "")
    if node.get("schema_name") or node.get("catalog_name") or not any(c in name for c in "./\\"):
        return
    bare = name.lower()
    for suffix in _COMPRESSED:
        bare = bare.removesuffix(suffix)
    if not bare.endswith(_SCANNED_SUFFIXES):
        raise _refused(f"FROM '{name}'", "only CSV, Parquet and JSON files are read (read_csv, read_parquet, "
                       "read_json)")
    reads.files.append(name)


def _option_name(arg: dict) -> str | None:
    """The name of a named argument (`header := false` or `header = false`), None for a positional one."""
    if arg.get("alias"):
        return arg["alias"].lower()
    left = arg.get("left") or {}
    if arg.get("type") == "COMPARE_EQUAL" and left.get("class") == "COLUMN_REF":
        return left["column_names"][-1].lower()
    return None


def _strings(arg: dict) -> list[str]:
    """The text constants of a path argument: 'a.csv' or ['a.csv', 'b.csv'] (a computed path: none)."""
    if arg.get("class") == "CONSTANT" and isinstance(arg["value"].get("value"), str):
        return [arg["value"]["value"]]
    if arg.get("class") == "FUNCTION" and arg.get("function_name") == "list_value":
        return [s for child in arg.get("children", []) for s in _strings(child)]
    return []


def _explained(text: str) -> str:
    """The statement an EXPLAIN [(options)] [ANALYZE] runs, found with DuckDB's tokenizer (comments skipped)."""
    tokens = [offset for offset, _ in duckdb.tokenize(text)]
    words = [_TOKEN.match(text, offset).group().upper() for offset in tokens]
    i = 1
    if i < len(words) and words[i] == "(":
        while i < len(words) and words[i] != ")":
            i += 1
        i += 1
    if i < len(words) and words[i] in ("ANALYZE", "ANALYSE"):
        i += 1
    return text[tokens[i]:] if i < len(tokens) else ""


def _first_word(text: str) -> str:
    words = [_TOKEN.match(text, offset).group().upper() for offset, _ in duckdb.tokenize(text)[:2]]
    return " ".join(words[:2] if words[:1] == ["FORCE"] else words[:1]) or "?"


def _refused(what: str, why: str) -> QueryError:
    return QueryError(f"{WHAT}; {what} is refused: {why}")


def lock(con: duckdb.DuckDBPyConnection, paths=(), folders=()) -> None:
    """From now on the connection reads files only at `paths` and under `folders` (the profiles, the cache folder,
    the files the query names), finds no Python object by name, and no statement can change a setting."""
    allowed_paths, allowed_folders = set(), set()
    for path in map(str, paths):
        if glob.has_magic(path):  # a glob reads the files of its folder
            allowed_folders |= _spellings(os.path.dirname(path.split("*")[0].split("?")[0].split("[")[0]) or ".")
        else:  # a file, or a folder (a parquetdir export; read_csv('runs/') reads the files in it)
            allowed_paths |= _spellings(path)
            allowed_folders |= _spellings(path)
    for folder in map(str, folders):
        allowed_folders |= _spellings(folder)
    con.execute(f"SET allowed_paths = {_list(sorted(allowed_paths))}")  # literals, as in _tree
    con.execute(f"SET allowed_directories = {_list(sorted(f.rstrip('/') + '/' for f in allowed_folders))}")
    con.execute("SET python_enable_replacements = false")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def _spellings(path: str) -> set[str]:
    """A path as the query wrote it, absolute, and with its links resolved (DuckDB compares the text)."""
    expanded = os.path.expanduser(path)
    try:
        resolved = str(Path(expanded).resolve())
    except (OSError, RuntimeError):  # a loop of links: DuckDB will not read it either
        resolved = expanded
    return {path, expanded, os.path.abspath(expanded), resolved}


def _list(texts: list[str]) -> str:
    return "[" + ", ".join(map(_quote, texts)) + "]"
