"""`annotate`: NVTX ranges on the `nvtx` package, as a context manager or a decorator, with an optional
configuration written into the range name the way `ncu --group-by nvtx` and `--derive` read it back
(ncu/config.py): `annotate("matmul", M=1024, N=64)` opens `matmul[M=1024,N=64]`.

    with annotate("forward"):
        model(x)

    @annotate("attention", seq_len=256)
    def attention(q, k, v): ...

Ranges are push/pop ranges of the calling thread (the kind nsys attributes kernels to by thread). Without a
tool attached (nsys, ncu) the `nvtx` calls do nothing measurable. `nvtx` (and the numpy it loads) is imported
on the first range, not with nsys_analytics.
"""

from __future__ import annotations

import contextvars
import functools
import re
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
_RESERVED = re.compile(r"[\[\],=]")
# The configuration of the benchmark run in progress (bench.py): every annotation inside it carries it.
current_config: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("current_config",
                                                                                       default=None)


def range_name(name: str, **config: Any) -> str:
    """`name[K=V,...]` in the keyword order given; the bare name without a configuration.

    Values are ints, floats, bools or strings; numbers read back as numbers (`1024` -> 1024, `0.5` -> 0.5),
    anything else as text. Names and values may not hold `[`, `]`, `,` or `=`.
    """
    _check("annotation", name)
    if not config:
        return name
    parts = []
    for key, value in config.items():
        _check("parameter", key)
        if not isinstance(value, (int, float, str)):
            raise TypeError(f"annotate({name!r}): {key}={value!r}: use a number, a bool or a string")
        text = repr(value) if isinstance(value, float) else str(value)
        _check(f"value of {key}", text)
        parts.append(f"{key}={text}")
    return f"{name}[{','.join(parts)}]"


def _check(what: str, text: str) -> None:
    if not text or _RESERVED.search(text) or text != text.strip():
        raise ValueError(f"{what} {text!r}: must be non-empty, without '[', ']', ',', '=' or edge spaces")


class annotate:
    """An NVTX push/pop range `name` (with `config` in its name), as `with annotate(...)` or `@annotate(...)`.

    `domain`: an NVTX domain (default: nvtx's default domain); `color`: as nvtx takes it.
    As a decorator without a name, the range is named after the function.
    """

    def __init__(self, name: str | None = None, *, domain: str | None = None, color: str | int | None = None,
                 **config: Any):
        self.name = None if name is None else range_name(name, **config)  # checked now, not at first use
        self._base, self._config = name, config
        self.domain = domain
        self.color = color

    def _full_name(self, base: str) -> str:
        """The range name: inside a benchmark run, with the run's configuration before our own."""
        outer = current_config.get()
        if outer:
            return range_name(base, **{**outer, **self._config})
        return self.name if base == self._base and self.name else range_name(base, **self._config)

    def __enter__(self) -> annotate:
        if self._base is None:
            raise ValueError("annotate() as a context manager needs a name")
        import nvtx

        nvtx.push_range(self._full_name(self._base), color=self.color, domain=self.domain)
        return self

    def __exit__(self, *exc) -> None:
        import nvtx

        nvtx.pop_range(domain=self.domain)

    def __call__(self, func: F) -> F:
        base = self._base or func.__name__
        range_name(base, **self._config)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            import nvtx

            nvtx.push_range(self._full_name(base), color=self.color, domain=self.domain)
            try:
                return func(*args, **kwargs)
            finally:
                nvtx.pop_range(domain=self.domain)

        return wrapper  # type: ignore[return-value]
