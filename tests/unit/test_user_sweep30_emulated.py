"""The thirtieth user sweep's programs as PTX (after LLVM) run CTA by CTA on the CPU by
``tileorch.testing.ptx_emulator``, against independent numpy (float64 / Python integer) references written from
the programs' docstrings, outputs NaN prefilled, ragged shapes:

* the attention-shaped programs and the MLP chain the chained-dots kernel takes (test_user_sweep3_emulated's
  runner: every CTA of the launch, the launcher's tensor maps): :data:`ATTENTION` (the emulator's WGMMA is f16: a
  bf16 program runs as its f16 twin; its bf16 form runs on the GPU in tests/gpu/test_user_sweep30_gpu.py);
* the GEMMs the TileAS tier takes (TMA + WGMMA: test_user_sweep14_emulated's runner): :data:`GEMM_CASES`;
* test_user_sweep30_interp.py's tests with its ``run`` swapped for the emulator of the path the program table names
  (``sweep_paths.emulate_on_its_path``: the SIMT programs', and a GEMM program's whose reference is written there):
  :data:`EMULATED`.

CI-sized subsets; ``TILEORCH_EMULATE_ALL=1`` runs every case.  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import dataclasses
import math
import os
import sys

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
import sweep_paths  # noqa: E402
import test_user_sweep30_interp as s30  # noqa: E402

from tileorch.testing.user_programs30 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(3039)
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
LN2 = math.log(2.0)


def _h(*shape, scale=1.0, dt=np.float16):
    return (RNG.standard_normal(shape) * scale).astype(dt)


def _bf(*shape, scale=1.0):
    """bf16 values as ``ml_dtypes.bfloat16`` (the runner places arrays' bytes as they are)."""
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(ml_dtypes.bfloat16)


def _i8(*shape):
    return RNG.integers(-128, 128, shape).astype(np.int8)


def _unset(shape, dt):
    return np.full(shape, np.nan, ml_dtypes.bfloat16 if dt == "bfloat16" else dt)


def _d(x):
    return np.asarray(x, np.float64)


def _mm(a, b):
    return _d(a) @ _d(b)


def _check(out, ref, atol, rtol=2e-3):
    out = np.asarray(out, np.float64)
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=atol, rtol=rtol)


# ----------------------------------------------------------------------------------------------- attention


def attention(q, k, v, scores):
    """``softmax(scores(q k^T)) v`` per leading index in float64, ``scores`` mapping the raw ``[Sq, Sk]`` products
    (and the head index) to natural-log-unit scores with ``-inf`` where masked."""
    out = np.empty(q.shape[:-1] + (v.shape[-1],))
    for h in range(q.shape[0]):
        s = scores(_d(q[h]) @ _d(k[h]).T, h)
        p = np.exp(s - s.max(1, keepdims=True))
        out[h] = (p / p.sum(1, keepdims=True)) @ _d(v[h])
    return out


def _pos(sq, sk):
    return np.arange(sq)[:, None], np.arange(sk)[None, :]


def _masked(s, ok):
    return np.where(ok, s, -np.inf)


_ROUND = [None]
"""How a case's Q / K / V are rounded before the reference sees them (None: f16 as drawn; the GPU file runs a bf16
program's case with its inputs rounded to bf16, :func:`run_attention_case`)."""


def _qkv(bh, sq, sk, d, kvh=None):
    q, k, v = _h(bh, sq, d), _h(kvh or bh, sk, d), _h(kvh or bh, sk, d)
    return (q, k, v) if _ROUND[0] is None else tuple(_ROUND[0](x) for x in (q, k, v))


def _att_natural_exp():
    q, k, v = _qkv(2, 150, 150, 64)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: s / 8.0)}


def _causal(name):
    def case():
        q, k, v = _qkv(2, 150, 150, 64)
        i, j = _pos(150, 150)
        return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: _masked(s / 8.0, j <= i))}
    return case


def _att_window():
    q, k, v = _qkv(2, 300, 300, 64)
    i, j = _pos(300, 300)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: _masked(s / 8.0, (j <= i) & (j > i - 100)))}


def _att_alibi():
    q, k, v = _qkv(4, 150, 150, 64)
    slopes = np.array([0.5, 0.0625], np.float32)  # log2 units, per head h = bh % 2
    i, j = _pos(150, 150)
    ref = attention(q, k, v, lambda s, h: _masked(s / 8.0 + slopes[h % 2] * (j - i) * LN2, j <= i))
    return {0: q, 1: k, 2: v, 3: slopes}, {4: ref}


def _att_relbias():
    q, k, v = _qkv(4, 150, 170, 64)
    bias = (RNG.standard_normal((2, 150, 170)) * 2).astype(np.float32)  # log2 units
    ref = attention(q, k, v, lambda s, h: s / 8.0 + _d(bias[h % 2]) * LN2)
    return {0: q, 1: k, 2: v, 3: bias}, {4: ref}


