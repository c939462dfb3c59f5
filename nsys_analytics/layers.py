"""The layers of nsys_analytics, lowest first. A module imports only from its own layer or lower ones, and no
import cycle joins two modules (nor two capability packages). tests/test_architecture.py checks every import of
every module against this table, those inside functions and under TYPE_CHECKING included.

- foundation: errors, rendering and plotting style, small value types — no profile, no SQL run;
- data access: sources, the DuckDB connection, the normalized schema, `Profile` (open, views, `sql`, `df`);
- capabilities: one package each (kernels/, nvtx/, breakdown/, ...), reading profiles through data access;
  one capability may use another (breakdown -> categories) as long as no cycle forms;
- api: the facade (`nsys_analytics.open`, api.py's `Profile` with the reports' convenience calls);
- cli: the click commands.

A new top-level module is declared here; a new package is a capability unless named here.
"""

LAYERS = ("foundation", "data access", "capabilities", "api", "cli")

MODULES = {
    "foundation": ("errors", "progress", "rounding", "result", "filters", "render", "plotstyle", "textreport",
                   "textreport_render", "layers"),
    "data access": ("sql_files", "source", "database", "raw_schema", "bad_rows", "bad_values", "schema_objects", "profile",
                    "profile_set", "engine", "sql_guard", "cache", "columnar"),
    "api": ("__init__", "api", "torch"),
    "cli": ("cli", "__main__"),
}
