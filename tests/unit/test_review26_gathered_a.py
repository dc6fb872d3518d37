"""Adversarial gathered-A dots (session 25's default ``tileas/gathered_operand.py``, ``GemmConfig.a_gather``: the
consumer threads load their register-A fragment elements through the index array) on the PTX emulator against
numpy float64, outputs NaN-prefilled.  Chosen to break it: indices repeated, -1, past the last row and the last row
itself with the gather's own bounds check (no mask) and a non-zero ``padding_value``; a mask and a bounds check
together; M not a multiple of the row tile (the index vector's own tail); K of one K step and a ragged K whose last
K tile reads columns past the gathered array (padding there, times B's zero rows); the index tile changing every K
step; bf16 rows.  Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

RNG = np.random.default_rng(2626)
C = ct.Constant
ZERO = ct.PaddingMode.ZERO
CONFIG = "cluster_m=1,epilogue=direct"


@ct.kernel
def gather_bounds_pad_half(X, Tok, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """No mask: the gather's bounds check alone; out-of-range rows (and columns past X) read 0.5."""
    bm, bn = ct.bid(0), ct.bid(1)
    tok = ct.load(Tok, index=(bm,), shape=(tm,), padding_mode=ZERO)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(W, axis=0, shape=(tk, tn))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (tok[:, None], cols[None, :]), padding_value=0.5)
        acc = ct.mma(a, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gather_mask_and_bounds_pad(X, Tok, W, Y, n_live: int, tm: C[int], tn: C[int], tk: C[int]):
    """A row mask (the first ``n_live`` slots) and the bounds check together; both read -2."""
    bm, bn = ct.bid(0), ct.bid(1)
    r = bm * tm + ct.arange(tm, dtype=ct.int32)
    tok = ct.load(Tok, index=(bm,), shape=(tm,), padding_mode=ZERO)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(W, axis=0, shape=(tk, tn))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (tok[:, None], cols[None, :]), mask=(r < n_live)[:, None], padding_value=-2.0)
        acc = ct.mma(a, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gather_rows_per_k_step(X, Tok, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The index tile read inside the K loop (``Tok [K tiles, M]``: each K step its own rows)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(W, axis=0, shape=(tk, tn))):
        tok = ct.load(Tok, index=(k, bm), shape=(1, tm), padding_mode=ZERO).reshape((tm,))
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (tok[:, None], cols[None, :]))
        acc = ct.mma(a, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gather_weight_nn_linear(X, Tok, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The gathered rows times nn.Linear's weight ``W [N, K]`` (a K-major B, its tile turned by ``ct.transpose``);
    out-of-range ids read 0.25."""
    bm, bn = ct.bid(0), ct.bid(1)
    tok = ct.load(Tok, index=(bm,), shape=(tm,), padding_mode=ZERO)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(W, axis=1, shape=(tn, tk))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (tok[:, None], cols[None, :]), padding_value=0.25)
        acc = ct.mma(a, ct.transpose(ct.load(W, index=(bn, k), shape=(tn, tk), padding_mode=ZERO)), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gather_a_columns(A, KIdx, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """A's columns (K) picked by ``KIdx`` (a permutation of A's columns, some repeated), B read densely: A's K
    gathered, not its rows."""
    bm, bn = ct.bid(0), ct.bid(1)
    rows = bm * tm + ct.arange(tm, dtype=ct.int32)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(W, axis=0, shape=(tk, tn))):
        kk = ct.load(KIdx, index=(k,), shape=(tk,), padding_mode=ZERO)
        a = ct.gather(A, (rows[:, None], kk[None, :]), padding_value=0)
        acc = ct.mma(a, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


def _prog(name, kernel, spec, grid, out):
    return name, UserProgram(kernel, spec, grid, "gemm", "", "", (out,))


def _run(monkeypatch, name, prog, inputs, out):
    from tileorch.testing.gemm_emulation import compile_cutile

    s4.add_sweep_programs(monkeypatch, {name: prog})
    monkeypatch.setattr(s3, "NP", {**s3.NP, "bfloat16": ml_dtypes.bfloat16})
    cfg = compile_cutile(prog.kernel, prog.spec, name, config=CONFIG).gemm_config
    assert cfg.a_gather, "not the gathered-A path"
    return np.asarray(s4._s3_gemm(name, inputs)[out], np.float64)


def _rows(x, tok, pad, k):
    """``x[tok]`` over ``k`` columns, an out-of-range row (negative or past x) all ``pad``; columns past x
    ``pad``."""
    a = np.full((len(tok), k), pad, np.float64)
    ok = (tok >= 0) & (tok < x.shape[0])
    a[ok, :min(k, x.shape[1])] = x[tok[ok], :k].astype(np.float64)
    return a


def _check(out, ref, atol=3e-2, rtol=3e-3):
    assert not np.isnan(out).any(), f"{np.isnan(out).sum()} outputs unwritten"
    np.testing.assert_allclose(out, ref, atol=atol, rtol=rtol)


def _tokens(m, rows):
    tok = RNG.integers(0, rows, m).astype(np.int32)
    tok[1::5] = tok[0]  # repeated
    tok[2] = rows - 1  # the last row
    tok[3], tok[4], tok[5] = -1, rows, 2 ** 31 - 1  # out of range: the padding value
    tok[-1] = -(2 ** 31)
    return tok


@pytest.mark.parametrize("m,k,dt", [(130, 100, "float16"), (64, 64, "float16"), (70, 40, "bfloat16"),
                                    (200, 192, "bfloat16")])
def test_bounds_checked_rows_read_the_padding_value(monkeypatch, m, k, dt):
    """M past / at one row tile, K one K step / below one / ragged over two / three whole steps; rows -1, past X,
    INT32 max and min read 0.5 in every column, as columns past X's ``k`` do (times W's zero rows: nothing)."""
    np_dt = ml_dtypes.bfloat16 if dt == "bfloat16" else np.float16
    rows, n = 300, 72
    x = RNG.standard_normal((rows, k)).astype(np_dt)
    w = (RNG.standard_normal((k, n)) / 4).astype(np_dt)
    tok = _tokens(m, rows)
    name, p = _prog(f"rv26_gather_pad_{m}_{k}_{dt}", gather_bounds_pad_half,
                    [((rows, k), dt), ((m,), "int32"), ((k, n), dt), ((m, n), "float32"), 64, 64, 64],
                    (-(-m // 64), 2), 3)
    y = _run(monkeypatch, name, p, {0: x, 1: tok, 2: w}, 3)
    _check(y, _rows(x, tok, 0.5, k) @ w.astype(np.float64))


def test_a_mask_and_the_bounds_check_together(monkeypatch):
    """150 live slots of 190 (the rest masked, holding valid ids that must not be read) and, among the live
    ones, ids past X: both read -2."""
    rows, m, k, n = 257, 190, 128, 64
    x, w = RNG.standard_normal((rows, k)).astype(np.float16), (RNG.standard_normal((k, n)) / 4).astype(np.float16)
    tok = _tokens(m, rows)
    name, p = _prog("rv26_gather_mask_bounds", gather_mask_and_bounds_pad,
                    [((rows, k), "float16"), ((m,), "int32"), ((k, n), "float16"), ((m, n), "float32"), 150,
                     64, 64, 64], (3, 1), 3)
    y = _run(monkeypatch, name, p, {0: x, 1: tok, 2: w}, 3)
    a = _rows(x, tok, -2.0, k)
    a[150:] = -2.0
    _check(y, a @ w.astype(np.float64))


def test_the_index_tile_read_each_k_step(monkeypatch):
    """Row ``r`` of K tile ``j`` comes from X row ``Tok[j, r]``: a fragment element's K step picks its row."""
    rows, m, k, n = 100, 100, 192, 64
    x, w = RNG.standard_normal((rows, k)).astype(np.float16), (RNG.standard_normal((k, n)) / 4).astype(np.float16)
    tok = RNG.integers(0, rows, (3, m)).astype(np.int32)
    name, p = _prog("rv26_gather_per_k", gather_rows_per_k_step,
                    [((rows, k), "float16"), ((3, m), "int32"), ((k, n), "float16"), ((m, n), "float32"), 64, 64, 64],
                    (2, 1), 3)
    y = _run(monkeypatch, name, p, {0: x, 1: tok, 2: w}, 3)
    a = np.concatenate([x[tok[j], 64 * j:64 * j + 64] for j in range(3)], axis=1).astype(np.float64)
    _check(y, a @ w.astype(np.float64))


