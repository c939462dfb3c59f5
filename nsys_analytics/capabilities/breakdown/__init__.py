"""`breakdown`: GPU time by kernel category, per profile or NVTX range (data.py, ranges.py -> report.py -> render.py,
plot.py; SQL in sql/breakdown/, the time per name in categories/)."""
