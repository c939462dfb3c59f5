"""`kernels`: time per kernel name, = `nsys stats --report cuda_gpu_kern_sum` (report.py; SQL in sql/kernels/)."""
