"""The thirty-third user sweep's programs as PTX (after LLVM) run CTA by CTA on the CPU by
``tileorch.testing.ptx_emulator``, against independent numpy (float64 / Python integer) references written from
the programs' docstrings, outputs NaN prefilled, ragged shapes:

* the two-dot programs the chained-dots kernel takes (test_user_sweep3_emulated's runner: every CTA of the launch,
  the launcher's tensor maps; bf16 programs with bf16 inputs): :data:`ATTENTION_CASES`;
* the GEMMs the TileAS tier takes (TMA + WGMMA: test_user_sweep14_emulated's runner): :data:`CASES`;
* the SIMT programs (test_user_sweep33_interp.py's tests with its ``run`` swapped for
  test_user_sweep10_emulated.emulate): :data:`EMULATED`.

CI-sized subsets; ``TILEORCH_EMULATE_ALL=1`` runs every case.  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
import test_user_sweep33_interp as s33  # noqa: E402
from test_user_sweep30_emulated import _check, _d, _masked, _mm, _pos, _unset, attention  # noqa: E402

from tileorch.testing.user_programs33 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(3340)
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
BF = ml_dtypes.bfloat16


def _h(*shape, scale=1.0, dt=np.float16):
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(dt)


def _bf(*shape, scale=1.0):
    return _h(*shape, scale=scale, dt=BF)


def _f(x):
    return np.asarray(x, np.float32)


def _r16(x):
    """float64 values rounded to f16 (a dot whose result type is f16: ``@`` / ``ct.matmul`` of f16 tiles)."""
    return np.asarray(x, np.float64).astype(np.float16).astype(np.float64)


# ----------------------------------------------------------------------------------------------- two-dot programs


def _qkv(bh, sq, sk, d, dt=np.float16):
    return _h(bh, sq, d, dt=dt), _h(bh, sk, d, dt=dt), _h(bh, sk, d, dt=dt)


def _plain(bh=2, sq=150, sk=170, d=64, dt=np.float16, out=None):
    """Non-causal attention of ``[BH, S, D]`` arrays scaled by ``1 / sqrt(d)`` (``out``: the O array's fill)."""
    def case():
        q, k, v = _qkv(bh, sq, sk, d, dt)
        ref = attention(_f(q), _f(k), _f(v), lambda s, h: s / np.sqrt(d))
        return {0: q, 1: k, 2: v, **({3: out((bh, sq, d))} if out else {})}, {3: ref}
    return case


def _att_mqa():
    q, k, v = _h(2, 3, 150, 64), _h(2, 170, 64), _h(2, 170, 64)
    ref = np.empty((2, 3, 150, 64))
    for b in range(2):
        ref[b] = attention(q[b], np.repeat(k[b][None], 3, 0), np.repeat(v[b][None], 3, 0), lambda s, h: s / 8.0)
    return {0: q, 1: k, 2: v}, {3: ref}


def _att_window_arg():
    q, k, v = _qkv(2, 300, 300, 64)
    i, j = _pos(300, 300)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: _masked(s / 8.0, (j <= i) & (j > i - 100)))}


def _att_bias_tensor():
    q, k, v = _qkv(4, 150, 170, 64)
    bias = _h(2, 2, 150, 170)
    return {0: q, 1: k, 2: v, 3: bias}, {4: attention(q, k, v, lambda s, bh: s * 0.125 + _d(bias[bh // 2, bh % 2]))}


def _att_hd32():
    q, k, v = _qkv(2, 200, 200, 32)
    i, j = _pos(200, 200)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: _masked(s / np.sqrt(32), j <= i))}


def _att_by_operator():
    q, k, v = _qkv(2, 150, 170, 64)
    # ``q @ k^T`` of f16 tiles is an f16 tile (cuTile: the result type is the operands'): the scores rounded to f16
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: _r16(s) / 8.0)}


def _att_gqa_bshd():
    q, k, v = _h(2, 150, 8, 64), _h(2, 150, 2, 64), _h(2, 150, 2, 64)
    i, j = _pos(150, 150)
    ref = np.empty((2, 150, 8, 64))
    for b in range(2):
        for h in range(8):
            ref[b, :, h] = attention(q[b, :, h][None], k[b, :, h // 4][None], v[b, :, h // 4][None],
                                     lambda s, _: _masked(s / 8.0, j <= i))[0]
    return {0: q, 1: k, 2: v}, {3: ref}


def _att_key_bias():
    q, k, v = _qkv(2, 150, 170, 64)
    kb = _h(2, 170, dt=np.float32)
    return {0: q, 1: k, 2: v, 3: kb}, {4: attention(q, k, v, lambda s, bh: s / 8.0 + _d(kb[bh])[None, :])}


def _att_decode_gqa_packed():
    q, k, v = _h(2, 2, 8, 64), _h(2, 2, 300, 64), _h(2, 2, 300, 64)
    ref = np.empty((2, 2, 8, 64))
    for b in range(2):
        ref[b] = attention(q[b], k[b], v[b], lambda s, h: s / 8.0)  # the 8 heads of KV head h: 8 rows
    return {0: q, 1: k, 2: v}, {3: ref}


def _att_128x128():
    q, k, v = _qkv(2, 300, 300, 64)
    i, j = _pos(300, 300)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: _masked(s / 8.0, j <= i))}


