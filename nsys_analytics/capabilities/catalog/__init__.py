"""`runs`: a catalog of runs — what the reports compute for a profile, stored (SQLAlchemy Core, schema.py) to compare
runs later and gate CI on them (docs/catalog.md)."""
