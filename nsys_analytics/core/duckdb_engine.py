"""DuckDB's engine, imported without its Python wrappers.

`import duckdb` loads the engine (`_duckdb`) and then about 50 ms of Python around it: a lookup of its own version
in the installed packages' metadata and the DB-API type objects, none of which the project uses. Every command
that opens a profile imports it, so the project imports the engine itself; duckdb is pinned in pyproject.toml,
so the engine's module name is known, and any other duckdb falls back to the package.
"""

try:
    import _duckdb as duckdb
except ImportError:  # a duckdb whose engine is named otherwise
    import duckdb  # noqa: F401

__all__ = ["duckdb"]
