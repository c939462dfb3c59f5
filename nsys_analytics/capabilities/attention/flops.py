"""FLOPs, bytes moved and the roofline verdict of the pieces of self-attention, from the model shape.

Pure arithmetic, no database. One attention *instance* is one call over all heads of one layer:
B = batch, H = heads, T = sequence length, d = head dimension, s = bytes per element (docs/attention.md).

    QK^T (scores)   2·B·H·T²·d FLOPs     s·(2·B·H·T·d + B·H·T²) bytes  (read Q, K; write the T×T scores)
    mask            B·H·T² FLOPs         s·2·B·H·T² bytes              (read and write the scores)
    softmax         c·B·H·T² FLOPs       s·2·B·H·T² bytes              (c = 5: max, subtract, exp, sum, divide)
    attn·V (output) 2·B·H·T²·d FLOPs     s·(B·H·T² + 2·B·H·T·d) bytes  (read weights and V; write the output)
    fused           4·B·H·T²·d + c·B·H·T² s·4·B·H·T·d bytes            (Q, K, V in, O out; scores stay on chip)
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.errors import UsageError

DTYPE_BYTES = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}  # the --dtype choices
# "fp16/bf16": what a bare `f16` in a cuDNN kernel name says (precision.py); never a --dtype choice
_SIZES = {**DTYPE_BYTES, "fp16/bf16": 2}
DEFAULT_DTYPE = "fp32"  # when the kernel names give no data type, or disagree
DEFAULT_SOFTMAX_FLOPS = 5.0
PIECES = ("scores", "mask", "softmax", "output")
PIECE_LABELS = {
    "scores": "QK^T (scores)", "mask": "mask", "softmax": "softmax", "output": "attn·V (output)",
    "fused": "fused attention", "unassigned": "other kernels",
}


@dataclass(frozen=True)
class Shape:
    """The attention shape: batch, sequence length, heads and head dimension (d_model = heads x d_head)."""

    batch: int
    seq_len: int
    heads: int
    d_head: int

    @property
    def scores(self) -> int:
        """Elements of the T x T score matrices of one call over all heads: B·H·T²."""
        return self.batch * self.heads * self.seq_len ** 2

    @property
    def qkv(self) -> int:
        """Elements of one of Q, K, V or the output: B·H·T·d."""
        return self.batch * self.heads * self.seq_len * self.d_head

    def describe(self) -> str:
        return (f"B={self.batch}, T={self.seq_len}, H={self.heads}, d_head={self.d_head} "
                f"(d_model={self.heads * self.d_head})")


def shape_from_options(batch: int | None, seq_len: int | None, d_model: int | None, heads: int | None,
                       d_head: int | None) -> Shape | None:
    """A Shape from the command-line options, or None when one is missing (`missing_shape_options` says which).
    d_head is d_model / heads unless given; both given must agree."""
    if missing_shape_options(batch, seq_len, d_model, heads, d_head):
        return None
    if d_model is not None and d_model % heads:
        raise UsageError(f"--d-model {d_model} is not a multiple of --heads {heads}")
    derived = d_model // heads if d_model is not None else None
    if d_head is not None and derived is not None and d_head != derived:
        raise UsageError(f"--d-head {d_head} disagrees with --d-model {d_model} / --heads {heads} = {derived}")
    values = (batch, seq_len, heads, d_head or derived)
    if any(v <= 0 for v in values):
        raise UsageError("shape options must be positive integers")
    return Shape(*values)


def missing_shape_options(batch, seq_len, d_model, heads, d_head) -> list[str]:
    """The shape options still needed, as command-line flags."""
    missing = [flag for flag, v in (("--batch", batch), ("--seq-len", seq_len), ("--heads", heads)) if v is None]
    if d_head is None and d_model is None:
        missing.append("--d-model (or --d-head)")
    return missing


@dataclass(frozen=True)
class Cost:
    """FLOPs and bytes moved by one attention instance's piece, with the formulas written out."""

    flops: float
    bytes: float
    flops_formula: str
    bytes_formula: str

    @property
    def intensity(self) -> float:
        """Arithmetic intensity (FLOP per byte)."""
        return self.flops / self.bytes if self.bytes else 0.0


