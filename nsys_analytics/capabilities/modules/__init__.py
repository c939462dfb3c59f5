"""`modules`: GPU time per model module, forward and backward (data.py -> attribute.py, flops.py -> report.py ->
render.py; SQL in sql/modules/)."""
