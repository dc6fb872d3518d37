"""Session 26's cover set (``tileorch.testing.cover26_programs``): the programs the tensor-core tiers
take, run CTA by CTA on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 on ragged
shapes, outputs prefilled with NaN (an int8 output with a sentinel byte), through
test_user_sweep14_emulated's GEMM runner (the launcher's problem derivation and tensor maps).  The
same references run on the GPU in tests/gpu/test_cover26_gpu.py.  Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402

from tileorch.testing.cover26_programs import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(2626)


@pytest.fixture(autouse=True)
def _cover_set(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _softmax_pv(s, v):
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v.astype(np.float64)


def emulate(name: str, inputs: dict) -> dict:
    """A GEMM program on its spec's shapes (test_user_sweep14_emulated's runner)."""
    return s14e.emulate(name, inputs)


def chained(name: str, inputs: dict) -> dict:
    """A chained-dots program on its spec's shapes and launch grid (every CTA of the host's launch)."""
    grid = tuple(PROGRAMS[name].grid)
    return s3._chained(name, inputs, grid + (1,) * (3 - len(grid)))


def _mm(a, b):
    return np.asarray(a, np.float64) @ np.asarray(b, np.float64)


def _case_gemm_f16_quantised_int8_out():
    """``(acc * 0.5).astype(int8)``: rounded toward zero and saturated at [-128, 127] (cuTile's ``ftoi``),
    the output starting as a sentinel byte; the values span both clamps.  The f32 accumulation may move
    a value across an integer: at most one unit off, almost all exact."""
    a, b = _h(200, 200, scale=4.0), _h(200, 192, scale=4.0)
    y = emulate("gemm_f16_quantised_int8_out", {0: a, 1: b, 2: np.full((200, 192), 99, np.int8)})[2]
    want = np.clip(np.trunc(_mm(a, b) * 0.5), -128, 127)
    assert (want == -128).any() and (want == 127).any() and (np.abs(want) < 100).mean() > 0.3
    assert np.abs(y.astype(np.int64) - want).max() <= 1
    assert (y.astype(np.int64) == want).mean() > 0.99


def _case_gemm_f16_fp8_e4m3_out():
    """``(acc * 0.5).astype(float8_e4m3fn)``: the e4m3 bytes decoded are within one e4m3 rounding of the
    f64 product (the output starts as NaN bytes: 0x7f)."""
    a, b = _h(200, 200), _h(200, 192, scale=0.5)
    q = emulate("gemm_f16_fp8_e4m3_out", {0: a, 1: b, 2: np.full((200, 192), 0x7F, np.uint8)})[2]
    got = np.asarray(q).view(np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    assert not np.isnan(got).any(), "unwritten outputs"
    np.testing.assert_allclose(got, _mm(a, b) * 0.5, rtol=2 ** -3, atol=2 ** -9)


def _case_lora_tn256():
    """LoRA at rank 64 on 128 x 256 output tiles: ``x W + ((0.5 (x A)) rounded to f16) B`` (ragged M, N and
    K), the low-rank accumulator beside the 256-column main one."""
    x, w, la, lb = _h(200, 128), _h(128, 296, scale=0.125), _h(128, 64, scale=0.125), _h(64, 296, scale=0.25)
    y = emulate("lora_tn256", {0: x, 1: w, 2: la, 3: lb})[4]
    t = (0.5 * _mm(x, la)).astype(np.float16)
    s14e._check(y, _mm(x, w) + _mm(t, lb), 2e-2, 1e-2)


def _case_two_dots_share_computed_a():
    """``a = (x * 0.5).astype(f16)`` read by both dots (WGMMA's register A, computed once per K step):
    ``(a @ wg) * (a @ wu)`` rounded to f16, K = 200 ragged."""
    x, wg, wu = _h(200, 200), _h(200, 192, scale=0.25), _h(200, 192, scale=0.25)
    y = emulate("two_dots_share_computed_a", {0: x, 1: wg, 2: wu})[3]
    a = (x.astype(np.float32) * np.float32(0.5)).astype(np.float16)
    s14e._check(y, _mm(a, wg) * _mm(a, wu), 2e-2, 1e-2)


def _case_attn_gqa_heads_loop():
    """GQA, 2 query heads per KV head looped over inside each program: every head's output against the
    f64 softmax (keys ragged: 192 in 64-key tiles, 2 KV heads, batch 2), O NaN-prefilled."""
    q, k, v = _h(2, 4, 128, 64), _h(2, 2, 192, 64), _h(2, 2, 192, 64)
    o = chained("attn_gqa_heads_loop", {0: q, 1: k, 2: v})[3]
    kk, vv = np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1)  # query head h reads KV head h // 2
    s = (q.astype(np.float64) @ np.swapaxes(kk.astype(np.float64), -1, -2)) / 8.0
    s14e._check(o, _softmax_pv(s, vv), 3e-3)


def _case_attn_one_key_tile_no_loop():
    """Attention over one key tile written without a loop (100 keys in a 128-wide tile, the padded keys masked;
    200 query rows in 64-row tiles, ragged): against the f64 softmax, O NaN-prefilled."""
    q, k, v = _h(2, 200, 64), _h(2, 100, 64), _h(2, 100, 64)
    o = chained("attn_one_key_tile_no_loop", {0: q, 1: k, 2: v})[3]
    s = (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2)) / 8.0
    s14e._check(o, _softmax_pv(s, v), 3e-3)


def _case_two_dots_two_a_two_accumulators():
    """``acc1 += x @ w1; acc2 += z @ w2`` (an A tile per dot, since session 27): Y1 f16 and Y2 f32, NaN-prefilled."""
    x, z, w1, w2 = _h(200, 200), _h(200, 200), _h(200, 192, scale=0.25), _h(200, 192, scale=0.25)
    out = emulate("two_dots_two_a_two_accumulators", {0: x, 1: w1, 2: z, 3: w2, 4: np.full((200, 192), np.nan, np.float16),
                                                      5: np.full((200, 192), np.nan, np.float32)})
    s14e._check(out[4], _mm(x, w1), 2e-2, 1e-2)
    s14e._check(out[5], _mm(z, w2), 1e-3, 1e-4)


def _case_two_dots_two_a_one_accumulator():
    """``acc = mma(z, w2, mma(x, w1, acc))``: one accumulator over both operand pairs."""
    x, z, w1, w2 = _h(200, 200), _h(200, 200), _h(200, 192, scale=0.25), _h(200, 192, scale=0.25)
    y = emulate("two_dots_two_a_one_accumulator", {0: x, 1: w1, 2: z, 3: w2,
                                                   4: np.full((200, 192), np.nan, np.float16)})[4]
    s14e._check(y, _mm(x, w1) + _mm(z, w2), 2e-2, 1e-2)


def _case_two_dots_two_a_summed_products():
    """``acc = acc + (x @ w1 + z @ w2)``: the products chained into one accumulator (f32, not rounded to f16)."""
    x, z, w1, w2 = _h(200, 200), _h(200, 200), _h(200, 192, scale=0.25), _h(200, 192, scale=0.25)
    y = emulate("two_dots_two_a_summed_products", {0: x, 1: w1, 2: z, 3: w2,
                                                   4: np.full((200, 192), np.nan, np.float16)})[4]
    s14e._check(y, _mm(x, w1) + _mm(z, w2), 2e-2, 1e-2)


def _case_two_k_loops_one_accumulator():
    """Two K loops over K1 = 128 then K2 = 200 (since session 27 the WGMMA kernel's K segments: pair 0's K tiles,
    then pair 1's, through one pipeline): ``x1 @ w1 + x2 @ w2``, Y NaN-prefilled."""
    x1, w1, x2, w2 = _h(200, 128), _h(128, 192, scale=0.25), _h(200, 200), _h(200, 192, scale=0.25)
    y = emulate("two_k_loops_one_accumulator", {0: x1, 1: w1, 2: x2, 3: w2,
                                                4: np.full((200, 192), np.nan, np.float16)})[4]
    s14e._check(y, _mm(x1, w1) + _mm(x2, w2), 2e-2, 1e-2)


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}


def test_every_tensor_core_program_has_a_case():
    """The GPU file reruns every case: each program a tensor-core tier takes has one."""
    assert sorted(n for n, p in PROGRAMS.items() if p.path != "simt") == sorted(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_ptx_against_numpy(case):
    CASES[case]()
