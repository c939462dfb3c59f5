"""The story of a substitution, for `diff`'s headline: a fused operation's kernels gone and the kernels of its
unfused form come in their place (or the reverse), in the same NVTX ranges, told in one sentence with the net change
per step ("fused attention (FlashAttention) gone; unfused softmax, masking and batched matmul took its place:
attention +15.8 ms per step"); else kernels of one family replaced by others of the same family ("matmul kernels
replaced in `:forward` (cuBLAS gone, nvjet (cuBLASLt) in their place): matmul -0.412 ms of kernel time per step").

Families are the kernel categories (categories/kernel_categories.toml): a fused category, and the categories its
unfused form is made of. Rows are those of diff's kernel table (one per kernel and range, per step). Pure Python."""

from __future__ import annotations

import re
from dataclasses import dataclass

# fused category -> the categories of the kernels that do its work when it is not fused
FUSED = {
    "attention": ("matmul", "softmax", "elementwise", "reduction", "memory"),
    "normalization": ("reduction", "elementwise", "memory"),  # a fused layer/RMS norm, or mean, var and scaling
    "softmax": ("reduction", "elementwise"),                   # a fused softmax, or max, exp, sum and divide
    "loss": ("softmax", "reduction", "elementwise", "memory"),  # a fused cross-entropy, or its steps
}
MIN_SHARE = 0.02  # a story only where the fused kernels weigh at least this share of their side's kernel time

_LABELS = (  # what the fused kernels are, from their names (first match)
    (re.compile(r"(?i)cudnn|sdpa|fort_native"), "cuDNN SDPA"),
    (re.compile(r"(?i)flash"), "FlashAttention"),
    (re.compile(r"(?i)fmha|efficient"), "memory-efficient attention"),
)
_LIBRARIES = (  # which library or generator a kernel comes from, by its name (first match), for a swap's story
    (re.compile(r"(?i)nvjet"), "nvjet (cuBLASLt)"),
    (re.compile(r"(?i)cutlass"), "CUTLASS"),
    (re.compile(r"(?i)^triton_|triton"), "Triton"),
    (re.compile(r"(?i)cudnn|xmma_.*conv|implicit_gemm"), "cuDNN"),
    (re.compile(r"(?i)sm\d+_xmma|cublas|gemm|volta_|ampere_|turing_"), "cuBLAS"),
)
_WORDS = (  # (category, name pattern or None, the word for such kernels), in the order the sentence names them
    ("softmax", None, "softmax"),
    ("elementwise", re.compile(r"(?i)masked_fill|where|mask|tril|triu|bitwise_not|logical_not"), "masking"),
    ("matmul", re.compile(r"(?i)bmm|batched|strided"), "batched matmul"),
    ("matmul", None, "matmul"),
    ("elementwise", None, "elementwise"),
    ("reduction", None, "reductions"),
    ("memory", None, "copies"),
)


@dataclass(frozen=True)
class Story:
    """A substitution: what went and what came (`text`), the fused family, and the change of the kernel time of
    the kernels involved (per step)."""

    text: str
    family: str
    kernel_ns: float

    def sentence(self, unit: str = "per step", step_ns: float | None = None) -> str:
        """The story with its net change: the kernels' (`kernel_ns`), or, where the story is the step's change
        (`step_ns`, the step time's change), that with the kernels' part of it."""
        if step_ns is None:
            return f"{self.text}: {self.family} {_signed_ms(self.kernel_ns)} of kernel time {unit}"
        kernels = f"{_signed_ms(self.kernel_ns)} of it in kernels"
        return f"{self.text}: {self.family} {_signed_ms(step_ns)} {unit} ({kernels})"


@dataclass(frozen=True)
class Row:
    """One row of the kernel table: what the story needs of it."""

    status: str
    category: str
    range: str | None
    base_ns: float  # per step
    new_ns: float
    base_instances: float  # per step
    new_instances: float
    name: str

    @property
    def change_ns(self) -> float:
        return self.new_ns - self.base_ns


def substitution(rows: list[Row], only_base: set[str], only_new: set[str], kernel_ns: tuple[float, float]
                 ) -> Story | None:
    """The story when a fused family's kernels disappeared and its unfused form appeared in the same ranges (or
    ranges only the new side has), or the reverse; None otherwise. `only_base`/`only_new`: range families found on
    one side only; `kernel_ns`: each side's kernel time (per step)."""
    for fused, parts in FUSED.items():
        for gone_side in (0, 1):
            story = _story(rows, fused, parts, gone_side, (only_base, only_new), kernel_ns)
            if story:
                return story
    return swap(rows, kernel_ns)