def _att_softcap():
    q, k, v = _h(2, 150, 64, scale=3.0), _h(2, 150, 64), _h(2, 150, 64)  # scores past the cap
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: 5.0 * np.tanh(s / 8.0 / 5.0))}


def _att_gqa():
    q, k, v = _qkv(8, 150, 150, 64, kvh=4)
    kv = [b * 2 + hh // 2 for b in range(2) for hh in range(4)]  # H = 4, HKV = 2
    return {0: q, 1: k, 2: v}, {3: attention(q, k[kv], v[kv], lambda s, h: s / 8.0)}


def _att_mqa():
    q, k, v = _h(2, 3, 150, 64), _h(2, 150, 64), _h(2, 150, 64)
    ref = attention(q.reshape(6, 150, 64), np.repeat(k, 3, 0), np.repeat(v, 3, 0), lambda s, h: s / 8.0)
    return {0: q, 1: k, 2: v}, {3: ref.reshape(2, 3, 150, 64)}


def _att_cross_lse():
    q, k, v = _qkv(2, 100, 170, 128)
    sc = 1 / math.sqrt(128)
    lse = np.stack([np.log(np.exp(_d(q[h]) @ _d(k[h]).T * sc).sum(1)) / LN2 for h in range(2)])
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: s * sc), 4: lse}


def _att_varlen():
    q, k, v = _qkv(2, 384, 384, 64)
    start, n = np.array([0, 2, 5], np.int32), np.array([100, 128, 30], np.int32)
    ref = np.full((2, 384, 64), np.nan)
    for b in range(3):
        rows = slice(64 * start[b], 64 * start[b] + 64 * -(-n[b] // 64))  # whole query tiles are stored
        keys = slice(64 * start[b], 64 * start[b] + n[b])
        ref[:, rows] = attention(q[:, rows], k[:, keys], v[:, keys], lambda s, h: s / 8.0)
    return {0: q, 1: k, 2: v, 3: start, 4: n}, {5: ref}  # rows 256..319 (tile 4): no sequence, stay NaN


def _att_d256():
    q, k, v = _qkv(2, 100, 100, 256)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: s / 16.0)}


def _att_1d_state():
    q, k, v = _qkv(2, 150, 170, 64)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: s / 8.0)}


def _att_one_tile():
    q, k, v = _qkv(4, 150, 60, 64)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: s / 8.0)}


def _plain(bh, sq, sk):
    def case():
        q, k, v = _qkv(bh, sq, sk, 64)
        return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: s / 8.0)}
    return case


def _att_gqa_4d():
    q, k, v = _h(2, 2, 150, 64), _h(2, 1, 170, 64), _h(2, 1, 170, 64)
    ref = attention(q.reshape(4, 150, 64), np.repeat(k[:, 0], 2, 0), np.repeat(v[:, 0], 2, 0), lambda s, h: s / 8.0)
    return {0: q, 1: k, 2: v}, {3: ref.reshape(2, 2, 150, 64)}


def _att_mask_2d():
    q, k, v = _qkv(2, 150, 170, 64)
    mask = (RNG.standard_normal((150, 170)) * 2).astype(np.float32)
    mask[RNG.random((150, 170)) < 0.2] = -np.inf  # masked pairs (no row wholly masked at 20 %)
    return {0: q, 1: k, 2: v, 4: mask}, {3: attention(q, k, v, lambda s, h: s / 8.0 + _d(mask))}


def _att_bool_keep():
    q, k, v = _qkv(2, 150, 170, 64)
    keep = RNG.random((2, 170)) < 0.7
    return {0: q, 1: k, 2: v, 4: keep}, {3: attention(q, k, v, lambda s, h: _masked(s / 8.0, keep[h][None, :]))}


def _mlp():
    x, w1, w2 = _h(150, 64), _h(64, 256, scale=0.2), _h(256, 64, scale=0.2)
    hidden = np.maximum(_mm(x, w1), 0).astype(np.float16)  # cast to f16 before the second dot
    return {0: x, 1: w1, 2: w2}, {3: _mm(hidden, w2)}


