"""Session 43's fp8 attention programs (``tileorch.testing.fp8attn43_programs``, issue 20): the chained kernels
with an e4m3 / e5m2 first dot (``S = Q K^T`` on ``wgmma ... k32 .e4m3.e4m3``) run as PTX on the CPU by
``tileorch.testing.ptx_emulator`` (every CTA of the launch, the launcher's own tensor maps and parameters:
test_user_sweep3_emulated's runner) against numpy float64 of the fp8-rounded inputs (Q and K drawn, rounded to
the 8-bit format by ml_dtypes, their exact values the reference's operands), outputs NaN-prefilled, ragged
keys.  bf16 arrays are ml_dtypes.bfloat16 (the emulator's WGMMA takes bf16).  CI runs a subset;
``TILEORCH_EMULATE_ALL=1`` every case.  Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
from test_attention_programs2_emulated import _attn, _scores  # noqa: E402  (numpy references)

from tileorch.testing.fp8attn43_programs import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(43008)
LOG2E = 1.4426950408889634
FP8 = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
EXTENDED = pytest.mark.skipif(not os.environ.get("TILEORCH_EMULATE_ALL"),
                              reason="CI-sized subset: TILEORCH_EMULATE_ALL=1 runs every case")


@pytest.fixture(autouse=True)
def _fp8_set(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setitem(s3.NP, "bfloat16", ml_dtypes.bfloat16)


def _fp8(kind, *shape, scale=2.0):
    """(the bytes the kernel reads, their exact values as float64): normal draws times ``scale`` rounded to
    ``kind``."""
    x = (RNG.standard_normal(shape) * scale).astype(FP8[kind])
    return x.view(np.uint8), x.astype(np.float64)


def _half(dt, *shape):
    x = RNG.standard_normal(shape).astype(np.float16 if dt == "f16" else ml_dtypes.bfloat16)
    return x, x.astype(np.float64)


def _check(out, ref, atol=4e-3, rtol=1e-2):
    got = np.asarray(out).astype(np.float64)
    assert not np.isnan(got).any(), "unwritten outputs"
    np.testing.assert_allclose(got, ref, atol=atol, rtol=rtol)


def _masked(s, ok):
    return np.where(ok, s, -np.inf)


def _descaled_case(name, sq, sk, d, descale, grid):
    (q, qf), (k, kf) = _fp8("e4m3", 2, sq, d), _fp8("e4m3", 2, sk, d)
    v, vf = _half("f16", 2, sk, d)
    out = s3._chained(name, {0: q, 1: k, 2: v}, grid)[3]
    _check(out, _attn(_scores(qf, kf, descale / math.sqrt(d)), vf))


def test_descaled_e4m3_d64_ragged_keys():
    """150 queries x 200 keys (neither a multiple of 64), descale 0.5 multiplied into S."""
    _descaled_case("fp8qk_descaled_e4m3_d64", 150, 200, 64, 0.5, (3, 2, 1))


@EXTENDED
def test_descaled_e4m3_d128_two_warp_groups():
    """128-row tiles (two consumer warp groups), head dim 128 (one 128-byte box of e4m3 per row)."""
    _descaled_case("fp8qk_descaled_e4m3_d128_bm128", 256, 190, 128, 0.25, (2, 2, 1))


def test_two_scales_e5m2_causal_bf16():
    """e5m2 Q / K, the two descales and the softmax scale multiplied into S one after the other, causal, bf16
    V and O."""
    (q, qf), (k, kf) = _fp8("e5m2", 1, 2, 192, 64), _fp8("e5m2", 1, 2, 192, 64)
    v, vf = _half("bf16", 1, 2, 192, 64)
    out = s3._chained("fp8qk_two_scales_e5m2_causal_bf16", {0: q, 1: k, 2: v}, (3, 1, 2))[3]
    i, j = np.arange(192)[:, None], np.arange(192)[None, :]
    ref = _attn(_masked(_scores(qf, kf, 0.5 * 2.0 * 0.125), j <= i), vf)
    _check(out, ref, atol=2e-2, rtol=2e-2)  # (the bf16 O's rounding: 2^-8 relative)


@EXTENDED
def test_gqa_e4m3_bf16_v_with_the_log2_lse():
    """Two query heads per KV head, head dim 128, 170 ragged keys; the log2 LSE beside O."""
    (q, qf), (k, kf) = _fp8("e4m3", 1, 4, 128, 128), _fp8("e4m3", 1, 2, 170, 128)
    v, vf = _half("bf16", 1, 2, 170, 128)
    out = s3._chained("fp8qk_gqa_lse_d128", {0: q, 1: k, 2: v}, (2, 4, 1))
    kk, vv = np.repeat(kf, 2, axis=1), np.repeat(vf, 2, axis=1)
    s = _scores(qf, kk, 0.75 / math.sqrt(128))
    _check(out[3], _attn(s, vv), atol=2e-2, rtol=2e-2)
    m = s.max(-1, keepdims=True)
    lse = (m + np.log(np.exp(s - m).sum(-1, keepdims=True)))[..., 0] * LOG2E
    np.testing.assert_allclose(np.asarray(out[4], np.float64), lse, atol=3e-3, rtol=1e-3)


@EXTENDED
def test_head_dim_96_in_a_128_wide_tile():
    """e4m3 arrays of head dim 96 loaded as 128-wide tiles (zero padding: TMA's fill past the arrays' 96 bytes a
    row), the kernel compiled without the arrays' extents (the launcher's head-dim variant is a GPU launch's)."""
    (q, qf), (k, kf) = _fp8("e4m3", 2, 150, 96), _fp8("e4m3", 2, 200, 96)
    v, vf = _half("f16", 2, 200, 96)
    out = s3._chained("fp8qk_descaled_e4m3_d96_in_128", {0: q, 1: k, 2: v}, (3, 2, 1))[3]
    _check(out, _attn(_scores(qf, kf, 0.5 / math.sqrt(96)), vf))