def swap(rows: list[Row], kernel_ns: tuple[float, float]) -> Story | None:
    """Kernels of one operation family replaced by others of the same family in the same ranges (a matmul of another
    library or tile, a norm of another implementation), each side's weighing at least MIN_SHARE of its kernel time;
    of several families, the one whose change weighs most. None otherwise."""
    best = None
    for family in sorted({r.category for r in rows}):
        gone = [r for r in rows if r.category == family and r.status == "disappeared"]
        came = [r for r in rows if r.category == family and r.status == "appeared"
                and r.range in {g.range for g in gone}]
        gone = [r for r in gone if r.range in {c.range for c in came}]
        if not gone or not came:
            continue
        before, after = sum(r.base_ns for r in gone), sum(r.new_ns for r in came)
        if before < MIN_SHARE * kernel_ns[0] or after < MIN_SHARE * kernel_ns[1]:
            continue
        net = after - before
        if best is None or abs(net) > abs(best[2]):
            best = (family, (gone, came), net)
    if best is None:
        return None
    family, (gone, came), net = best
    ranges = sorted({r.range for r in came}, key=lambda x: -sum(r.new_ns for r in came if r.range == x))
    where = ", ".join(f"`{r}`" for r in ranges[:2]) + (" and others" if len(ranges) > 2 else "")
    return Story(f"{family} kernels replaced in {where} ({_library(gone)} gone, {_library(came)} in their place)",
                 family, net)


def _story(rows, fused, parts, gone_side, only, kernel_ns) -> Story | None:
    """gone_side 0: the fused kernels disappeared (new side unfused); 1: they appeared."""
    fused_status = "disappeared" if gone_side == 0 else "appeared"
    fused_rows = [r for r in rows if r.category == fused and r.status == fused_status]
    weight = sum(abs(r.change_ns) for r in fused_rows)
    if not fused_rows or weight < MIN_SHARE * kernel_ns[gone_side]:
        return None
    own = only[1 - gone_side]  # ranges only the unfused side has: what runs there is the unfused form
    ranges = {r.range for r in fused_rows} | own
    part_rows = [r for r in rows if r.category in parts and r.range in ranges
                 and (r.range in own or _took_part(r, gone_side))]
    seen = {r.category for r in part_rows if r.range in own}
    if seen:  # in ranges both sides have (backward, say), only the kinds of kernel the unfused form showed alone
        part_rows = [r for r in part_rows if r.range in own or r.category in seen]
    sign = 1 if gone_side == 0 else -1  # the unfused form adds time where the fused one went
    if not part_rows or sum(r.change_ns for r in part_rows) * sign <= 0:
        return None
    net = sum(r.change_ns for r in fused_rows) + sum(r.change_ns for r in part_rows)
    label = _label([r.name for r in fused_rows])
    words = _words(part_rows)
    fused_text = f"fused {fused} ({label})" if label else f"fused {fused}"
    if gone_side == 0:
        return Story(f"{fused_text} gone; unfused {words} took its place", fused, net)
    return Story(f"unfused {words} gone; {fused_text} took their place", fused, net)


def _took_part(r: Row, gone_side: int) -> bool:
    """Kernels of the unfused form: appeared (disappeared) in these ranges, or launched more (fewer) times per step
    under the same name there."""
    if gone_side == 0:
        return r.status == "appeared" or (r.status in ("changed", "same") and r.new_instances > r.base_instances)
    return r.status == "disappeared" or (r.status in ("changed", "same") and r.new_instances < r.base_instances)


def _library(rows: list[Row]) -> str:
    """The library of the heaviest kernels among `rows` (by name), else the heaviest kernel's short name."""
    heaviest = max(rows, key=lambda r: max(r.base_ns, r.new_ns))
    for pattern, library in _LIBRARIES:
        if pattern.search(heaviest.name):
            return library
    name = heaviest.name.split("(")[0].split("<")[0].removeprefix("void ").strip()
    return name if len(name) <= 40 else name[:39] + "…"


def _label(names: list[str]) -> str | None:
    for pattern, label in _LABELS:
        if any(pattern.search(n) for n in names):
            return label
    return None


def _words(rows: list[Row]) -> str:
    """The unfused kernels in words, the operations first: 'softmax, masking, batched matmul and copies' (one
    matmul word: batched where any of them says so)."""
    found = {next(w for cat, pattern, w in _WORDS if cat == r.category and (pattern is None or pattern.search(r.name)))
             for r in rows}
    if "batched matmul" in found:
        found.discard("matmul")
    words = [w for _, _, w in _WORDS if w in found]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _signed_ms(ns: float) -> str:
    sign = "+" if ns > 0 else "-" if ns < 0 else ""
    ms = abs(ns) / 1e6
    return f"{sign}{ms:,.3f} ms" if ms < 10 else f"{sign}{ms:,.1f} ms"