ATTENTION_CASES = {
    "attn_natural_exp_max_subtracted": _att_natural_exp,
    "attn_causal_full_loop_where": _causal("attn_causal_full_loop_where"),
    "attn_causal_additive_bias": _causal("attn_causal_additive_bias"),
    "attn_sliding_window_left": _att_window,
    "attn_alibi_slopes_from_array": _att_alibi,
    "attn_relative_bias_tile_from_memory": _att_relbias,
    "attn_tanh_softcap": _att_softcap,
    "attn_gqa_kv_head_by_division": _att_gqa,
    "attn_mqa_shared_kv_2d": _att_mqa,
    "attn_cross_d128_lse_bf16": _att_cross_lse,
    "attn_varlen_start_and_length_arrays": _att_varlen,
    "attn_d256_f32_out": _att_d256,
    "attn_softmax_by_division_after_loop_1d_state": _att_1d_state,
    "attn_one_key_tile_d_equals_bn": _att_one_tile,
    "attn_one_key_tile_k_through_order": _att_one_tile,
    "attn_pv_into_zeros_then_added": _plain(2, 150, 170),
    "attn_mask_probs_after_exp": _plain(2, 150, 170),
    "attn_gqa_4d_kv_head_index": _att_gqa_4d,
    "attn_additive_mask_2d_shared": _att_mask_2d,
    "attn_decode_16_query_rows": _plain(8, 16, 170),
    "attn_bool_key_padding_mask": _att_bool_keep,
    "attn_causal_reverse_key_loop": _causal("attn_causal_reverse_key_loop"),
    "mlp_two_dots_relu_chain": _mlp,
}
"""Per chained program: ``() -> (inputs, {output position: float64 reference})`` (f16 inputs; NaN where an
output element stays unwritten)."""
TWINS = {f"{n}__f16": dataclasses.replace(p, spec=[(s[0], "float16", *s[2:]) if isinstance(s, tuple) and
                                                   s[1] == "bfloat16" else s for s in p.spec])
         for n, p in PROGRAMS.items() if p.path == "chained" and
         any(isinstance(s, tuple) and s[1] == "bfloat16" for s in p.spec)}
ATTENTION = sorted(ATTENTION_CASES) if ALL else ["attn_alibi_slopes_from_array", "attn_varlen_start_and_length_arrays",
                                                 "attn_one_key_tile_d_equals_bn"]
"""The chained programs emulated in CI (every one with ``TILEORCH_EMULATE_ALL=1``)."""


def run_attention_case(name, runner, round_inputs=None):
    """Case ``name``'s inputs through ``runner(name, inputs) -> arrays`` against its reference; ``round_inputs``:
    Q / K / V rounded by it before the run and the reference (a bf16 program on the GPU)."""
    _ROUND[0] = round_inputs
    try:
        inputs, refs = ATTENTION_CASES[name]()
    finally:
        _ROUND[0] = None
    out = runner(name, inputs)
    for pos, ref in refs.items():
        got = np.asarray(out[pos], np.float64)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref), err_msg=f"argument {pos}: written elements")
        np.testing.assert_allclose(got, ref, atol=3e-3, rtol=1e-2, equal_nan=True)


@pytest.mark.parametrize("name", ATTENTION)
def test_the_chained_program_on_the_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, **TWINS})
    key = f"{name}__f16" if f"{name}__f16" in TWINS else name
    grid = tuple(PROGRAMS[name].grid) + (1,) * (3 - len(PROGRAMS[name].grid))
    run_attention_case(name, lambda n, inputs: s3._chained(key, inputs, grid))


def test_every_chained_program_has_a_case():
    assert set(ATTENTION_CASES) == {n for n, p in PROGRAMS.items() if p.path == "chained"}


# ----------------------------------------------------------------------------------------------- the GEMM cases


def emulate(name: str, inputs: dict) -> dict:
    """A program on its spec's shapes, on the emulator of the path its table entry names
    (:func:`sweep_paths.emulate_on_its_path`; the GPU file swaps it)."""
    return sweep_paths.emulate_on_its_path(PROGRAMS, name, inputs)


def _case_gemm_bias_tanh_gelu_bf16():
    a, b, bias = _bf(100, 64), _bf(64, 80, scale=0.3), _h(80, dt=np.float32)
    x = _mm(a.astype(np.float32), b.astype(np.float32)) + _d(bias)
    ref = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    out = emulate("gemm_bias_tanh_gelu_bf16", {0: a, 1: b, 2: bias, 3: _unset((100, 80), "bfloat16")})[3]
    _check(out.astype(np.float32), ref, 2e-2, 1e-2)  # bf16 out


def _case_gemm_residual_row_col_scales():
    a, b, r = _h(100, 64), _h(64, 80, scale=0.3), _h(100, 80)
    sr, sc = (RNG.random(100) + 0.5).astype(np.float32), (RNG.random(80) - 0.5).astype(np.float32)
    out = emulate("gemm_residual_row_col_scales", {0: a, 1: b, 2: r, 3: sr, 4: sc})[5]
    _check(out, _mm(a, b) * _d(sr)[:, None] * _d(sc)[None, :] + _d(r), 1e-2, 5e-3)  # f16 out


