"""A ModulesReport as the one writer takes it: two tables, `modules` (default) and `kernels`; JSON adds the source,
the window, the step's wall time (`step_ms`, what step_pct is a share of) and its summed kernel time (`kernel_ms`)."""

from __future__ import annotations

from ...output.report import Report, records
from .report import ModulesReport

TITLES = {"modules": "GPU time per module, forward and backward (ms per step)",
          "kernels": "The heaviest kernels per module and direction (ms per step)"}


class ModulesOutput(Report):
    def __init__(self, report: ModulesReport):
        self.report = report

    def tables(self) -> dict:
        return {"modules": self.report.modules, "kernels": self.report.kernels}

    def default_table(self) -> str:
        return "modules"

    def stack_table(self, fmt: str, table: str | None = None):
        """Over ranks: one table of every rank's modules (or --table kernels), a `rank` column first."""
        from ...output.render import pick_table

        return pick_table(self.tables(), table, self.default_table())

    def to_dict(self) -> dict:
        r = self.report
        return {"source": r.source, "window": r.window, "steps": r.steps, "step_ms": round(r.step_ms, 3),
                "kernel_ms": round(r.kernel_ms, 3), "notes": r.modules.notes, "modules": records(r.modules),
                "kernels": records(r.kernels)}

    def layout(self, fmt: str, table: str | None = None) -> str:
        from ...output.render import pick_table, render

        tables = self.tables()
        chosen = {table: pick_table(tables, table, self.default_table())} if table else tables
        head = "### {}\n\n" if fmt == "markdown" else "{}\n\n"
        return "\n".join(head.format(TITLES[name]) + render(t, fmt) for name, t in chosen.items())
