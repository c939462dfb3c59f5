"""Time `--format table` laying out many long kernel names: whole (piped), and at 200, 120 and 80 columns, where
each name is shortened to a text that no other name of its column shows (output/render.py).

    python bench/bench_render.py [--names 500,1600,3000]

The names are made up but shaped like real ones: cuBLAS tiles that differ in layout, tile, stage, warp shape and
alignment, and PyTorch elementwise kernels that differ in their functor. Each size is laid out in this process,
best of three; prints seconds per width.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nsys_analytics.core.result import Result  # noqa: E402
from nsys_analytics.output.render import to_table  # noqa: E402
from nsys_analytics.output.terminal import laid_out  # noqa: E402

WIDTHS = (None, 200, 120, 80)


def names(count: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    out: set[str] = set()
    while len(out) < count:
        a, b, c = rng.choice([32, 64, 128, 256]), rng.choice([32, 64, 128]), rng.choice([8, 16, 32])
        layout = rng.choice(["nn", "nt", "tn", "tt"])
        out.add(f"sm80_xmma_gemm_f32f32_f32f32_f32_{layout}_n_tilesize{a}x{b}x{c}_stage{rng.randint(2, 6)}_warpsize"
                f"{rng.randint(1, 4)}x{rng.randint(1, 4)}x1_ffma_aligna{rng.choice([1, 2, 4])}_alignc4_execute_kernel"
                f"__5x_cublas" + ("_splitK" if rng.random() < .5 else ""))
        out.add(f"void at::native::elementwise_kernel<(int){rng.choice([128, 256])}, (int)2, void at::native::"
                f"gpu_kernel_impl_nocast<at::native::Functor{rng.randint(1, 400)}<float>>(at::TensorIteratorBase &, "
                f"const T1 &)::[lambda(int) (instance {rng.randint(1, 3)})]>(int, T3)")
    return sorted(out)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--names", default="500,1600,3000")
    sizes = [int(n) for n in parser.parse_args().names.split(",")]
    print("| names | " + " | ".join("piped" if w is None else f"{w} columns" for w in WIDTHS) + " |")
    print("| ---: |" + " ---: |" * len(WIDTHS))
    for size in sizes:
        rows = [(i, 1000 - i % 1000, n) for i, n in enumerate(names(size))]
        result = Result(["n", "time_ns", "name"], rows, [], ["Instances", "Total Time (ns)", "Name"])
        cells = []
        for width in WIDTHS:
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                with laid_out(width):
                    to_table(result)
                best = min(best, time.perf_counter() - start)
            cells.append(f"{best:.2f} s")
        print(f"| {size:,} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
