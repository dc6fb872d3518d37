"""Review 30: the first hour of a new cuTile user porting model code -- fused model blocks written with cuTile's
Python API (RMSNorm + residual writing two outputs, SwiGLU / GeGLU on the two halves of one tile, RoPE on
interleaved and half-split layouts, softmax with a temperature and a padding mask from an int array, top-k by
repeated argmax, a dropout mask from an integer hash of the index), exported to bytecode on the CPU, compiled for
sm_90a through the launcher's own argument description (``describe_arguments`` / ``export_bytecode`` /
``pack_simt_arguments``: a numpy view's strides and offset reach the kernel as a device array's would) and run CTA
by CTA on the PTX emulator against numpy with NaN / sentinel-prefilled outputs.  Needs cuda-tile and ml_dtypes.

:func:`run` is this review's runner (the other ``test_review30_*`` files import it)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

C = ct.Constant
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF
BF16 = ml_dtypes.bfloat16
RNG = np.random.default_rng(3030)
SENTINEL = 77


class _DeviceView:
    """A numpy array (or a view of one) as cuTile's argument description reads a device array: the address of
    the view's first element in :func:`run`'s memory, its shape, its strides in bytes and its element type."""

    def __init__(self, ptr: int, a: np.ndarray):
        ml = a.dtype.kind == "V" or a.dtype.name.startswith("float8")  # an ml_dtypes type (bf16, fp8): the interface has none, set afterwards
        typestr = f"<u{a.dtype.itemsize}" if ml else a.dtype.str
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": a.shape, "typestr": typestr,
                                         "strides": a.strides, "version": 3}
        self.dtype_name = "bool_" if a.dtype == np.bool_ else a.dtype.name


def _root(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def compile_for(kernel, args, name):
    """The program tileorch compiles for ``kernel(*args)`` (numpy arrays / views, Python scalars and constants),
    and the launcher's description of the arguments at the memory :func:`run` places them in."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.compile_memo import compile_once

    described, roots = [], {}
    for a in args:
        if isinstance(a, np.ndarray):
            r = _root(a)
            base = roots.setdefault(id(r), (r, (len(roots) + 1) << 40))[1]
            v = _DeviceView(base + _address(a) - _address(r), a)
            described.append(v)
        else:
            described.append(a)
    arguments = [dataclasses.replace(a, dtype=v.dtype_name) if isinstance(v, _DeviceView) else a
                 for a, v in zip(rc.describe_arguments(kernel, tuple(described)), described)]
    data = rc.export_bytecode(kernel, arguments)
    prog = compile_once(data, name, arch="sm_90a", ptxas=False)
    return prog, arguments, roots


def _param_values(ptx: str, packed: list[bytes]) -> list[int]:
    from tileorch.testing.ptx_emulator import parse

    names = parse(ptx)[0]
    assert len(names) >= len(packed), (names, len(packed))
    return [int.from_bytes(b, "little", signed=False) for b in packed]


def run(kernel, args, grid, name=None, kind="simt", windows=()):
    """``kernel[grid](*args)`` on the PTX emulator (a SIMT-path program); the arrays of ``args`` are updated in
    place (views write through to their base arrays).  Returns the compiled program (``kind`` checked).
    ``windows``: ``(argument position, byte offset, uint8 array)`` -- the memory of that argument's array, at
    that offset from its address (the far rows of an array too large to hold, given as an ``as_strided`` view
    whose own memory is not read)."""
    import test_user_sweep10_emulated as s10e
    from tileorch.launchers import cutile as rc

    name = name or f"rv30_{kernel._pyfunc.__name__}"
    prog, arguments, roots = compile_for(kernel, args, name)
    assert prog.kind == kind, (name, prog.kind, prog.remarks)
    memory = []
    held = {id(_root(args[pos])) for pos, _, _ in windows}  # (an array given by its windows alone)
    for key, (r, base) in roots.items():
        if key in held:
            continue
        assert r.flags.c_contiguous or r.flags.f_contiguous, "a view's base array must be contiguous"
        raw = r.ravel(order="K").view(np.uint8)  # (the memory itself, in address order)
        memory.append((base, raw, f"root{base >> 32}"))
    for pos, offset, raw in windows:
        memory.append((arguments[pos].ptr + offset, raw, f"window{pos}_{offset}"))
    s10e.run_grid(name, prog, _param_values(prog.ptx, rc.pack_simt_arguments(arguments)), memory, grid)
    return prog


