"""cuTile programs with ``ct.assert_`` (tests and the GPU check of ``__assertfail``)."""

from __future__ import annotations

import cuda.tile as ct


@ct.kernel
def checked_copy(x, y, tn: ct.Constant[int]):
    """``y = x`` tile by tile, asserting every element is below 100."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(tn,))
    ct.assert_(t < 100.0, "x must be below 100")
    ct.store(y, index=(i,), tile=t)


@ct.kernel
def checked_gemm(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``c = a @ b`` asserting the accumulator holds no NaN (a dot program with an assert)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(a, index=(i, k), shape=(tm, tk)), ct.load(b, index=(k, j), shape=(tk, tn)), acc)
    ct.assert_(acc == acc, "NaN in the accumulator")
    ct.store(c, index=(i, j), tile=acc.astype(c.dtype))


def assert_line(kernel) -> int:
    """The source line of ``kernel``'s ``ct.assert_`` call."""
    import inspect

    lines, first = inspect.getsourcelines(kernel._pyfunc if hasattr(kernel, "_pyfunc") else kernel.__wrapped__)
    return first + next(i for i, line in enumerate(lines) if "ct.assert_(" in line)


__all__ = ["assert_line", "checked_copy", "checked_gemm"]