@ct.kernel
def gather_int8_rows_i32(X, Tok, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """int8 rows gathered (out-of-range ids read 3) into an int8 x int8 -> int32 dot."""
    bm, bn = ct.bid(0), ct.bid(1)
    tok = ct.load(Tok, index=(bm,), shape=(tm,), padding_mode=ZERO)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.num_tiles(W, axis=0, shape=(tk, tn))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (tok[:, None], cols[None, :]), padding_value=3)
        acc = ct.mma(a, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gather_scaled_rows(X, Tok, S, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The gathered f16 rows times a per-column scale (``S [K]``) and ReLU'd before the dot; padding -1 (ReLU: 0)."""
    bm, bn = ct.bid(0), ct.bid(1)
    tok = ct.load(Tok, index=(bm,), shape=(tm,), padding_mode=ZERO)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(W, axis=0, shape=(tk, tn))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        s = ct.load(S, index=(k,), shape=(tk,), padding_mode=ZERO)
        a = ct.gather(X, (tok[:, None], cols[None, :]), padding_value=-1.0)
        a = ct.maximum(a.astype(ct.float32) * s[None, :], 0.0).astype(ct.float16)
        acc = ct.mma(a, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


def _lowered(kernel, spec, name):
    """The lowering's record only (``lower_once``): for a refusal, whose SIMT fallback's PTX no test here reads."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    return lower_once(cutile_bytecode(kernel, spec), name, arch="sm_90a")


def test_int8_gathered_rows_are_refused_at_the_gather():
    """The register-A path loads f16 / bf16 elements only: an int8 gathered A is refused at the gather's line
    (the SIMT path runs it), not run as 16-bit loads."""
    spec = [((150, 64), "int8"), ((130,), "int32"), ((64, 64), "int8"), ((130, 64), "int32"), 64, 64, 64]
    prog = _lowered(gather_int8_rows_i32, spec, "rv26_gather_int8")
    line = next(i for i, t in enumerate(open(__file__), 1) if "padding_value=3)" in t)
    assert prog.kind == "simt"
    said = [r for r in prog.remarks if f"test_review26_gathered_a.py:{line}:" in str(r)]
    assert said and "i8" in str(said[0]), prog.remarks


def test_gathered_rows_computed_before_the_dot_are_refused_at_the_dot():
    """A gathered A scaled and ReLU'd before the dot is not a gathered A the tier finds (only layout ops may lie
    between the gather and the dot): refused with the computed-operand reason at the dot, the SIMT path runs it."""
    spec = [((200, 160), "float16"), ((100,), "int32"), ((160,), "float32"), ((160, 64), "float16"),
            ((100, 64), "float32"), 64, 64, 64]
    prog = _lowered(gather_scaled_rows, spec, "rv26_gather_scaled")
    assert prog.kind == "simt"
    assert any("test_review26_gathered_a.py:" in str(r) and "computed in the kernel" in str(r)
               for r in prog.remarks), prog.remarks


@ct.kernel
def gather_k_loop_of_nk(X, Tok, W, Y, nk: int, tm: C[int], tn: C[int], tk: C[int]):
    """The K loop's trip count a runtime scalar (``nk`` K tiles, fewer than W's rows hold)."""
    bm, bn = ct.bid(0), ct.bid(1)
    tok = ct.load(Tok, index=(bm,), shape=(tm,), padding_mode=ZERO)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(nk):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (tok[:, None], cols[None, :]), padding_value=0.5)
        acc = ct.mma(a, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gather_k_loop_of_x(X, Tok, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The K loop over the gathered array's columns (X narrower than W is tall: W's last rows unused)."""
    bm, bn = ct.bid(0), ct.bid(1)
    tok = ct.load(Tok, index=(bm,), shape=(tm,), padding_mode=ZERO)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (tok[:, None], cols[None, :]), padding_value=0.5)
        acc = ct.mma(a, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@pytest.mark.parametrize("nk", [1, 2, 0])
def test_the_programs_k_trip_count_not_ws_rows(monkeypatch, nk):
    """W holds 3 K tiles; the program sums ``nk`` of them (a K step past X's 100 columns reads the padding 0.5)."""
    rows, m, k, n = 120, 100, 100, 64
    x, w = RNG.standard_normal((rows, k)).astype(np.float16), (RNG.standard_normal((192, n)) / 4).astype(np.float16)
    tok = _tokens(m, rows)
    name, p = _prog(f"rv26_gather_nk_{nk}", gather_k_loop_of_nk,
                    [((rows, k), "float16"), ((m,), "int32"), ((192, n), "float16"), ((m, n), "float32"), nk,
                     64, 64, 64], (2, 1), 3)
    y = _run(monkeypatch, name, p, {0: x, 1: tok, 2: w}, 3)
    _check(y, _rows(x, tok, 0.5, 64 * nk) @ w[:64 * nk].astype(np.float64))


def test_the_k_loop_over_the_gathered_arrays_columns(monkeypatch):
    """X has 64 columns (one K tile), W 192 rows: the program sums one K tile."""
    rows, m, n = 120, 100, 64
    x, w = RNG.standard_normal((rows, 64)).astype(np.float16), (RNG.standard_normal((192, n)) / 4).astype(np.float16)
    tok = _tokens(m, rows)
    name, p = _prog("rv26_gather_k_of_x", gather_k_loop_of_x,
                    [((rows, 64), "float16"), ((m,), "int32"), ((192, n), "float16"), ((m, n), "float32"),
                     64, 64, 64], (2, 1), 3)
    y = _run(monkeypatch, name, p, {0: x, 1: tok, 2: w}, 3)
    _check(y, _rows(x, tok, 0.5, 64) @ w[:64].astype(np.float64))


def test_tokens_gathered_through_a_transpose_out_of_range(monkeypatch):
    """Sweep-25's feature-major program (``XT [K, T]``, the tokens gathered as columns and ``ct.transpose``d into
    A) on K = 100 (ragged) with ids -1, past T and INT32 extremes (read as 0)."""
    from tileorch.testing.gathered_dot_programs import feature_major_tokens_transposed

    k, t, m, n = 100, 300, 130, 128
    xt = RNG.standard_normal((k, t)).astype(np.float16)
    w = (RNG.standard_normal((k, n)) / 4).astype(np.float16)
    tok = _tokens(m, t)
    name, p = _prog("rv26_feature_major_oob", feature_major_tokens_transposed,
                    [((k, t), "float16"), ((m,), "int32"), ((k, n), "float16"), ((m, n), "float32"), 64, 64, 64],
                    (3, 2), 3)
    y = _run(monkeypatch, name, p, {0: xt, 1: tok, 2: w}, 3)
    _check(y, _rows(np.ascontiguousarray(xt.T), tok, 0.0, k) @ w.astype(np.float64))


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_gathered_rows_times_a_k_major_weight(monkeypatch, dt):
    """B K-major (``W [N, K]``, K = 100 ragged, N = 130 ragged), the output in the operand type."""
    np_dt = ml_dtypes.bfloat16 if dt == "bfloat16" else np.float16
    rows, m, k, n = 150, 130, 100, 130
    x = RNG.standard_normal((rows, k)).astype(np_dt)
    w = (RNG.standard_normal((n, k)) / 4).astype(np_dt)
    tok = _tokens(m, rows)
    name, p = _prog(f"rv26_gather_wt_{dt}", gather_weight_nn_linear,
                    [((rows, k), dt), ((m,), "int32"), ((n, k), dt), ((m, n), dt), 64, 64, 64], (3, 3), 3)
    y = _run(monkeypatch, name, p, {0: x, 1: tok, 2: w}, 3)
    _check(y, _rows(x, tok, 0.25, k) @ w.astype(np.float64).T, atol=6e-2, rtol=1e-2)


def test_a_columns_gathered(monkeypatch):
    """K = 128 picked from A's 150 columns (out of order, repeated, one -1 and one past A: 0), M = 130 ragged."""
    from tileorch.testing.gemm_emulation import compile_cutile

    m, ka, k, n = 130, 150, 128, 64
    a = RNG.standard_normal((m, ka)).astype(np.float16)
    w = (RNG.standard_normal((k, n)) / 4).astype(np.float16)
    kidx = RNG.integers(0, ka, k).astype(np.int32)
    kidx[5], kidx[9] = -1, ka
    spec = [((m, ka), "float16"), ((k,), "int32"), ((k, n), "float16"), ((m, n), "float32"), 64, 64, 64]
    name, p = _prog("rv26_gather_a_cols", gather_a_columns, spec, (3, 1), 3)
    s4.add_sweep_programs(monkeypatch, {name: p})
    try:
        cfg = compile_cutile(gather_a_columns, spec, name, config=CONFIG).gemm_config
    except Exception as e:  # (refused: located at the program's line)
        assert "test_review26_gathered_a.py:" in str(e), str(e)
        return
    assert cfg.a_gather
    y = np.asarray(s4._s3_gemm(name, {0: a, 1: kidx, 2: w})[3], np.float64)
    ok = (kidx >= 0) & (kidx < ka)
    ag = np.zeros((m, k))
    ag[:, ok] = a[:, kidx[ok]]
    _check(y, ag @ w.astype(np.float64))
