"""The layers of nsys_analytics, lowest first, and the folder each one lives in. A module imports only from its own
layer or lower ones, and no import cycle joins two modules (nor two capability packages). tests/test_architecture.py
checks every import of every module against this table, those inside functions and under TYPE_CHECKING included.

- core/: errors and exit codes, small value types (Result), filters, progress, rounding, freed memory given back,
  the one atomic file writer, the capability registry: no profile, no SQL run;
- output/: text formats of a result (table, CSV, JSON, markdown, Parquet), plot style, report shapes, the one writer;
- data/: sources, the DuckDB connection, the normalized schema, the cache, `Profile` and `ProfileSet`;
- capabilities/: one package each (kernels/, nvtx/, breakdown/, ...), reading profiles through data/; one
  capability may use another (breakdown -> categories) as long as no cycle forms;
- the facade at the package root (`nsys_analytics.open`, api.py, torch.py);
- cli/: the command group, its shared options and error handling; and each capability's own command,
  `capabilities/<name>/<command>_cmd.py`, which belongs to this layer although it lives in its capability's folder.

A module lives in the folder of its layer; the folder is its layer (a `*_cmd.py` module is the CLI's).
"""

LAYERS = ("core", "output", "data", "capabilities", "api", "cli")

# The package root holds the facade only; every other module is in the folder named for its layer.
ROOT_MODULES = {"__init__": "api", "__main__": "cli", "api": "api", "torch": "api"}

COMMAND_SUFFIX = "_cmd"  # a capability's command module
