"""The eleventh user sweep (``tileorch.testing.user_programs11``): programs the tensor-core tiers refuse,
run on their SIMT fallback by the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py, through
test_user_sweep_interp.run) against numpy references computed independently from the same inputs,
outputs pre-filled with NaN / a sentinel: a block-sparse product skipping K tiles by a flag array (a dot
under an if), an MoE grouped GEMM finding its group by scanning offsets, a QKV projection choosing its
weight by branch, asymmetric int8 with zero points.  (The tier programs: test_user_sweep11_emulated.py
and the GPU.)"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, resized, run, sample  # noqa: E402

from tileorch.testing.user_programs11 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)

RNG = np.random.default_rng(1119)


def _h(*shape, scale=0.5):
    return sample(RNG, shape, "float16", scale)


def _d(x):
    return np.asarray(x, np.float64)


def test_block_sparse_skips_flagged_blocks():
    a, b = _h(256, 256), _h(256, 128)
    flags = np.array([[1, 0, 0, 1], [0, 1, 1, 0]], np.int32)
    c = run("bsmm_skip_zero_blocks", {0: a, 1: b, 2: flags})[3]
    mask = np.repeat(np.repeat(flags, 128, 0), 64, 1).astype(np.float64)
    _close(c, (_d(a) * mask) @ _d(b), 4e-3, 5e-3)


def test_moe_group_found_by_scanning_offsets():
    x, w = _h(384, 128), _h(3, 128, 128, scale=0.2)
    offs = np.array([0, 128, 128, 384], np.int32)  # expert 1 empty: rows 128.. belong to expert 2
    y = run("moe_group_by_offsets_scan", {0: x, 1: w, 2: offs})[3]
    ref = np.concatenate([_d(x[:128]) @ _d(w[0]), _d(x[128:]) @ _d(w[2])])
    _close(y, ref, 4e-3, 5e-3)


def test_qkv_weight_chosen_by_branch():
    x = _h(256, 128)  # 2 K tiles of 64 in each branch's loop (the table: 4), all 12 programs
    ws = [_h(128, 128, scale=0.2) for _ in range(3)]
    p = resized("qkv_weight_by_branch", {0: (256, 128), 1: (128, 128), 2: (128, 128), 3: (128, 128)})
    out = run("qkv_weight_by_branch", {0: x, 1: ws[0], 2: ws[1], 3: ws[2]}, p)
    for i in range(3):
        _close(out[4 + i], _d(x) @ _d(ws[i]), 4e-3, 5e-3)


def test_int8_zero_points():
    a = RNG.integers(-128, 128, (256, 256)).astype(np.int8)
    b = RNG.integers(-128, 128, (256, 128)).astype(np.int8)
    c = run("mm_int8_zero_points", {0: a, 1: b})[2]
    ref = (a.astype(np.int64) - 3) @ (b.astype(np.int64) + 2)
    np.testing.assert_array_equal(np.asarray(c, np.int64), ref)