def _case_gemm_clamp_then_f16():
    a, b = _bf(100, 64), _bf(64, 80, scale=0.3)
    ref = np.clip(_mm(a.astype(np.float32), b.astype(np.float32)), -1.5, 2.0)
    assert (ref == -1.5).any() and (ref == 2.0).any()
    _check(emulate("gemm_clamp_then_f16", {0: a, 1: b})[2], ref, 2e-3, 2e-3)


def _case_gemm_alpha_beta_runtime_scalars():
    a, b, c = _h(100, 64), _h(64, 80, scale=0.3), _h(100, 80, dt=np.float32)
    _check(emulate("gemm_alpha_beta_runtime_scalars", {0: a, 1: b, 2: c})[3], 0.5 * _mm(a, b) - 2.0 * _d(c), 1e-3)


def _case_gemm_batched_3d_leading_unit():
    a, b = _h(3, 100, 64), _h(3, 64, 80, scale=0.3)
    _check(emulate("gemm_batched_3d_leading_unit", {0: a, 1: b})[2], np.einsum("zmk,zkn->zmn", _d(a), _d(b)), 1e-3)


def _case_gemm_both_operands_transposed():
    at, bt = _bf(64, 100), _bf(80, 64, scale=0.3)
    _check(emulate("gemm_both_operands_transposed", {0: at, 1: bt})[2],
           _mm(at.astype(np.float32).T, bt.astype(np.float32).T), 1e-3)


def _case_gemm_bias_then_transposed_bf16_store():
    a, b, bias = _h(100, 64), _h(64, 80, scale=0.3), _h(80, dt=np.float32)
    out = emulate("gemm_bias_then_transposed_bf16_store", {0: a, 1: b, 2: bias, 3: _unset((80, 100), "bfloat16")})[3]
    _check(out.astype(np.float32), (_mm(a, b) + _d(bias)).T, 1e-2, 1e-2)  # bf16 out


def _case_gemm_swish_by_exp_f16_out():
    a, b = _h(100, 96), _h(96, 80, scale=0.3)
    x = _mm(a, b)
    _check(emulate("gemm_swish_by_exp_f16_out", {0: a, 1: b})[2], x / (1 + np.exp(-x)), 1e-2, 5e-3)


def _case_int8_gemm_bias_int32_out():
    a, b = _i8(100, 128), _i8(128, 80)
    bias = RNG.integers(-2**20, 2**20, 80).astype(np.int32)
    out = emulate("int8_gemm_bias_int32_out", {0: a, 1: b, 2: bias, 3: np.full((100, 80), -2**31, np.int32)})[3]
    np.testing.assert_array_equal(out, a.astype(np.int64) @ b.astype(np.int64) + bias)


def _case_gemm_row_softmax_probs_per_tile_f16():
    a, b = _h(100, 64), _h(64, 64, scale=0.3)
    z = _mm(a, b)
    e = np.exp(z - z.max(1, keepdims=True))
    _check(emulate("gemm_row_softmax_probs_per_tile_f16", {0: a, 1: b})[2], e / e.sum(1, keepdims=True), 2e-3, 5e-3)


def _case_gemm_accumulate_into_c_in_place():
    a, b, c = _h(100, 64), _h(64, 80, scale=0.3), _h(100, 80, dt=np.float32)
    _check(emulate("gemm_accumulate_into_c_in_place", {0: a, 1: b, 2: c})[2], _d(c) + _mm(a, b), 1e-3)


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}
GEMMS = sorted(CASES) if ALL else ["int8_gemm_bias_int32_out"]
"""The GEMM cases run in CI (every case of :data:`CASES` with ``TILEORCH_EMULATE_ALL=1``)."""


def test_every_program_has_a_numpy_test():
    """A case here, a chained case or a test of test_user_sweep30_interp.py for every program, whatever its path (the
    interp tests run here on the emulator of the path the program table names: moving a program between the tier and
    the SIMT path edits its table entry only)."""
    assert not sweep_paths.untested(PROGRAMS, s30, sys.modules[__name__], cases=(CASES, ATTENTION_CASES))


@pytest.mark.parametrize("name", GEMMS)
def test_the_gemm_on_the_wgmma_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    CASES[name]()


# ----------------------------------------------------------------------------------------------- the SIMT programs

MMA_SYNC = sweep_paths.refused_dot_tests(PROGRAMS, s30)
"""The refused dots' tests (SIMT-path programs with a located refusal in the table): their mma.sync needs
``ldmatrix``, which the emulator does not model."""
EMULATED = sorted(n for n in dir(s30) if n.startswith("test_") and n not in MMA_SYNC) \
    if ALL else ["test_cumsum_int64_rows_of_int32"]
"""The tests of test_user_sweep30_interp.py run here on the PTX (a CI-sized subset)."""


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s30, "run", lambda name, inputs, program=None:
                        sweep_paths.emulate_on_its_path(PROGRAMS, name, inputs, program))
    s30.every_case(getattr(s30, test))
