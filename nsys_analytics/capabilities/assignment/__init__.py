"""`report`: the five answers of the profiling assignment (report.py), from attention/ (its range, warm-up and kernel
time queries and its analysis) and categories/; a `TextReport` (textreport.py), rendered by textreport_render.py."""
