"""Review 29: a new cuTile user's tile programs (SIMT path) -- composed tile ops, program ids, constants,
dtypes and refusals, each exported to bytecode on the CPU, compiled for sm_90a and run on the PTX emulator
against numpy with NaN / sentinel-prefilled outputs.

* Composed ops: permute then reduce, reshape then broadcast, ``ct.cat`` along both axes, ``ct.extract``,
  ``ct.insert``, ``ct.where`` with row and column masks, ``ct.cumsum`` and a custom ``ct.scan`` down axis 0,
  a custom ``ct.reduce`` (max of absolute values), argmax down axis 0 over a ragged tile, a 5-D permute,
  a load in Fortran order.
* Program ids: a 3-D grid linearised with ``num_blocks``, a grid-stride loop, a grid of 150 programs, a
  loop over ``ct.num_tiles``.
* Constants and dtypes: a ``ct.Constant`` of 12 used as a scalar (a tile shape must be a power of two:
  cuTile itself refuses 48 at the load), f64 math and sums, bool tiles, int64 gather indices, bf16 atomics
  to repeated indices, f64 exchange, a scalar stored as a tile, ``astype`` between every pair of
  f16 / bf16 / f32 / int8 / uint8 / int32 at NaN, infinities, -0.0 and out-of-range values.
* Refused at the user's line: f64 ``sin`` (f64 ``exp`` / ``log`` are computed since session 32: f64_math.py), an e8m0 tile, ``ct.mma_scaled``.
Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402
from test_review28_integer_loops import emulate  # noqa: E402,F401  (the fixture: SIMT programs on the emulator)

from tileorch.testing.user_programs import UserProgram  # noqa: E402

C = ct.Constant
ZERO = ct.PaddingMode.ZERO
NP_BF16 = ml_dtypes.bfloat16
RNG = np.random.default_rng(2930)
SENTINEL = 77


def _f(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _nan(*shape, dtype=np.float32):
    return np.full(shape, np.nan, dtype)


# ----------------------------------------------------------------------------------------------- the programs

@ct.kernel
def permute_then_reduce(X, Y, A: C[int], B: C[int], N: C[int]):
    p = ct.permute(ct.load(X, index=(0, 0, 0), shape=(A, B, N)), (2, 0, 1))  # [N, A, B]
    ct.store(Y, index=(0, 0), tile=ct.sum(p, axis=0))


@ct.kernel
def reshape_then_broadcast(X, V, Y, BM: C[int], BN: C[int]):
    bm = ct.bid(0)
    v = ct.reshape(ct.load(V, index=(0,), shape=(BM * BN,)), (BM, BN))
    r = ct.load(X, index=(bm,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(bm, 0), tile=v + ct.broadcast_to(ct.reshape(r, (1, BN)), (BM, BN)))


@ct.kernel
def cat_two_axes(X, Z, Y, BM: C[int], BN: C[int]):
    r = ct.cat((ct.load(X, index=(0, 0), shape=(BM, BN)), ct.load(Z, index=(0, 0), shape=(BM, BN)) * 2.0), axis=0)
    ct.store(Y, index=(0, 0), tile=ct.cat((r, -r), axis=1))


@ct.kernel
def extract_then_insert(X, Z, Y, E, BM: C[int], BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(2 * BM, 2 * BN))
    ct.store(E, index=(0, 0), tile=ct.extract(x, index=(1, 0), shape=(BM, BN)) + 1.0)
    ct.store(Y, index=(0, 0), tile=ct.insert(x, (1, 1), ct.load(Z, index=(0, 0), shape=(BM, BN))))


@ct.kernel
def where_row_and_column_masks(X, Y, lo: int, BM: C[int], BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(BM, BN))
    rows = ct.arange(BM, dtype=ct.int32)[:, None]
    cols = ct.arange(BN, dtype=ct.int32)[None, :]
    ct.store(Y, index=(0, 0), tile=ct.where(rows >= lo, x, ct.where(cols % 3 == 0, -x, 0.0)))


@ct.kernel
def scans_down_axis0(X, S, M, BM: C[int], BN: C[int]):
    bn = ct.bid(0)
    x = ct.load(X, index=(0, bn), shape=(BM, BN), padding_mode=ZERO)
    ct.store(S, index=(0, bn), tile=ct.cumsum(x, axis=0))
    ct.store(M, index=(0, bn), tile=ct.scan(x, 0, lambda a, b: ct.maximum(a, b), -1e30))


@ct.kernel
def reduce_abs_max(X, Y, BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(4, BN))
    ct.store(Y, index=(0,), tile=ct.reduce(x, 1, lambda a, b: ct.maximum(ct.abs(a), ct.abs(b)), 0.0))


@ct.kernel
def argmax_axis0_ragged(X, I, BM: C[int], BN: C[int]):
    bn = ct.bid(0)
    x = ct.load(X, index=(0, bn), shape=(BM, BN), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(I, index=(bn,), tile=ct.argmax(x, axis=0).astype(ct.int32))


@ct.kernel
def permute_5d(X, Y):
    x = ct.load(X, index=(0, 0, 0, 0, 0), shape=(2, 2, 2, 2, 4))
    ct.store(Y, index=(0, 0, 0, 0, 0), tile=ct.permute(x, (4, 3, 2, 1, 0)) * 2.0)


@ct.kernel
def load_fortran_order(X, Y, BM: C[int], BN: C[int]):
    ct.store(Y, index=(0, 0), tile=ct.load(X, index=(0, 0), shape=(BM, BN), order="F"))


@ct.kernel
def grid_3d_ids(Y, BN: C[int]):
    x, y, z = ct.bid(0), ct.bid(1), ct.bid(2)
    lin = (z * ct.num_blocks(1) + y) * ct.num_blocks(0) + x
    ct.store(Y, index=(lin,), tile=ct.full((BN,), 0, dtype=ct.int32) + lin * 1000 + ct.arange(BN, dtype=ct.int32))


@ct.kernel
def grid_stride_loop(X, Y, n_tiles: int, BN: C[int]):
    for t in range(ct.bid(0), n_tiles, ct.num_blocks(0)):
        ct.store(Y, index=(t,), tile=ct.load(X, index=(t,), shape=(BN,), padding_mode=ZERO) * 2.0 + 1.0)


@ct.kernel
def many_programs(X, Y, BN: C[int]):
    b = ct.bid(0)
    ct.store(Y, index=(b,), tile=ct.exp(ct.load(X, index=(b,), shape=(BN,), padding_mode=ZERO)))


@ct.kernel
def sum_over_num_tiles(X, Y, BN: C[int]):
    acc = ct.zeros((BN,), dtype=ct.float32)
    for i in range(ct.num_tiles(X, axis=0, shape=(BN,))):
        acc += ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def constant_of_twelve(X, Y, K: C[int], BN: C[int]):
    ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(BN,)) * K + (K // 5))


@ct.kernel
def f64_math(X, Y, S, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.sqrt(ct.abs(x)) * 3.0 + ct.floor(x * 0.5) / x)
    ct.store(S, index=(0,), tile=ct.reshape(ct.sum(x * x), (1,)))


@ct.kernel
def bool_logic(X, Z, M, N2, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    z = ct.load(Z, index=(0,), shape=(BN,))
    m = (x & ~z) | (z & (ct.arange(BN, dtype=ct.int32) % 2 == 0))
    ct.store(M, index=(0,), tile=m)
    ct.store(N2, index=(0,), tile=ct.sum(m.astype(ct.int32)).reshape((1,)))


@ct.kernel
def gather_by_int64(X, Idx, Y, BN: C[int]):
    i = ct.load(Idx, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.gather(X, i + 3000000000 - 3000000000))


@ct.kernel
def atomic_add_bf16_repeated(X, V, BN: C[int]):
    ct.atomic_add(X, ct.arange(BN, dtype=ct.int32) % 4, ct.load(V, index=(0,), shape=(BN,)))


@ct.kernel
def atomic_xchg_f64(X, V, O, BN: C[int]):
    ct.store(O, index=(0,), tile=ct.atomic_xchg(X, ct.arange(BN, dtype=ct.int32), ct.load(V, index=(0,), shape=(BN,))))


@ct.kernel
def store_a_scalar(Y, v: float):
    ct.store(Y, index=(3,), tile=v)


@ct.kernel
def astype_six(X, O1, O2, O3, O4, O5, O6, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    for o in ct.static_iter((O1, O2, O3, O4, O5, O6)):
        ct.store(o, index=(0,), tile=x.astype(o.dtype))


@ct.kernel
def e8m0_tile(X, Y, BN: C[int]):
    ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(BN,)).astype(ct.float32))


@ct.kernel
def mma_scaled_mx(A, SA, B, SB, Y, tm: C[int], tn: C[int], tk: C[int]):
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(0, k), shape=(tm, tk), padding_mode=ZERO)
        sa = ct.load(SA, index=(0, k), shape=(tm, tk // 32), padding_mode=ZERO)
        b = ct.load(B, index=(k, 0), shape=(tk, tn), padding_mode=ZERO)
        sb = ct.load(SB, index=(k, 0), shape=(tk // 32, tn), padding_mode=ZERO)
        acc = ct.mma_scaled(a, sa, b, sb, acc)
    ct.store(Y, index=(0, 0), tile=acc)


def _close(got, want, atol=1e-5, rtol=1e-5):
    got = np.asarray(got, np.float64)
    assert got.shape == np.shape(want) and not np.isnan(got).any(), got
    np.testing.assert_allclose(got, want, atol=atol, rtol=rtol)


# ----------------------------------------------------------------------------------------------- composed tile ops

def test_permute_then_reduce(emulate):
    x = _f(2, 4, 8)
    _close(emulate(permute_then_reduce, [x, _nan(2, 4)], [2, 4, 8])[1], x.sum(axis=2))


def test_reshape_then_broadcast(emulate):
    x, v = _f(40), _f(64)
    y = emulate(reshape_then_broadcast, [x, v, _nan(12, 16)], [4, 16], grid=(3,))[2]
    rows = np.concatenate([x, np.zeros(8, np.float32)]).reshape(3, 16)
    _close(y, (v.reshape(4, 16)[None] + rows[:, None, :]).reshape(12, 16))


def test_cat_along_both_axes(emulate):
    x, z = _f(4, 8), _f(4, 8)
    r = np.concatenate([x, 2 * z], 0)
    _close(emulate(cat_two_axes, [x, z, _nan(8, 16)], [4, 8])[2], np.concatenate([r, -r], 1))


def test_extract_and_insert(emulate):
    x, z = _f(8, 16), _f(4, 8)
    y, e = emulate(extract_then_insert, [x, z, _nan(8, 16), _nan(4, 8)], [4, 8])[2:]
    want = x.copy()
    want[4:, 8:] = z
    _close(e, x[4:8, 0:8] + 1)
    _close(y, want)


def test_where_with_row_and_column_masks(emulate):
    x = _f(8, 16)
    r, c = np.arange(8)[:, None], np.arange(16)[None, :]
    y = emulate(where_row_and_column_masks, [x, _nan(8, 16)], [5, 8, 16])[1]
    _close(y, np.where(r >= 5, x, np.where(c % 3 == 0, -x, 0.0)))


def test_scans_down_axis_0(emulate):
    x = _f(8, 40)
    s, m = emulate(scans_down_axis0, [x, _nan(8, 40), _nan(8, 40)], [8, 16], grid=(3,))[1:]
    _close(s, np.cumsum(x, 0))
    np.testing.assert_array_equal(m, np.maximum.accumulate(x, 0))


def test_a_custom_reduction(emulate):
    x = _f(4, 16)
    np.testing.assert_array_equal(emulate(reduce_abs_max, [x, _nan(4)], [16])[1], np.abs(x).max(1))


def test_argmax_down_axis_0_of_a_ragged_tile(emulate):
    x = _f(6, 40)
    x[3, 5] = x[1, 5] = 9.0  # a tie: the first
    i = emulate(argmax_axis0_ragged, [x, np.full(40, -7, np.int32)], [8, 16], grid=(3,))[1]
    np.testing.assert_array_equal(i, np.argmax(x, 0))


def test_a_5d_permute(emulate):
    x = _f(2, 2, 2, 2, 4)
    y = emulate(permute_5d, [x, _nan(4, 2, 2, 2, 2)], [])[1]
    np.testing.assert_array_equal(y, np.transpose(x, (4, 3, 2, 1, 0)) * 2)


def test_a_load_in_fortran_order(emulate):
    """``order="F"``: the tile's dimensions run over the array's reversed: tile[i, j] = X[j, i]."""
    x = _f(16, 8)
    np.testing.assert_array_equal(emulate(load_fortran_order, [x, _nan(8, 16)], [8, 16])[1], x.T)


# ----------------------------------------------------------------------------------------------- program ids

def test_a_3d_grid_linearised_with_num_blocks(emulate):
    y = emulate(grid_3d_ids, [np.full(96, -7, np.int32)], [8], grid=(2, 3, 2))[0]
    np.testing.assert_array_equal(y, (np.arange(12)[:, None] * 1000 + np.arange(8)[None, :]).ravel())


def test_a_grid_stride_loop(emulate):
    x = _f(100)
    _close(emulate(grid_stride_loop, [x, _nan(100)], [7, 16], grid=(3,))[1], x * 2 + 1)


def test_150_programs(emulate):
    x = _f(600)
    _close(emulate(many_programs, [x, _nan(600)], [4], grid=(150,))[1], np.exp(x.astype(np.float64)), 1e-6, 4e-7)


def test_a_loop_over_num_tiles(emulate):
    x = _f(100)
    want = np.concatenate([x, np.zeros(12, np.float32)]).reshape(7, 16).sum(0)
    _close(emulate(sum_over_num_tiles, [x, _nan(16)], [16])[1], want)


# ----------------------------------------------------------------------------------------------- constants and dtypes

def test_a_constant_that_is_not_a_power_of_two(emulate):
    x = _f(16)
    _close(emulate(constant_of_twelve, [x, _nan(16)], [12, 16])[1], x * 12 + 2)


def test_f64_math_and_sum(emulate):
    x = np.array([0.0, -0.0, 1e300, -1e-300, np.inf, -np.inf, np.nan, 2.5, -2.5, 3, 4, 5, 6, 7, 8, 1e-320])
    y, s = emulate(f64_math, [x, _nan(16, dtype=np.float64), _nan(1, dtype=np.float64)], [16])[1:]
    with np.errstate(all="ignore"):
        want = np.sqrt(np.abs(x)) * 3 + np.floor(x * 0.5) / x
    np.testing.assert_allclose(y, want, rtol=4e-16, atol=0)  # (one fused multiply-add: an ulp)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(want))
    assert np.isnan(s[0])  # (inf * inf + nan ...)
    s = emulate(f64_math, [x[7:15].repeat(2), _nan(16, dtype=np.float64), _nan(1, dtype=np.float64)], [16])[2]
    np.testing.assert_allclose(s, [np.sum(x[7:15].repeat(2) ** 2)], rtol=1e-15)


def test_bool_tiles(monkeypatch):
    x, z = RNG.integers(0, 2, 16).astype(bool), RNG.integers(0, 2, 16).astype(bool)
    spec = [((16,), "bool_"), ((16,), "bool_"), ((16,), "bool_"), ((1,), "int32"), 16]
    monkeypatch.setattr(s10e, "PROGRAMS", {"rv29_bool_logic": UserProgram(bool_logic, spec, (1,), "simt")})
    out = s10e.emulate("rv29_bool_logic", {0: x, 1: z, 2: np.zeros(16, bool), 3: np.full(1, -7, np.int32)})
    want = (x & ~z) | (z & (np.arange(16) % 2 == 0))
    np.testing.assert_array_equal(np.asarray(out[2]).astype(bool), want)
    np.testing.assert_array_equal(out[3], [want.sum()])


def test_a_gather_by_int64_indices(emulate):
    x, i = _f(64), RNG.integers(0, 64, 16).astype(np.int64)
    np.testing.assert_array_equal(emulate(gather_by_int64, [x, i, _nan(16)], [16])[2], x[i])


def test_bf16_atomic_adds_to_repeated_indices(emulate):
    v = (np.arange(16) * 0.25).astype(NP_BF16)
    y = emulate(atomic_add_bf16_repeated, [np.zeros(4, NP_BF16), v], [16])[0]
    np.testing.assert_array_equal(np.asarray(y, np.float64), v.astype(np.float64).reshape(4, 4).sum(0))


def test_f64_atomic_exchange(emulate):
    x, v = RNG.standard_normal(16), RNG.standard_normal(16)
    xx, _, o = emulate(atomic_xchg_f64, [x.copy(), v, _nan(16, dtype=np.float64)], [16])
    np.testing.assert_array_equal(xx, v)
    np.testing.assert_array_equal(o, x)


def test_a_scalar_stored_as_a_tile(emulate):
    y = emulate(store_a_scalar, [_nan(16)], [2.5])[0]
    assert y[3] == 2.5 and np.isnan(np.delete(y, 3)).all()


SIX = {"float16": np.float16, "bfloat16": NP_BF16, "float32": np.float32, "int8": np.int8, "uint8": np.uint8,
       "int32": np.int32}
EDGES = {"float": [0.0, -0.0, np.nan, np.inf, -np.inf, 1.5, -1.5, 2.5, 127.5, -128.7, 255.9, 256.0, -1.0, 70000.0,
                   3e9, 1e-8],
         "int8": [0, -1, 127, -128, 1, 2, -2, 100, -100, 3, 5, 7, 64, -64, 126, -127],
         "uint8": [0, 255, 128, 127, 1, 2, 200, 254, 3, 5, 7, 64, 100, 129, 16, 32],
         "int32": [0, -1, 2 ** 31 - 1, -2 ** 31, 65504, 65520, 65519, -70000, 16777217, 300, -129, 255, 256, 2049,
                   33554435, 123456789]}


def _converted(x: np.ndarray, dst: str) -> np.ndarray:
    """The spec's conversion: float -> integer truncates, saturates, NaN -> 0; integer -> integer wraps;
    -> float rounds to nearest even once (from an integer: exactly, through float64 for these values)."""
    d = SIX[dst]
    if x.dtype.kind in "iu":
        x64 = x.astype(np.int64)
        return x64.astype(d) if np.dtype(d).kind in "iu" else x64.astype(np.float64).astype(d)
    f = x.astype(np.float64)
    if np.dtype(d).kind in "iu":
        info = np.iinfo(d)
        return np.clip(np.trunc(np.nan_to_num(f, nan=0.0, posinf=info.max, neginf=info.min)), info.min,
                       info.max).astype(d)
    return x.astype(np.float32).astype(d)  # (f16 / bf16 / f32 sources: exact in f32)


@pytest.mark.parametrize("src", list(SIX))
def test_astype_between_six_types_at_edge_values(emulate, src):
    with np.errstate(all="ignore"):
        x = np.array(EDGES["float" if src in ("float16", "bfloat16", "float32") else src],
                     np.float64 if src[0] in "fb" else np.int64).astype(SIX[src])
    outs = [np.full(16, SENTINEL, d) if np.dtype(d).kind in "iu" else np.full(16, np.nan, d) for d in SIX.values()]
    got = emulate(astype_six, [x, *outs], [16])[1:]
    for dst, g in zip(SIX, got):
        with np.errstate(all="ignore"):
            want = np.asarray(_converted(x, dst), np.float64)
        g = np.asarray(g, np.float64)
        np.testing.assert_array_equal(g, want, err_msg=f"{src} -> {dst}")
        np.testing.assert_array_equal(np.signbit(g), np.signbit(want), err_msg=f"{src} -> {dst}: the sign of zero")


# ----------------------------------------------------------------------------------------------- refused, located

REFUSED = {
    "e8m0_tile": ([((16,), "float8_e8m0fnu"), ((16,), "float32"), 16], "element type f8E8M0FNU is not supported"),
    "mma_scaled_mx": ([((128, 128), "float8_e4m3fn"), ((128, 4), "float8_e8m0fnu"), ((128, 128), "float8_e4m3fn"),
                       ((4, 128), "float8_e8m0fnu"), ((128, 128), "float32"), 128, 128, 128],
                      "'cuda_tile.mmaf_scaled' is not supported"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_program_stops_at_the_users_line(name):
    from tileorch.diagnostics import CompileError, LocatedError
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    spec, words = REFUSED[name]
    with pytest.raises((LocatedError, CompileError)) as info:
        compile_once(cutile_bytecode(globals()[name], spec), f"rv29_{name}", arch="sm_90a", ptxas=False)
    message = str(info.value)
    assert message.startswith(f"{__file__}:") and ": error: " in message and words in message, message
    assert "Traceback" not in message and "internal error" not in message


def test_the_command_line_names_the_users_line_and_fails(tmp_path):
    """``tileorch compile`` of a refused program's bytecode: ``file:line:col: error:`` at the kernel's line, a
    non-zero exit, no traceback."""
    import os
    import subprocess
    import sys

    from tileorch.testing.export import cutile_bytecode

    src = tmp_path / "e8m0_tile.tileirbc"  # (an f64 sin until session 35, which lowers it: f64_trig.py)
    src.write_bytes(cutile_bytecode(e8m0_tile, REFUSED["e8m0_tile"][0]))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.path.dirname(os.path.dirname(
        __import__("tileorch").__file__)), os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, "-m", "tileorch", "compile", str(src), "--no-ptxas", "--no-cache", "-o",
                          str(tmp_path / "out.ptx")], capture_output=True, text=True, timeout=300, env=env)
    line = e8m0_tile._pyfunc.__code__.co_firstlineno + 2  # (the decorator's line, the def, the body's one line)
    assert run.returncode != 0
    assert run.stderr.startswith(f"{__file__}:{line}:") and ": error: " in run.stderr
    assert REFUSED["e8m0_tile"][1] in run.stderr
    assert "Traceback" not in run.stderr + run.stdout