def _att_head_scale():
    q, k, v = _qkv(4, 150, 170, 64)
    hs = np.array([0.1, 0.3], np.float32)  # log2 units
    return {0: q, 1: k, 2: v, 3: hs}, {4: attention(q, k, v, lambda s, bh: s * float(hs[bh % 2]) / np.log2(np.e))}


def _att_left_padding():
    q, k, v = _qkv(2, 200, 200, 64)
    start = np.zeros((2, 200), np.int32)
    start[0] = 70  # head 0: rows from 70 on see keys 70 .. i (their first key tile, 0 .. 63, all padding)
    start[0, :70] = np.arange(70)  # rows before 70 see only their own key
    start[1] = np.minimum(np.arange(200), 130)  # rows from 130 on start at key 130
    i, j = _pos(200, 200)
    ref = attention(q, k, v, lambda s, bh: _masked(s / 8.0, (j <= i) & (j >= start[bh][:, None])))
    return {0: q, 1: k, 2: v, 3: start}, {4: ref}


def _att_causal_150():
    q, k, v = _qkv(2, 150, 150, 64)
    i, j = _pos(150, 150)
    return {0: q, 1: k, 2: v}, {3: attention(q, k, v, lambda s, h: _masked(s / 8.0, j <= i))}


ATTENTION_CASES = {
    "attn_mqa_one_kv_head_bhsd": _att_mqa,
    "attn_causal_window_scalar_arg": _att_window_arg,
    "attn_bias_tensor_bhqk_f16": _att_bias_tensor,
    "attn_decode_8_query_rows_padded": _plain(4, 8, 333, 64),
    "attn_decode_one_row_causal_tail": _plain(4, 1, 200, 128, BF, lambda s: np.full(s, np.nan, np.float32)),
    "attn_head_dim_32_causal": _att_hd32,
    "attn_head_dim_48_tile_64": _plain(2, 150, 170, 48),
    "attn_head_dim_160_bf16": _plain(2, 150, 170, 160, BF, lambda s: _unset(s, "bfloat16")),
    "attn_both_dots_by_matmul_operator": _att_by_operator,
    "attn_gqa_bshd_group_of_4": _att_gqa_bshd,
    "attn_bias_row_vector_per_key_f32": _att_key_bias,
    "attn_decode_gqa_heads_packed_in_rows": _att_decode_gqa_packed,
    "attn_tiles_128x128_d64": _att_128x128,
    "attn_scale_after_max_natural_exp": _plain(2, 150, 170, 64),
    "attn_per_head_scale_item": _att_head_scale,
    "attn_left_padding_start_per_row": _att_left_padding,
    "attn_decode_16_rows_tile_16": _plain(4, 16, 300, 64),
    "attn_key_tiles_of_16": _att_causal_150,
}
"""Per chained program: ``() -> (inputs, {output position: float64 reference})``."""
BF16_OUT = {"attn_head_dim_160_bf16", "attn_decode_one_row_causal_tail"}
"""Programs whose probabilities or output are bf16 (a wider tolerance)."""
ATTENTION = sorted(ATTENTION_CASES) if ALL else ["attn_causal_window_scalar_arg", "attn_head_dim_48_tile_64"]
"""The chained programs emulated in CI (every one with ``TILEORCH_EMULATE_ALL=1``): the window's computed first key
tile and a head dim held in a wider tile."""


def run_attention_case(name, runner):
    """Case ``name``'s inputs through ``runner(name, inputs) -> arrays`` against its reference."""
    inputs, refs = ATTENTION_CASES[name]()
    out = runner(name, inputs)
    for pos, ref in refs.items():
        got = np.asarray(np.asarray(out[pos]).astype(np.float32), np.float64)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref), err_msg=f"argument {pos}: written elements")
        atol, rtol = (1.5e-2, 2e-2) if name in BF16_OUT else (3e-3, 1e-2)
        np.testing.assert_allclose(got, ref, atol=atol, rtol=rtol, equal_nan=True)


@pytest.mark.parametrize("name", ATTENTION)
def test_the_chained_program_on_the_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setitem(s3.NP, "bfloat16", BF)
    monkeypatch.setitem(s3.NP, "int32", np.int32)
    grid = tuple(PROGRAMS[name].grid) + (1,) * (3 - len(PROGRAMS[name].grid))
    run_attention_case(name, lambda n, inputs: s3._chained(n, inputs, grid))


