"""`attention`: QK^T, softmax and attention·V time against their FLOPs and bytes (data.py: range names, warm-up and
kernel time per name, shared with `report`; flops.py; report.py; SQL in sql/attention/)."""
