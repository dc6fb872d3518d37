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