def test_every_chained_program_has_a_case():
    assert set(ATTENTION_CASES) == {n for n, p in PROGRAMS.items() if p.path == "chained"}


# ----------------------------------------------------------------------------------------------- the GEMM cases


def emulate(name: str, inputs: dict) -> dict:
    """A GEMM-tier program on its spec's shapes (test_user_sweep14_emulated's runner; the GPU file swaps it)."""
    return s14e.emulate(name, inputs)


def _case_gemm_mma_bf16_out_k_ragged():
    a, b = _bf(100, 200), _bf(200, 80, scale=0.3)
    out = emulate("gemm_mma_bf16_out_k_ragged", {0: a, 1: b, 2: _unset((100, 80), "bfloat16")})[2]
    _check(_f(out), _mm(_f(a), _f(b)), 3e-2, 1e-2)  # bf16 out


def _case_gemm_matmul_fn_added_f16_out():
    a, b = _h(100, 128), _h(128, 80, scale=0.3)
    out = emulate("gemm_matmul_fn_added_f16_out", {0: a, 1: b})[2]
    # each K tile's ``ct.matmul`` of f16 tiles is an f16 tile (rounded), summed in f32, stored f16
    ref = _r16(_mm(a[:, :64], b[:64])) + _r16(_mm(a[:, 64:], b[64:]))
    _check(out, ref, 1e-2, 2e-3)


def _case_gemm_split_k_atomics_ranges():
    a, b = _h(100, 320), _h(320, 80, scale=0.3)
    out = emulate("gemm_split_k_atomics_ranges", {0: a, 1: b, 2: np.zeros((100, 80), np.float32)})[2]
    _check(out, _mm(a, b), 2e-3)


def _case_gemm_grouped_tile_group_table():
    a, b = _h(192, 64), _h(3, 64, 80, scale=0.3)
    groups = np.array([2, 0, 1], np.int32)
    out = emulate("gemm_grouped_tile_group_table", {0: a, 1: b, 2: groups})[3]
    ref = np.concatenate([_mm(a[64 * t:64 * (t + 1)], b[g]) for t, g in enumerate(groups)])
    _check(out, ref, 1e-3)


def _gelu(h):
    return 0.5 * h * (1 + np.tanh(0.7978845608028654 * (h + 0.044715 * h ** 3)))


def _case_gemm_bias_bf16_gelu_tanh():
    a, b, bias = _bf(100, 64), _bf(64, 80, scale=0.3), _bf(80)
    out = emulate("gemm_bias_bf16_gelu_tanh", {0: a, 1: b, 2: bias, 3: _unset((100, 80), "bfloat16")})[3]
    _check(_f(out), _gelu(_mm(_f(a), _f(b)) + _d(_f(bias))), 2e-2, 1e-2)  # bf16 out


def _case_gemm_bias_bf16_silu_f16_out():
    a, b, bias = _h(100, 64), _h(64, 80, scale=0.3), _bf(80)
    out = emulate("gemm_bias_bf16_silu_f16_out", {0: a, 1: b, 2: bias})[3]
    h = _mm(a, b) + _d(_f(bias))
    _check(out, h / (1 + np.exp(-h)), 1e-2, 2e-3)  # f16 out


def _case_gemm_int8_int32_acc_dequant_f16():
    a = RNG.integers(-128, 128, (100, 128)).astype(np.int8)
    b = RNG.integers(-128, 128, (128, 80)).astype(np.int8)
    sa, sb = (RNG.random(100) * 1e-3).astype(np.float32), (RNG.random(80) * 1e-2).astype(np.float32)
    out = emulate("gemm_int8_int32_acc_dequant_f16", {0: a, 1: b, 2: sa, 3: sb})[4]
    exact = a.astype(np.int64) @ b.astype(np.int64)
    _check(out, exact * _d(sa)[:, None] * _d(sb)[None, :], 2e-3, 2e-3)  # f16 out


def _case_gemm_batched_b_broadcast_leading_1():
    a, b = _h(3, 100, 64), _h(1, 64, 80, scale=0.3)
    out = emulate("gemm_batched_b_broadcast_leading_1", {0: a, 1: b})[2]
    _check(out, np.einsum("zmk,kn->zmn", _d(a), _d(b[0])), 1e-3)


def _case_gemm_swiglu_two_weights_one_a():
    x, wg, wu = _h(100, 64), _h(64, 80, scale=0.3), _h(64, 80, scale=0.3)
    out = emulate("gemm_swiglu_two_weights_one_a", {0: x, 1: wg, 2: wu})[3]
    g, u = _mm(x, wg), _mm(x, wu)
    _check(out, g / (1 + np.exp(-g)) * u, 1e-2, 2e-3)  # f16 out


