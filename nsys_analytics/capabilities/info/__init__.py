"""`info`: what a profile holds — versions, capture, GPUs, processes, row counts (report.py; SQL in sql/info/)."""
