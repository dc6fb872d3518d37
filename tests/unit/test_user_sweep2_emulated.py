"""Second user sweep: attention programs that take the chained-dots kernel, their PTX run on the
CPU by ``tileorch.testing.ptx_emulator`` (test_chained_variants._run) against numpy, so a
wrong-code bug in them shows without a GPU.  ``fmha_alibi`` reads its head's slope from memory
inside the loop (a scalar ``ct.gather``: a scalar pointer load in the consumer's element-wise
code, which the tier refused before).  Needs cuda-tile and ptxas."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")


def _softmax_pv(s, v):
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v.astype(np.float32)


def test_fmha_alibi_reads_its_slope_in_the_chained_kernel():
    from test_chained_variants import _check, _run

    from tileorch.testing.user_programs2 import fmha_alibi

    bh, heads, seq, d, tm, tn = 2, 2, 128, 32, 64, 32
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((bh, seq, d)).astype(np.float16) for _ in range(3))
    o = np.full((bh, seq, d), np.nan, dtype=np.float16)
    slopes = np.array([0.5, 0.0625], np.float32)
    scale = 1 / math.sqrt(d)
    _, errors = _run(fmha_alibi, (q, k, v, o, slopes), [(scale, "f")], (heads, tm, tn, d), (seq // tm, bh),
                     reads=(4,))
    pos = np.arange(seq)
    s = (q.astype(np.float32) @ k.astype(np.float32).transpose(0, 2, 1)) * scale
    s = s + slopes[np.arange(bh) % heads][:, None, None] * (pos[None, :] - pos[:, None])
    s = np.where(pos[None, :] <= pos[:, None], s, -np.inf)
    _check(o, _softmax_pv(s, v), errors)


def test_fmha_bias_tile_adds_its_bias_in_the_chained_kernel():
    from test_chained_variants import _check, _run

    from tileorch.testing.user_programs2 import fmha_bias_tile

    bh, seq, d, tm, tn = 2, 128, 32, 64, 32
    rng = np.random.default_rng(6)
    q, k, v = (rng.standard_normal((bh, seq, d)).astype(np.float16) for _ in range(3))
    bias = rng.standard_normal((seq, seq)).astype(np.float32)
    o = np.full((bh, seq, d), np.nan, dtype=np.float16)
    scale = 1 / math.sqrt(d)
    _, errors = _run(fmha_bias_tile, (q, k, v, bias, o), [(scale, "f")], (tm, tn, d), (seq // tm, bh),
                     out_index=4, reads=(3,))
    s = (q.astype(np.float32) @ k.astype(np.float32).transpose(0, 2, 1)) * scale + bias
    _check(o, _softmax_pv(s, v), errors)


def test_fmha_padded_head_keeps_the_96_columns():
    """Head dim 96 in 128-wide tiles: zero-padded loads, the store drops the padding columns."""
    from test_chained_variants import _check, _run

    from tileorch.testing.user_programs2 import fmha_padded_head

    bh, seq, d, tm, tn = 1, 128, 96, 64, 32
    rng = np.random.default_rng(7)
    q, k, v = (rng.standard_normal((bh, seq, d)).astype(np.float16) for _ in range(3))
    o = np.full((bh, seq, d), np.nan, dtype=np.float16)
    scale = 1 / math.sqrt(d)
    _, errors = _run(fmha_padded_head, (q, k, v, o), [(scale / math.log(2), "f")], (tm, tn, 128), (seq // tm, bh))
    s = (q.astype(np.float32) @ k.astype(np.float32).transpose(0, 2, 1)) * scale
    _check(o, _softmax_pv(s, v), errors)


def test_mlp_gelu_chain():
    from test_chained_variants import _check, _run

    from tileorch.testing.user_programs2 import mlp_gelu_chain

    m, d, hidden, dout = 130, 32, 96, 32
    rng = np.random.default_rng(8)
    x = rng.standard_normal((m, d)).astype(np.float16)
    w1 = (rng.standard_normal((d, hidden)) / math.sqrt(d)).astype(np.float16)
    w2 = (rng.standard_normal((hidden, dout)) / math.sqrt(hidden)).astype(np.float16)
    y = np.full((m, dout), np.nan, dtype=np.float16)
    _, errors = _run(mlp_gelu_chain, (x, w1, w2, y), [], (64, 32, d, dout), (-(-m // 64), 1))
    h = x.astype(np.float32) @ w1.astype(np.float32)
    h = 0.5 * h * (1 + np.tanh(0.7978845608028654 * (h + 0.044715 * h ** 3)))
    _check(y, h.astype(np.float16).astype(np.float32) @ w2.astype(np.float32), errors, atol=5e-3)


@pytest.mark.parametrize("window", [40, 1, 500])
def test_fmha_sliding_window_runs_its_own_key_range(window):
    """``for j in range(lo, hi)`` with ``lo`` from the query tile and the window (k_range.py,
    rebase_k_loop.py): the chained kernel runs ``hi - lo`` key tiles per query tile, its masks and
    K/V coordinates read ``lo + i``.  Window 1: the diagonal only (one key tile); 500: every key
    tile up to the query (lo = 0)."""
    from test_chained_variants import _check, _run

    from tileorch.testing.user_programs2 import LOG2E, fmha_sliding_window

    bh, seq, d, tm, tn = 1, 192, 32, 64, 32
    rng = np.random.default_rng(9 + window)
    q, k, v = (rng.standard_normal((bh, seq, d)).astype(np.float16) for _ in range(3))
    o = np.full((bh, seq, d), np.nan, dtype=np.float16)
    scale = 1 / math.sqrt(d)
    p, errors = _run(fmha_sliding_window, (q, k, v, o), [(scale * LOG2E, "f"), (window, "i")], (tm, tn, d),
                     (seq // tm, bh))
    assert any("runs as range(trip count)" in r for r in p.remarks), p.remarks
    pos = np.arange(seq)
    diff = pos[:, None] - pos[None, :]
    s = (q.astype(np.float32) @ k.astype(np.float32).transpose(0, 2, 1)) * scale
    s = np.where((diff >= 0) & (diff < window), s, -np.inf)
    _check(o, _softmax_pv(s, v), errors)