def _case_gemm_after_rmsnorm_f16_weights_nk():
    x, w = _h(100, 128), _h(80, 128, scale=0.3)
    _check(emulate("gemm_after_rmsnorm_f16_weights_nk", {0: x, 1: w})[2], _mm(x, w.T), 1e-3)


def _case_gemm_alpha_runtime_scalar_bf16():
    a, b = _bf(100, 64), _bf(64, 80, scale=0.3)
    _check(emulate("gemm_alpha_runtime_scalar_bf16", {0: a, 1: b, 3: 0.75})[2], 0.75 * _mm(_f(a), _f(b)), 1e-3)


def _case_gemm_residual_bf16_rms_scale_rows():
    a, b, r = _bf(100, 64), _bf(64, 80, scale=0.3), _bf(100, 80)
    rs = (RNG.random(100) + 0.5).astype(np.float32)
    out = emulate("gemm_residual_bf16_rms_scale_rows",
                  {0: a, 1: b, 2: r, 3: rs, 4: _unset((100, 80), "bfloat16")})[4]
    _check(_f(out), _mm(_f(a), _f(b)) * _d(rs)[:, None] + _d(_f(r)), 3e-2, 1e-2)  # bf16 out


def _case_gemm_tiles_128x128x64_f16_relu_sq():
    a, b = _h(200, 128, scale=0.5), _h(128, 136, scale=0.3)
    out = emulate("gemm_tiles_128x128x64_f16_relu_sq", {0: a, 1: b})[2]
    _check(out, np.maximum(_mm(a, b), 0) ** 2, 1e-2, 2e-3)  # f16 out


def _case_gemm_c_and_column_sums_by_atomics():
    a, b = _h(100, 64), _h(64, 80, scale=0.3)
    out = emulate("gemm_c_and_column_sums_by_atomics", {0: a, 1: b, 3: np.zeros(80, np.float32)})
    c = _mm(a, b)
    _check(out[2], c, 1e-3)
    _check(out[3], c.sum(0), 1e-2)  # two M tiles' partials (the padded rows add zeros)


def _case_gemm_relu_and_row_sums_by_atomics():
    a, b = _h(100, 64), _h(64, 200, scale=0.3)
    out = emulate("gemm_relu_and_row_sums_by_atomics", {0: a, 1: b, 3: np.zeros(100, np.float32)})
    r = np.maximum(_mm(a, b), 0)
    _check(out[2], r, 1e-2, 2e-3)  # f16 out
    _check(out[3], r.sum(1), 1e-2)  # four N tiles' partials


def _case_gemm_k_1000_bf16_tk_32():
    a, b = _bf(100, 1000, scale=0.5), _bf(1000, 200, scale=0.3)
    _check(emulate("gemm_k_1000_bf16_tk_32", {0: a, 1: b})[2], _mm(_f(a), _f(b)), 2e-3)


def _case_bmm_3d_tile_matmul_2d_b_broadcast():
    a, b = _h(3, 100, 64), _h(64, 80, scale=0.3)
    out = emulate("bmm_3d_tile_matmul_2d_b_broadcast", {0: a, 1: b})[2]
    # ``ct.matmul`` of f16 tiles is an f16 tile: one K tile (K = 64), the product rounded to f16 once
    _check(out, _r16(np.einsum("zmk,kn->zmn", _d(a), _d(b))), 2e-3)


def _case_gemm_decode_m8_tile_16_tn_32():
    x, w = _h(8, 256), _h(256, 200, scale=0.3)
    _check(emulate("gemm_decode_m8_tile_16_tn_32", {0: x, 1: w})[2], _mm(x, w), 2e-3)


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}
GEMMS = sorted(CASES) if ALL else ["gemm_grouped_tile_group_table", "gemm_int8_int32_acc_dequant_f16",
                                   "gemm_c_and_column_sums_by_atomics"]
"""The GEMM cases run in CI (every case of :data:`CASES` with ``TILEORCH_EMULATE_ALL=1``)."""


def test_every_gemm_program_has_a_case():
    assert set(CASES) == {n for n, p in PROGRAMS.items() if p.path == "gemm"}


@pytest.mark.parametrize("name", GEMMS)
def test_the_gemm_on_the_wgmma_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    CASES[name]()


# ----------------------------------------------------------------------------------------------- the SIMT programs

EMULATED = sorted(n for n in dir(s33) if n.startswith("test_")) if ALL else ["test_concat_columns_by_tile_offset"]
"""The tests of test_user_sweep33_interp.py run here on the PTX (a CI-sized subset)."""


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s33, "run", lambda name, inputs, program=None: s10e.emulate(name, inputs))
    s33.every_case(getattr(s33, test))
