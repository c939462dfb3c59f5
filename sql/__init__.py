"""The SQL of nsys-analytics: `views/` builds the normalized schema, `reports/` holds one query per report."""
