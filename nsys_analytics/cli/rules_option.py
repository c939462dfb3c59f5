"""`--rules FILE.toml`, shared by the commands that classify kernels; a module of its own so that a command can
declare it without importing `classify` (and with it DuckDB)."""

from __future__ import annotations

from pathlib import Path

import click

RULES_OPTION = click.option(
    "--rules", "rules_files", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
    help="A TOML file of extra or overriding rules (repeatable; later files win). See docs/categories.md.",
)
