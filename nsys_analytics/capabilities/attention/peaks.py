"""Peak FLOP/s and memory bandwidth of data-centre GPUs, and the ridge point (peak FLOP/s / peak bytes/s) they give
for a data type: the line between memory-bound and compute-bound in `attention`'s verdicts (docs/attention.md).

Figures are NVIDIA's datasheets (A100: "NVIDIA A100 Tensor Core GPU" datasheet; H100 SXM/NVL: "NVIDIA H100 Tensor
Core GPU" datasheet, H100 PCIe: its product brief; H200 SXM/NVL: "NVIDIA H200 Tensor Core GPU" datasheet). The
datasheets print tensor-core figures with 2:4 sparsity; a dense matmul gets half, which is what is kept here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Which peak a data type runs at: fp32 on the CUDA cores (no TF32 in the kernel names), the others on tensor cores.
PEAK_OF_DTYPE = {"fp32": "fp32", "tf32": "tf32", "bf16": "16-bit", "fp16": "16-bit", "fp16/bf16": "16-bit",
                 "fp8": "fp8"}
_PEAK_TEXT = {"fp32": "fp32 (CUDA cores)", "tf32": "dense tf32 tensor-core", "16-bit": "dense fp16/bf16 tensor-core",
              "fp8": "dense fp8 tensor-core"}


@dataclass(frozen=True)
class Gpu:
    """One GPU's peaks: TFLOP/s per PEAK_OF_DTYPE key (dense) and memory bandwidth in TB/s."""

    label: str
    pattern: str      # regular expression on the devices view's name (nsys' product name)
    tflops: dict[str, float]
    tbps: float
    source: str


def _hopper(fp32: float, sparse_tf32: float, sparse_16: float, sparse_fp8: float) -> dict[str, float]:
    return {"fp32": fp32, "tf32": sparse_tf32 / 2, "16-bit": sparse_16 / 2, "fp8": sparse_fp8 / 2}


_A100 = {"fp32": 19.5, "tf32": 156.0, "16-bit": 312.0}  # the datasheet's dense figures (no fp8 on Ampere)
# Most specific first: "NVIDIA H200 NVL" before "NVIDIA H200", an 80GB A100 before any A100.
GPUS = (
    Gpu("H200 NVL", r"\bH200 NVL", _hopper(60, 835, 1671, 3341), 4.8, "NVIDIA H200 datasheet"),
    Gpu("H200", r"\bH200\b", _hopper(67, 989, 1979, 3958), 4.8, "NVIDIA H200 datasheet"),
    Gpu("H100 NVL", r"\bH100 NVL", _hopper(60, 835, 1671, 3341), 3.9, "NVIDIA H100 datasheet"),
    Gpu("H100 PCIe", r"\bH100 PCIe", _hopper(51, 756, 1513, 3026), 2.0, "NVIDIA H100 PCIe product brief"),
    Gpu("H100 SXM", r"\bH100\b", _hopper(67, 989, 1979, 3958), 3.35, "NVIDIA H100 datasheet"),
    Gpu("A100 80GB PCIe", r"\bA100\b.*80GB.*PCIe|\bA100\b.*PCIe.*80GB", _A100, 1.935, "NVIDIA A100 datasheet"),
    Gpu("A100 80GB SXM", r"\bA100\b.*80GB", _A100, 2.039, "NVIDIA A100 datasheet"),
    Gpu("A100 40GB", r"\bA100\b", _A100, 1.555, "NVIDIA A100 datasheet"),
)


@dataclass(frozen=True)
class Ridge:
    """The ridge point used for the verdicts, where it comes from, and the GPU's peaks when they are known."""

    value: float
    source: str
    peak_tflops: float | None = None
    peak_tbps: float | None = None


def find_gpu(name: str) -> Gpu | None:
    return next((g for g in GPUS if re.search(g.pattern, name, re.IGNORECASE)), None)


def ridge_for(dtype: str, gpu_names: list[str]) -> Ridge:
    """The ridge point of `dtype` on the profile's GPU (one name); with no GPU, several, or one not in GPUS, the
    lowest ridge of the listed GPUs, so that a piece called memory-bound is memory-bound on each of them."""
    peak = PEAK_OF_DTYPE[dtype]
    gpu = find_gpu(gpu_names[0]) if len(gpu_names) == 1 else None
    if gpu is not None and peak in gpu.tflops:
        flops, tbps = gpu.tflops[peak], gpu.tbps
        return Ridge(round(flops / tbps, 1), f"{_named(gpu_names[0], gpu)}: {_PEAK_TEXT[peak]} peak {flops:g} "
                     f"TFLOP/s / {tbps:g} TB/s memory bandwidth ({gpu.source})", flops, tbps)
    low = min((g for g in GPUS if peak in g.tflops), key=lambda g: g.tflops[peak] / g.tbps)
    why = _why_no_gpu(gpu_names, gpu, peak)
    return Ridge(round(low.tflops[peak] / low.tbps, 1),
                 f"{why}, so the lowest {_PEAK_TEXT[peak]} ridge of the GPUs listed in docs/attention.md is used "
                 f"({low.label}: {low.tflops[peak]:g} TFLOP/s / {low.tbps:g} TB/s); give your GPU's with --ridge")


def _why_no_gpu(names: list[str], gpu: Gpu | None, peak: str) -> str:
    if not names:
        return "the profile names no GPU"
    if len(names) > 1:
        return f"the kernels ran on different GPUs ({', '.join(names)})"
    if gpu is None:
        return f"{names[0]} is not among the GPUs whose peaks are known"
    return f"{names[0]} has no {_PEAK_TEXT[peak]} peak"


def _named(name: str, gpu: Gpu) -> str:
    """The profile's GPU name, with the table's row when the name does not say it ('NVIDIA H100 80GB HBM3')."""
    return name if gpu.label in name else f"{name} (taken as {gpu.label})"
