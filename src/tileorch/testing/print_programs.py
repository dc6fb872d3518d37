"""cuTile programs with ``ct.printf`` / ``ct.print`` (unit tests, the GPU test and the comparison
with tileiras's output).  :data:`PROGRAMS` names each with its argument spec (as
:func:`tileorch.testing.export.cutile_bytecode` takes it) and its grid."""

from __future__ import annotations

import cuda.tile as ct


@ct.kernel
def print_block_id(x, n: ct.Constant[int]):
    """One scalar: each block prints its id."""
    ct.printf("block %d of %d\n", ct.bid(0), ct.num_blocks(0))


@ct.kernel
def print_int_tile(x, n: ct.Constant[int]):
    """A 1-D int32 tile (a range offset by the block id)."""
    t = ct.arange(n, dtype=ct.int32) + ct.bid(0) * 100
    ct.printf("ints %d end\n", t)


@ct.kernel
def print_float_tile(x, n: ct.Constant[int]):
    """A loaded f32/f16/bf16 tile with width and precision, and the same tile as %e."""
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.printf("floats %8.3f|%+.2e|\n", t, t)


@ct.kernel
def print_2d(x, n: ct.Constant[int]):
    """A 2-D tile (nested brackets) and a 3-D one."""
    t = ct.arange(n * 4, dtype=ct.int32).reshape((4, n))
    u = ct.arange(16, dtype=ct.int32).reshape((2, 2, 4))
    ct.printf("2d %3d 3d %x\n", t, u)


@ct.kernel
def print_long_row(x, n: ct.Constant[int]):
    """A tile of more than 32 elements (several vprintf calls under the lock) in a 2-D shape."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(2, n))
    ct.printf("row %.1f\n", t)


@ct.kernel
def print_big_nd(x, n: ct.Constant[int]):
    """A 4-D tile of 512 elements: a loop of 32-element calls whose separators close one or two
    dimensions."""
    t = ct.arange(512, dtype=ct.int32).reshape((2, 4, 8, 8)) - ct.bid(0)
    ct.printf("nd %d\n", t)


@ct.kernel
def print_in_loop(x, n: ct.Constant[int]):
    """A print in a loop: the loop counter and a loaded tile, %g."""
    for k in range(3):
        t = ct.load(x, index=(ct.bid(0) * 3 + k,), shape=(n,))
        ct.printf("k=%d t=%.3g\n", k, t)


@ct.kernel
def print_copy_rows(x, y, n: ct.Constant[int]):
    """A one-warp copy that prints a scalar (no barrier: several programs per CTA and per warp,
    each prints once)."""
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.store(y, index=(ct.bid(0),), tile=t)
    ct.printf("copied row %d\n", ct.bid(0))


@ct.kernel
def print_text_only(x, n: ct.Constant[int]):
    """A print without arguments, and octal/hex with the alternate form."""
    ct.printf("hello 100%%\n")
    ct.printf("octal %#o %#x\n", ct.bid(0) + 8, ct.bid(0) + 255)


@ct.kernel
def print_if(x, n: ct.Constant[int]):
    """A tile printed by one block only (a print inside an ``if``)."""
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    if ct.bid(0) == 1:
        ct.printf("only block 1: %.2f\n", t)


@ct.kernel
def print_types(x, n: ct.Constant[int]):
    """Every integer width and a bool, with ct.print's inferred conversions."""
    t = ct.arange(n, dtype=ct.int32) - 2
    ct.print(t > 0, t.astype(ct.int8), t.astype(ct.int16), t.astype(ct.int64), t.astype(ct.float64), sep=";")


@ct.kernel
def print_unsigned(x, n: ct.Constant[int]):
    """Unsigned tiles with ct.print's %u / %llu: the IR's integers carry no sign, so an 8- or
    16-bit element is sign-extended to the 32 bits %u reads (tileiras does the same)."""
    t = ct.arange(n, dtype=ct.int32) - 2
    ct.print(t.astype(ct.uint8), t.astype(ct.uint16), t.astype(ct.uint32), t.astype(ct.uint64))


@ct.kernel
def print_fstring(x, n: ct.Constant[int]):
    """ct.print of an f-string with a format spec, a literal percent sign and a scalar."""
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    i = ct.bid(0)
    ct.print(f"block={i} t={t:.2f} 100%", end="!\n")


@ct.kernel
def print_in_gemm(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A dot program that prints (the SIMT path, with a located warning)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(a, index=(i, k), shape=(tm, tk)), ct.load(b, index=(k, j), shape=(tk, tn)), acc)
    ct.printf("gemm block %d %d\n", i, j)
    ct.store(c, index=(i, j), tile=acc.astype(c.dtype))


def _f(*shape, dtype="float32"):
    return (shape, dtype)


PROGRAMS = {
    # name: (kernel, argument spec, grid)
    "block_id": (print_block_id, [_f(64), 4], (3,)),
    "int_tile": (print_int_tile, [_f(64), 8], (2,)),
    "float_f32": (print_float_tile, [_f(64), 4], (2,)),
    "float_f16": (print_float_tile, [_f(64, dtype="float16"), 4], (2,)),
    "float_bf16": (print_float_tile, [_f(64, dtype="bfloat16"), 4], (2,)),
    "nd": (print_2d, [_f(64), 4], (1,)),
    "long_row": (print_long_row, [_f(4, 64), 64], (2,)),
    "big_nd": (print_big_nd, [_f(64), 4], (2,)),
    "in_loop": (print_in_loop, [_f(64), 4], (2,)),
    "copy_rows": (print_copy_rows, [_f(160), _f(160), 32], (5,)),
    "text_only": (print_text_only, [_f(64), 4], (2,)),
    "if_block": (print_if, [_f(64), 8], (3,)),
    "types": (print_types, [_f(64), 4], (1,)),
    "unsigned": (print_unsigned, [_f(64), 4], (1,)),
    "fstring": (print_fstring, [_f(64), 4], (2,)),
}


def arguments(spec: list, device: str) -> list:
    """The kernel arguments of ``spec`` on ``device``: each array ``arange * 0.37 - 3.1`` in
    float64, then cast to its dtype (torch), scalars as they are."""
    import torch

    out = []
    for s in spec:
        if isinstance(s, tuple):
            shape, dtype = s
            numel = 1
            for d in shape:
                numel *= d
            x = torch.arange(numel, dtype=torch.float64).reshape(shape) * 0.37 - 3.1
            out.append(x.to(getattr(torch, dtype)).to(device))
        else:
            out.append(s)
    return out


__all__ = ["PROGRAMS", "arguments", "print_big_nd", "print_block_id", "print_copy_rows", "print_2d",
           "print_float_tile", "print_fstring", "print_if", "print_in_gemm", "print_in_loop", "print_int_tile",
           "print_long_row", "print_text_only", "print_types", "print_unsigned"]