def nans(shape, dtype=np.float32):
    return np.full(shape, np.nan, dtype)


def sent(shape, dtype=np.int32):
    return np.full(shape, SENTINEL, dtype)


def close(got, want, rtol=1e-5, atol=1e-6):
    got = np.asarray(got, np.float64)
    assert not np.isnan(got).any() or np.isnan(want).any(), "unwritten outputs"
    np.testing.assert_allclose(got, np.asarray(want, np.float64), rtol=rtol, atol=atol, equal_nan=True)


def randn(*shape, dtype=np.float32, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(dtype)


# ----------------------------------------------------------------------------------------------- RMSNorm + residual

@ct.kernel
def rmsnorm_residual(X, R, W, H, Y, eps: float, BN: C[int]):
    """h = x + residual (stored, the next block's residual), y = h * rsqrt(mean(h^2) + eps) * w; one row each."""
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    r = ct.load(R, index=(row, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    h = x + r
    ct.store(H, index=(row, 0), tile=h.astype(H.dtype))
    ms = ct.sum(h * h, axis=1, keepdims=True) / X.shape[1]
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(row, 0), tile=(h * ct.rsqrt(ms + eps) * w[None, :]).astype(Y.dtype))


def test_rmsnorm_with_residual_writes_both(  ):
    m, n = 5, 100
    x, r, w = randn(m, n, dtype=BF16), randn(m, n, dtype=BF16), randn(n, dtype=BF16)
    h, y = nans((m, n), BF16), nans((m, n), BF16)
    run(rmsnorm_residual, [x, r, w, h, y, 1e-6, 128], (m,))
    h64 = x.astype(np.float64) + r.astype(np.float64)
    close(h, h64.astype(BF16), 0, 0)
    want = h64.astype(BF16).astype(np.float64)
    want = h64 / np.sqrt((h64 * h64).mean(1, keepdims=True) + 1e-6) * w.astype(np.float64)
    close(y, want, 1.6e-2, 1e-2)


# ----------------------------------------------------------------------------------------------- gated units

@ct.kernel
def swiglu_halves(X, Y, BM: C[int], BN: C[int]):
    """x = [gate | up] (2N columns) loaded as one tile; y = silu(gate) * up."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(BM, 2 * BN), padding_mode=ZERO).astype(ct.float32)
    g = ct.extract(x, index=(0, 0), shape=(BM, BN))
    u = ct.extract(x, index=(0, 1), shape=(BM, BN))
    ct.store(Y, index=(i, 0), tile=(g / (1.0 + ct.exp(-g)) * u).astype(Y.dtype))


@ct.kernel
def geglu_tanh_halves(X, Y, BM: C[int], BN: C[int]):
    """y = gelu_tanh(x[:, :N]) * x[:, N:] from one tile."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(BM, 2 * BN), padding_mode=ZERO).astype(ct.float32)
    g = ct.extract(x, index=(0, 0), shape=(BM, BN))
    u = ct.extract(x, index=(0, 1), shape=(BM, BN))
    inner = 0.7978845608028654 * (g + 0.044715 * g * g * g)
    ct.store(Y, index=(i, 0), tile=(0.5 * g * (1.0 + ct.tanh(inner)) * u).astype(Y.dtype))


def _silu(g):
    return g / (1 + np.exp(-g))


def _gelu_tanh(g):
    return 0.5 * g * (1 + np.tanh(0.7978845608028654 * (g + 0.044715 * g ** 3)))


@pytest.mark.parametrize("kernel,f", [(swiglu_halves, _silu), (geglu_tanh_halves, _gelu_tanh)])
def test_gated_unit_on_the_two_halves_of_one_tile(kernel, f):
    m, n = 24, 32
    x = randn(m, 2 * n, dtype=np.float16)
    y = nans((m, n), np.float16)
    run(kernel, [x, y, 8, n], (3,))
    x64 = x.astype(np.float64)
    close(y, f(x64[:, :n]) * x64[:, n:], 4e-3, 2e-3)


# ----------------------------------------------------------------------------------------------- RoPE

@ct.kernel
def rope_interleaved(X, Cos, Sin, Y, BT: C[int], D: C[int]):
    """Pairs (x[2i], x[2i+1]) rotated by the position's angle i (GPT-J layout)."""
    t = ct.bid(0)
    x = ct.load(X, index=(t, 0), shape=(BT, D), padding_mode=ZERO).astype(ct.float32)
    xp = ct.reshape(x, (BT, D // 2, 2))
    x0 = ct.reshape(ct.extract(xp, index=(0, 0, 0), shape=(BT, D // 2, 1)), (BT, D // 2))
    x1 = ct.reshape(ct.extract(xp, index=(0, 0, 1), shape=(BT, D // 2, 1)), (BT, D // 2))
    c = ct.load(Cos, index=(t, 0), shape=(BT, D // 2), padding_mode=ZERO)
    s = ct.load(Sin, index=(t, 0), shape=(BT, D // 2), padding_mode=ZERO)
    y0 = x0 * c - x1 * s
    y1 = x0 * s + x1 * c
    y = ct.reshape(ct.cat((ct.reshape(y0, (BT, D // 2, 1)), ct.reshape(y1, (BT, D // 2, 1))), axis=2), (BT, D))
    ct.store(Y, index=(t, 0), tile=y.astype(Y.dtype))


@ct.kernel
def rope_half_split(X, Cos, Sin, Y, BT: C[int], D: C[int]):
    """y = x * cos + rotate_half(x) * sin (NeoX layout: halves [x1 | x2] -> [-x2 | x1]), cos / sin of D/2
    columns broadcast over both halves; a 3-D (tokens, heads, D) array, heads on program axis 1."""
    t, h = ct.bid(0), ct.bid(1)
    x = ct.reshape(ct.load(X, index=(t, h, 0), shape=(BT, 1, D), padding_mode=ZERO), (BT, D)).astype(ct.float32)
    x1 = ct.extract(x, index=(0, 0), shape=(BT, D // 2))
    x2 = ct.extract(x, index=(0, 1), shape=(BT, D // 2))
    c = ct.load(Cos, index=(t, 0), shape=(BT, D // 2), padding_mode=ZERO)
    s = ct.load(Sin, index=(t, 0), shape=(BT, D // 2), padding_mode=ZERO)
    y = ct.cat((x1 * c - x2 * s, x2 * c + x1 * s), axis=1)
    ct.store(Y, index=(t, h, 0), tile=ct.reshape(y, (BT, 1, D)).astype(Y.dtype))


def _angles(t, d):
    inv = 1.0 / (10000 ** (np.arange(0, d, 2) / d))
    ang = np.arange(t)[:, None] * inv[None, :]
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def test_rope_interleaved_pairs():
    t, d = 13, 32
    x = randn(t, d, dtype=np.float16)
    c, s = _angles(t, d)
    y = nans((t, d), np.float16)
    run(rope_interleaved, [x, c, s, y, 8, d], (2,))
    x64 = x.astype(np.float64)
    want = np.empty((t, d))
    want[:, 0::2] = x64[:, 0::2] * c - x64[:, 1::2] * s
    want[:, 1::2] = x64[:, 0::2] * s + x64[:, 1::2] * c
    close(y, want, 2e-3, 2e-3)


def test_rope_half_split_on_tokens_heads_dim():
    t, heads, d = 10, 3, 16
    x = randn(t, heads, d, dtype=BF16)
    c, s = _angles(t, d)
    y = nans((t, heads, d), BF16)
    run(rope_half_split, [x, c, s, y, 4, d], (3, heads))
    x64 = x.astype(np.float64)
    x1, x2 = x64[..., :d // 2], x64[..., d // 2:]
    cc, ss = c[:, None, :], s[:, None, :]
    close(y, np.concatenate([x1 * cc - x2 * ss, x2 * cc + x1 * ss], -1), 1.6e-2, 1e-2)


# ----------------------------------------------------------------------------------------------- softmax, top-k

@ct.kernel
def softmax_temperature_lengths(X, Len, Y, inv_t: float, BM: C[int], BN: C[int]):
    """softmax(x / T) over each row's first len[row] columns; padded columns written 0."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(BM, BN), padding_mode=NEG_INF).astype(ct.float32) * inv_t
    n = ct.load(Len, index=(i,), shape=(BM,), padding_mode=ZERO)
    keep = ct.arange(BN, dtype=ct.int32)[None, :] < n[:, None]
    x = ct.where(keep, x, -float("inf"))
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(i, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(Y.dtype))


def test_softmax_with_temperature_and_a_length_mask():
    m, n = 7, 13
    x = randn(m, n, dtype=np.float32, scale=3)
    lens = np.array([1, 13, 5, 12, 2, 7, 9], np.int32)
    y = nans((m, n))
    run(softmax_temperature_lengths, [x, lens, y, 1 / 0.7, 4, 16], (2,))
    z = x.astype(np.float64) / 0.7
    z[np.arange(n)[None, :] >= lens[:, None]] = -np.inf
    e = np.exp(z - z.max(1, keepdims=True))
    close(y, e / e.sum(1, keepdims=True), 2e-6, 1e-7)


@ct.kernel
def topk_by_argmax(X, V, I, K: C[int], BM: C[int], BN: C[int]):
    """The k largest of each row (values and column indices, descending) by k argmax passes."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(BM, BN), padding_mode=NEG_INF)
    cols = ct.arange(BN, dtype=ct.int32)[None, :]
    for j in range(K):
        a = ct.argmax(x, axis=1, keepdims=True)
        ct.store(V, index=(i, j), tile=ct.max(x, axis=1, keepdims=True))
        ct.store(I, index=(i, j), tile=a.astype(ct.int32))
        x = ct.where(cols == a, -float("inf"), x)


def test_topk_by_repeated_argmax():
    m, n, k = 9, 29, 3
    x = RNG.permutation(m * n).reshape(m, n).astype(np.float32)
    v, idx = nans((m, k)), sent((m, k))
    run(topk_by_argmax, [x, v, idx, k, 4, 32], (3,))
    order = np.argsort(-x, axis=1)[:, :k]
    np.testing.assert_array_equal(idx, order)
    np.testing.assert_array_equal(v, np.take_along_axis(x, order, 1))


# ----------------------------------------------------------------------------------------------- dropout

@ct.kernel
def hash_dropout(X, Y, Keep, seed: int, p_keep16: int, BM: C[int], BN: C[int]):
    """A counter-based keep mask: h = ((row * N + col) ^ seed) * 0x9E3779B1, h ^= h >> 16 (uint32); kept when the
    top 16 bits < p_keep16; y = x / p or 0; the mask stored as int8."""
    i, j = ct.bid(0), ct.bid(1)
    r = (i * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    c = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
    h = ((r * X.shape[1] + c) ^ seed).astype(ct.uint32) * 0x9E3779B1
    h = h ^ (h >> 16)
    keep = (h >> 16) < ct.astype(p_keep16, ct.uint32)
    x = ct.load(X, index=(i, j), shape=(BM, BN), padding_mode=ZERO)
    scale = 65536.0 / p_keep16
    ct.store(Y, index=(i, j), tile=ct.where(keep, x * scale, 0.0).astype(Y.dtype))
    ct.store(Keep, index=(i, j), tile=keep.astype(ct.int8))


def test_dropout_mask_from_an_integer_hash():
    m, n, seed, pk = 11, 37, 0x1234567, 45875
    x = randn(m, n, dtype=np.float32)
    y, keep = nans((m, n)), sent((m, n), np.int8)
    run(hash_dropout, [x, y, keep, seed, pk, 8, 16], (2, 3))
    lin = (np.arange(m)[:, None] * n + np.arange(n)[None, :]).astype(np.int64)
    h = ((lin ^ seed) & 0xFFFFFFFF) * 0x9E3779B1 & 0xFFFFFFFF
    h ^= h >> 16
    want_keep = (h >> 16) < pk
    np.testing.assert_array_equal(keep, want_keep.astype(np.int8))
    close(y, np.where(want_keep, x * np.float32(65536.0 / pk), 0), 1e-6)
