"""`Result`: the columns and rows of a query, cheap to build; pandas only when asked for."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Result:
    columns: list[str]
    rows: list[tuple]
    notes: list[str] = field(default_factory=list)  # lines printed under a table (e.g. what % is of)
    headers: list[str] | None = None  # display headers (e.g. nsys' "Total Time (ns)"); columns if None
    # A streamed result (Profile.sql(stream=True)): the rows come in batches, read once, and `rows` stays empty
    # until `materialize()` (render.chunks streams CSV and JSON without it).
    batches: Iterator[list[tuple]] | None = None
    exact: bool = False  # CSV writes floats whole (measured values), not with nsys' one decimal
    # The columns a narrow terminal keeps longest, most important first (output/fit.py); none: the name and the first.
    key_columns: tuple[str, ...] = ()
    # Decimals a table or markdown shows for these float columns (the default is one): where values are small
    # (a module's milliseconds per step) one decimal would read 0.1 for anything from 50 to 149 us.
    decimals: dict[str, int] = field(default_factory=dict)

    def materialize(self) -> "Result":
        """Read the remaining batches of a streamed result into `rows`."""
        if self.batches is not None:
            self.rows = [row for batch in self.batches for row in batch]
            self.batches = None
        return self

    @property
    def display_headers(self) -> list[str]:
        return self.headers or self.columns

    def to_pandas(self):
        import pandas as pd

        return pd.DataFrame.from_records(self.rows, columns=self.columns)

    def to_records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row)) for row in self.rows]

    def column(self, name: str) -> list[Any]:
        i = self.columns.index(name)
        return [r[i] for r in self.rows]

    def __len__(self) -> int:
        return len(self.rows)