def piece_costs(shape: Shape, dtype_bytes: int, softmax_flops: float = DEFAULT_SOFTMAX_FLOPS) -> dict[str, Cost]:
    """The cost of each piece of one attention instance (keys: scores, mask, softmax, output, fused)."""
    s, t2, td = dtype_bytes, shape.scores, shape.qkv
    c = _number(softmax_flops)
    softmax_flops = int(softmax_flops) if float(softmax_flops).is_integer() else softmax_flops
    return {
        "scores": Cost(2 * t2 * shape.d_head, s * (2 * td + t2), "2·B·H·T²·d", f"{s}·(2·B·H·T·d + B·H·T²)"),
        "mask": Cost(t2, 2 * s * t2, "B·H·T²", f"{s}·2·B·H·T²"),
        "softmax": Cost(softmax_flops * t2, 2 * s * t2, f"{c}·B·H·T²", f"{s}·2·B·H·T²"),
        "output": Cost(2 * t2 * shape.d_head, s * (t2 + 2 * td), "2·B·H·T²·d", f"{s}·(B·H·T² + 2·B·H·T·d)"),
        "fused": Cost(4 * t2 * shape.d_head + softmax_flops * t2, 4 * s * td, f"4·B·H·T²·d + {c}·B·H·T²",
                      f"{s}·4·B·H·T·d"),
    }


def verdict(cost: Cost, time_ns: float, ridge: float, peaks: tuple[float, float] | None = None) -> tuple[str, str]:
    """('memory-bound' | 'compute-bound', the reason in one sentence) from the intensity and the ridge point;
    `peaks` (the GPU's TFLOP/s and TB/s) adds the share of the peak that limits the piece."""
    gbps = cost.bytes / time_ns if time_ns else 0.0  # bytes per ns = GB/s
    tflops = cost.flops / time_ns / 1e3 if time_ns else 0.0
    neither = _neither_peak(tflops, gbps, peaks)
    if cost.intensity < ridge:
        share = f", {100 * gbps / (peaks[1] * 1e3):.1f}% of the {peaks[1]:g} TB/s peak" if peaks else ""
        return "memory-bound", (
            f"{cost.intensity:.2f} FLOP/byte is below the ridge point ({ridge:g} FLOP/byte): it moves "
            f"{cost.bytes / 1e6:.2f} MB per call for {cost.flops / 1e6:.2f} MFLOP, so bandwidth "
            f"{'would limit' if neither else 'limits'} it (achieved {gbps:.0f} GB/s{share}){neither}")
    share = f", {100 * tflops / peaks[0]:.1f}% of the {peaks[0]:g} TFLOP/s peak" if peaks else ""
    return "compute-bound", (
        f"{cost.intensity:.1f} FLOP/byte is above the ridge point ({ridge:g} FLOP/byte): arithmetic "
        f"{'would limit' if neither else 'limits'} it (achieved {tflops:.2f} TFLOP/s{share}){neither}")


NEITHER_PCT = 25.0  # below this share of both peaks, the roofline's bound is not what holds a piece back


def _neither_peak(tflops: float, gbps: float, peaks: tuple[float, float] | None) -> str:
    """The caveat where a piece is far from both peaks: too small a kernel to approach either (latency, launch,
    occupancy hold it), so the roofline's side says where the limit would be, not what limits it now."""
    if not peaks:
        return ""
    compute, memory = 100 * tflops / peaks[0], 100 * gbps / (peaks[1] * 1e3)
    if max(compute, memory) >= NEITHER_PCT:
        return ""
    return (f"; at {compute:.1f}% of compute and {memory:.1f}% of bandwidth it reaches neither peak: at this size "
            "latency and launches hold it back, not the roofline")


def dtype_size(dtype: str) -> int:
    if dtype not in _SIZES:
        raise UsageError(f"dtype {dtype!r}: choose one of {', '.join(DTYPE_BYTES)}")
    return _SIZES[dtype]


def _number(x: float) -> str:
    return f"{x:g}"
