"""Report builders: run a query from sql/reports, shape the result; no printing."""
