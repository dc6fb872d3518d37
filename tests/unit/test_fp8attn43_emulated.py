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


@pytest.mark.parametrize("name, bh, sq, sk, d, grid", [
    ("fp8qk_descaled_e4m3_d32", 2, 100, 130, 32, (2, 2, 1)),
    ("fp8qk_descaled_e4m3_d256", 1, 100, 150, 256, (2, 1, 1)),
    pytest.param("fp8qk_descaled_e4m3_bm256_d64", 2, 300, 200, 64, (2, 2, 1), marks=EXTENDED)])
def test_descaled_e4m3_other_shapes(name, bh, sq, sk, d, grid):
    """Head dim 32 (one 32-byte e4m3 box a row, the 32-byte swizzle, one k32 WGMMA per key tile), head dim 256 (two
    128-byte boxes a row: K steps 4..7 in the second box) and 256-row tiles (four consumer warp groups, one 256 x
    64-byte Q box)."""
    (q, qf), (k, kf) = _fp8("e4m3", bh, sq, d), _fp8("e4m3", bh, sk, d)
    v, vf = _half("f16", bh, sk, d)
    out = s3._chained(name, {0: q, 1: k, 2: v}, grid)[3]
    _check(out, _attn(_scores(qf, kf, PROGRAMS[name].spec[4] / math.sqrt(d)), vf))


@pytest.mark.parametrize("granule, widths", [("1", [96, 80]), pytest.param("32", [96, 96], marks=EXTENDED)])
def test_head_dim_80_run_at_the_arrays_width(granule, widths, monkeypatch):
    """e4m3 arrays of head dim 80 in a 128-wide tile, compiled as the launcher compiles them for these arrays
    (test_head_dim_width's ``_specialised``): the first dot reduces over 96 columns (80 rounded up to the e4m3 WGMMA's
    K step of 32, whatever the 16- or 32-column granule; TMA's zero fill past the arrays' 80 bytes a row), the second
    dot's N is the granule's width of 80."""
    import tileorch.testing.gemm_emulation as ge
    from test_head_dim_width import _specialised

    monkeypatch.setenv("TILEORCH_ATTN_HEAD_DIM_WIDTH", granule)
    name = "fp8qk_descaled_e4m3_d80_in_128"
    p = PROGRAMS[name]
    generic, narrow = _specialised(p.kernel, p.spec, name)
    assert narrow is not None and narrow.chained["head_dim_width"] == widths, narrow and narrow.chained
    assert [t["box"] for t in narrow.chained["tmaps"][:2]] == [32, 32]  # three 32-byte e4m3 boxes a row
    monkeypatch.setattr(ge, "compile_cutile", lambda kernel, spec, name=None, **kw: _specialised(kernel, spec, name)[1])
    (q, qf), (k, kf) = _fp8("e4m3", 2, 150, 80), _fp8("e4m3", 2, 200, 80)
    v, vf = _half("f16", 2, 200, 80)
    out = s3._chained(name, {0: q, 1: k, 2: v}, (3, 2, 1))[3]
    _check(out, _attn(_scores(qf, kf, 0.5 / math.sqrt(80)), vf))


