"""core/memory.py: freed heap memory goes back to the system (glibc), measured on the process's resident size."""

from __future__ import annotations

import subprocess
import sys

import pytest

from nsys_analytics.core.memory import _malloc_trim

# Frees 300 arrays of 1 MB, each followed on the heap by a small object that stays: glibc keeps their pages (the
# heap's top cannot shrink past the objects left), until give_back_freed(). The 20 MB array freed first raises the
# mmap threshold above 1 MB, as numpy's large temporaries do in a real pass.
_SCRIPT = """
import numpy as np
from nsys_analytics.core.memory import give_back_freed

def rss():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) // 1024 for line in f if line.startswith("VmRSS"))

big = np.ones(20 * 2**20 // 8)
del big
arrays, kept = [], []
for i in range(300):
    arrays.append(np.ones(2**20 // 8))
    kept.append(np.ones(2048))  # 16 kB from the heap, after each array
held = rss()
del arrays
freed = rss()
give_back_freed()
print(held, freed, rss())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or _malloc_trim() is None, reason="glibc only")
def test_freed_heap_pages_go_back_to_the_system():
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, check=True).stdout
    held, freed, after = map(int, out.split())
    assert held - freed < 100, (held, freed, after)  # without it, freeing the arrays keeps most of their 300 MB
    assert freed - after > 250, (held, freed, after)
