"""Dots whose operand rows are gathered (``tileorch.testing.gathered_dot_programs``) run as the SIMT path lowers
them by the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py, through test_user_sweep_interp.run)
against numpy float64 references computed from the same inputs: outputs NaN-prefilled, ragged shapes,
index arrays with repeated and out-of-order rows, masked rows read as zero and not stored.
tests/gpu/test_gathered_dot_gpu.py runs the same tests on the GPU (its ``run`` swapped).  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import run  # noqa: E402

from tileorch.testing.gathered_dot_programs import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)
RNG = np.random.default_rng(2520)


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _mm(a, b):
    return np.asarray(a, np.float64) @ np.asarray(b, np.float64)


def _check(out, ref, atol, rtol=2e-3):
    out = np.asarray(out, np.float64)
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=atol, rtol=rtol)


def _tokens(n, rows):
    """``n`` token ids of ``rows`` rows: out of order, some repeated (a token routed twice), some never."""
    ids = RNG.integers(0, rows, n).astype(np.int32)
    ids[1::7] = ids[0]
    return ids


def test_moe_gathered_rows_expert_table():
    x, w = _h(300, 128), _h(3, 128, 192, scale=0.25)
    tok, te = _tokens(384, 300), np.array([2, 0, 0, 1, 2, 1], np.int32)
    y = run("moe_gathered_rows_expert_table", {0: x, 1: tok, 2: te, 3: w})[4]
    ref = np.concatenate([_mm(x[tok[64 * t:64 * t + 64]], w[te[t]]) for t in range(6)])
    _check(y, ref, 2e-2)


def test_moe_router_weight_scaled():
    x, w = _h(300, 128), _h(3, 128, 128, scale=0.25)
    tok, gate = _tokens(200, 300), RNG.random(200).astype(np.float32)
    y = run("moe_router_weight_scaled", {0: x, 1: tok, 2: gate, 3: w})[4]
    _check(y, _mm(x[tok], w[1]) * gate[:, None], 2e-2)


def test_moe_ragged_count_masked_tail():
    """200 live rows of 256 token slots; the 56 tail slots hold ids past X's rows and -1 (the mask, not the
    gather's bounds check, keeps them out: a masked row reads as zero and is not stored)."""
    x, w = _h(300, 192), _h(192, 128, scale=0.25)
    tok = _tokens(256, 300)
    tok[200:] = np.where(np.arange(56) % 2 == 0, -1, 299)
    y = run("moe_ragged_count_masked_tail", {0: x, 1: tok, 2: w})[3]
    _check(y, _mm(x[tok[:200]], w), 2e-2)


def test_embedding_rows_dense():
    ids = RNG.integers(0, 1000, 150).astype(np.int64)
    ids[::5] = 7
    table, w, bias = _h(1000, 128), _h(128, 192, scale=0.25), RNG.standard_normal(192).astype(np.float32)
    y = run("embedding_rows_dense", {0: ids, 1: table, 2: w, 3: bias})[4]
    _check(y, _mm(table[ids], w) + bias[None, :], 2e-2)


def test_paged_rows_gemm():
    """32 pages of 16 rows, the 12 the table names out of order (one named twice)."""
    pages, w = _h(512, 128), _h(128, 128, scale=0.25)
    table = np.array([5, 31, 0, 17, 5, 9, 2, 30, 11, 4, 23, 8], np.int32)
    y = run("paged_rows_gemm", {0: pages, 1: table, 2: w})[3]
    phys = np.concatenate([np.arange(16) + 16 * p for p in table])
    _check(y, _mm(pages[phys], w), 2e-2)


def test_gathered_b_rows_sparse_k():
    """100 of 256 input channels, out of order; the last K tile's 28 padding slots masked."""
    a, w = _h(192, 256), _h(256, 128, scale=0.25)
    kidx = RNG.permutation(256)[:100].astype(np.int32)
    y = run("gathered_b_rows_sparse_k", {0: a, 1: w, 2: kidx})[3]
    _check(y, _mm(a[:, kidx], w[kidx]), 2e-2)


def test_lora_gathered_adapter_rows():
    """Three adapters of 128 rows stacked; slot 2 picked."""
    x, aset = _h(192, 128), _h(3 * 128, 128, scale=0.25)
    y = run("lora_gathered_adapter_rows", {0: x, 1: aset, 2: np.array([2], np.int32)})[3]
    _check(y, _mm(x, aset[256:384]), 2e-2)


def test_feature_major_tokens_transposed():
    xt, w = _h(128, 300), _h(128, 128, scale=0.25)
    tok = _tokens(192, 300)
    y = run("feature_major_tokens_transposed", {0: xt, 1: tok, 2: w})[3]
    _check(y, _mm(xt[:, tok].T, w), 2e-2)