@EXTENDED
def test_gqa_group_rows_speculative_decode():
    """4 query heads x 16 draft tokens of a KV head as one 64-row e4m3 Q box (a group dimension), head dim 128,
    300 ragged keys."""
    (q, qf), (k, kf) = _fp8("e4m3", 2, 8, 16, 128), _fp8("e4m3", 2, 2, 300, 128)
    v, vf = _half("f16", 2, 2, 300, 128)
    out = s3._chained("fp8qk_gqa_group_rows_decode", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    kk, vv = np.repeat(kf, 4, axis=1), np.repeat(vf, 4, axis=1)
    _check(out, _attn(_scores(qf, kk, 0.5 / math.sqrt(128)), vv))


@EXTENDED
def test_textbook_form_with_the_descale_in_qk_scale():
    """The textbook softmax (row max of the unscaled scores) with the host's ``qk_scale = descale sm_scale log2 e``."""
    (q, qf), (k, kf) = _fp8("e4m3", 2, 150, 64), _fp8("e4m3", 2, 200, 64)
    v, vf = _half("f16", 2, 200, 64)
    out = s3._chained("fp8qk_textbook_e4m3_d64", {0: q, 1: k, 2: v}, (3, 2, 1))[3]
    _check(out, _attn(_scores(qf, kf, 0.5 * 0.125), vf))


# ----------------------------------------------------------------------------------------------- fp8 P @ V (s45)


def _online_fp8_p(s2, vf, bn, kind, valid=None):
    """float64 reference of the online softmax with P rounded to ``kind`` per key tile (``s2``: the scores already
    in log2 units, [.., Sq, Sk]; masked scores -inf): m, l and acc updated tile by tile as the program does, P =
    exp2(s - m_new) rounded to the 8-bit format (ml_dtypes: nearest even) for ``P V``, l summing the unrounded P."""
    sq, sk = s2.shape[-2:]
    m = np.full(s2.shape[:-1] + (1,), -np.inf)
    l_ = np.zeros_like(m)
    acc = np.zeros(s2.shape[:-1] + (vf.shape[-1],))
    for j0 in range(0, sk, bn):
        s = s2[..., j0:j0 + bn]
        m_new = np.maximum(m, s.max(-1, keepdims=True))
        with np.errstate(invalid="ignore"):
            p = np.exp2(s - m_new)
            alpha = np.where(np.isneginf(m), 0.0, np.exp2(m - m_new))
        p = np.nan_to_num(p)
        l_ = l_ * alpha + p.sum(-1, keepdims=True)
        p8 = p.astype(np.float32).astype(FP8[kind]).astype(np.float64)
        acc = acc * alpha + p8 @ vf[..., j0:j0 + bn, :]
        m = m_new
    return acc, l_


@EXTENDED
def test_fp8_p_v_e4m3_d64():
    """FlashAttention-3's fp8 forward (session 45): e4m3 Q, K and V, P cast to e4m3 in registers, the second dot an
    e4m3 WGMMA reading V's key-major copy (keys permuted as P's fragment holds them); V's descale on the output.
    (CI runs the causal ragged form below: the same packing and copy, CI time.)"""
    (q, qf), (k, kf), (v, vf) = _fp8("e4m3", 2, 128, 64), _fp8("e4m3", 2, 128, 64), _fp8("e4m3", 2, 128, 64)
    out = s3._chained("fp8qkv_p_e4m3", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    s2 = np.einsum("bqd,bkd->bqk", qf, kf) * (0.5 * 0.125 * LOG2E)
    acc, l_ = _online_fp8_p(s2, vf, 64, "e4m3")
    _check(out, acc * 2.0 / l_, atol=2e-2, rtol=2e-2)


def test_fp8_p_v_e4m3_causal_ragged():
    """Causal, 200 queries and keys (V's key-major copy: 208 keys, zeros past 200; the key tile past them TMA's zero
    fill), bf16 O; the rows past 200 are not stored."""
    (q, qf), (k, kf), (v, vf) = (_fp8("e4m3", 2, 200, 64) for _ in range(3))
    out = s3._chained("fp8qkv_p_e4m3_causal_ragged", {0: q, 1: k, 2: v}, (4, 2, 1))[3]
    s2 = np.einsum("bqd,bkd->bqk", qf, kf) * (0.5 * 0.125 * LOG2E)
    i, j = np.arange(200)[:, None], np.arange(200)[None, :]
    acc, l_ = _online_fp8_p(np.where(j <= i, s2, -np.inf), vf, 64, "e4m3")
    _check(out, acc * 2.0 / l_, atol=3e-2, rtol=2e-2)  # (bf16 O: 2^-8 relative)


@EXTENDED
@pytest.mark.parametrize("name, kind_v, shape_q, shape_k, d, descale", [
    ("fp8qkv_p_e4m3_d128_bm128", "e4m3", (2, 256, 128), (2, 192, 128), 128, 0.25),
    ("fp8qkv_p_e5m2_v", "e5m2", (2, 128, 64), (2, 128, 64), 64, 0.5)])
def test_fp8_p_v_other_shapes(name, kind_v, shape_q, shape_k, d, descale):
    """Head dim 128 with 128-row tiles (two consumer warp groups, m64n128k32 register-A WGMMAs), and an e5m2 V (P cast
    to e5m2 beside e4m3 scores)."""
    (q, qf), (k, kf), (v, vf) = _fp8("e4m3", *shape_q), _fp8("e4m3", *shape_k), _fp8(kind_v, *shape_k)
    out = s3._chained(name, {0: q, 1: k, 2: v}, (shape_q[1] // PROGRAMS[name].spec[7], 2, 1))[3]
    s2 = np.einsum("bqd,bkd->bqk", qf, kf) * (descale / math.sqrt(d) * LOG2E)
    acc, l_ = _online_fp8_p(s2, vf, 64, kind_v)
    _check(out, acc * 2.0 / l_, atol=2e-2, rtol=2e-2)
