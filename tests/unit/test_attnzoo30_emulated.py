"""Session 30's attention zoo (``tileorch.testing.attnzoo30_programs``): each chained kernel's PTX run on
the CPU by ``tileorch.testing.ptx_emulator`` (every CTA of the launch, the launcher's own tensor maps
and parameters: test_user_sweep3_emulated's runner) against numpy float64 references written from the
programs' docstrings, outputs NaN-prefilled, small ragged sizes.  The emulator's WGMMA is f16: a bf16
program runs as its f16 twin (its bf16 form compiles in test_attnzoo30_compile.py and runs on the GPU
in tests/gpu/test_attnzoo30_gpu.py).  Keys past a sequence's end hold large finite values where the
kernel must not read them (a leak shows).  CI runs a subset (each feature once, the 1000 x 777 cross attention
resized to 130 x 100: the same compiled kernel); ``TILEORCH_EMULATE_ALL=1`` runs every case (session 30, 2 shared
cores: about 65 CPU s for all, 30 for the subset).  Needs cuda-tile."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
from test_attention_programs2_emulated import _attn, _scores  # noqa: E402  (numpy references)
from test_attention_programs3_emulated import _f16_twin  # noqa: E402

from tileorch.testing.attnzoo30_programs import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(30020)
LN2 = math.log(2.0)
TWINS = {f"{n}__f16": _f16_twin(p) for n, p in PROGRAMS.items() if any(
    isinstance(s, tuple) and s[1] == "bfloat16" for s in p.spec)}


@pytest.fixture(autouse=True)
def _zoo(monkeypatch):
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, **TWINS})


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _run(name, inputs, grid, shapes=None):
    """The program's (or its f16 twin's) arrays after the emulated launch of ``grid``; ``shapes``: arrays at
    other sizes than the spec's (``s3.resized``: the same compiled kernel, fewer CTAs to emulate)."""
    key = f"{name}__f16" if f"{name}__f16" in TWINS else name
    grid3 = tuple(grid) + (1,) * (3 - len(grid))
    return s3._chained(key, inputs, grid3, program=s3.resized(key, shapes) if shapes else None)


def _masked(s, ok):
    return np.where(ok, s, -np.inf)


def _lse(s):
    m = s.max(-1, keepdims=True)
    return (m + np.log(np.exp(s - m).sum(-1, keepdims=True)))[..., 0]


def _causal(sq, sk, off=0):
    return np.arange(sk)[None, :] <= np.arange(off, off + sq)[:, None]


_check = s4._check
EXTENDED = pytest.mark.skipif(not os.environ.get("TILEORCH_EMULATE_ALL"),
                              reason="CI-sized subset: TILEORCH_EMULATE_ALL=1 runs every case")


@pytest.mark.parametrize("sq, sk", [(130, 100), pytest.param(1000, 777, marks=EXTENDED)])
def test_gqa_sequence_major_cross_ragged_d96(sq, sk):
    """GQA (2 query heads on 1 KV head) in ``[B, S, H, D]``, 1000 queries x 777 keys (neither a
    multiple of the tiles; CI: the same kernel at 130 x 100), head dim 96 in a 128-wide tile."""
    name = "zoo_gqa_bshd_cross_1000x777_d96"
    q, k, v = _h(1, sq, 2, 96), _h(1, sk, 1, 96), _h(1, sk, 1, 96)
    prog = s3.resized(name, {0: (1, sq, 2, 96), 1: (1, sk, 1, 96), 2: (1, sk, 1, 96), 3: (1, sq, 2, 96)})
    o = s3._chained(name, {0: q, 1: k, 2: v}, (-(-sq // 128), 2, 1), program=prog)[3]
    for h in range(2):
        _check(o[0, :, h], _attn(_scores(q[0, :, h], k[0, :, 0], 1 / math.sqrt(96)), v[0, :, 0]))


def test_mqa_with_the_heads_looped_in_the_program():
    q, k, v = _h(2, 2, 128, 64), _h(2, 128, 64), _h(2, 128, 64)
    o = _run("zoo_mqa_loop_over_heads", {0: q, 1: k, 2: v}, (2, 2))[3]
    _check(o, _attn(_scores(q, k[:, None], 0.125), v[:, None]))


def test_k_stored_transposed_with_gqa():
    q, kt, v = _h(2, 4, 60, 64), _h(2, 2, 64, 200), _h(2, 2, 200, 64)
    o = _run("zoo_kt_stored_gqa_bf16", {0: q, 1: kt, 2: v}, (1, 4, 2), {0: q.shape, 3: q.shape})[3]
    kk, vv = np.repeat(kt.swapaxes(-1, -2), 2, axis=1), np.repeat(v, 2, axis=1)
    _check(o, _attn(_scores(q, kk, 0.125), vv))


@EXTENDED
def test_heads_on_the_grid_first_axis_causal():
    q, k, v = _h(4, 150, 64), _h(4, 150, 64), _h(4, 150, 64)
    o = _run("zoo_heads_on_axis0_causal", {0: q, 1: k, 2: v}, (4, 3))[3]
    _check(o, _attn(_masked(_scores(q, k, 0.125), _causal(150, 150)), v))


@EXTENDED
def test_causal_window_loop_from_the_window_start_d128():
    """A 70-key causal window over 200 keys (64-key tiles): the loop starts at the window's first tile."""
    q, k, v = _h(2, 200, 128), _h(2, 200, 128), _h(2, 200, 128)
    o = _run("zoo_window_causal_from_lo_bf16_d128", {0: q, 1: k, 2: v}, (4, 2))[3]
    i, j = np.arange(200)[:, None], np.arange(200)[None, :]
    _check(o, _attn(_masked(_scores(q, k, 1 / math.sqrt(128)), (j <= i) & (j > i - 70)), v))


def test_causal_bottom_right_offset_from_the_shapes():
    """150 queries over 333 keys: query ``i`` sees keys ``<= i + 183``."""
    q, k, v = _h(2, 150, 64), _h(2, 333, 64), _h(2, 333, 64)
    o = _run("zoo_causal_bottom_right_shapes", {0: q, 1: k, 2: v}, (3, 2))[3]
    _check(o, _attn(_masked(_scores(q, k, 0.125), _causal(150, 333, 183)), v))


@EXTENDED
def test_bias_per_head_broadcast_over_the_batch():
    q, k, v = _h(4, 130, 64), _h(4, 190, 64), _h(4, 190, 64)
    bias = RNG.standard_normal((2, 130, 190)).astype(np.float32)
    o = _run("zoo_bias_heads_broadcast_batch", {0: q, 1: k, 2: v, 3: bias}, (3, 4))[4]
    _check(o, _attn(_scores(q, k, 0.125) + bias[np.arange(4) % 2], v))


@EXTENDED
def test_alibi_causal_sequence_major():
    q, k, v = _h(2, 190, 4, 64), _h(2, 190, 4, 64), _h(2, 190, 4, 64)
    o = _run("zoo_alibi_causal_bshd_bf16", {0: q, 1: k, 2: v}, (3, 4, 2))[3]
    i, j = np.arange(190)[:, None], np.arange(190)[None, :]
    for h in range(4):
        slope = 2.0 ** (-8.0 * (h + 1) / 4)
        s = _scores(q[:, :, h], k[:, :, h], 0.125) + slope * (j - i)
        _check(o[:, :, h], _attn(_masked(s, j <= i), v[:, :, h]))


def test_softcap_key_lengths_and_natural_lse():
    """Batch 0 has 200 keys, batch 1 137 (its later keys hold large values the mask must hide)."""
    q, k, v = _h(4, 64, 128), _h(4, 200, 128), _h(4, 200, 128)
    lens = np.array([200, 137], np.int32)
    k[2:, 137:], v[2:, 137:] = 30.0, 1000.0
    out = _run("zoo_softcap_lens_lse_bf16_d128", {0: q, 1: k, 2: v, 3: lens}, (1, 4),
               {0: q.shape, 4: q.shape, 5: (4, 64)})
    for bh in range(4):
        n = lens[bh // 2]
        s = 30.0 * np.tanh(_scores(q[bh], k[bh, :n], 1 / math.sqrt(128)) / 30.0)
        _check(out[4][bh], _attn(s, v[bh, :n]))
        np.testing.assert_allclose(out[5][bh], _lse(s), atol=2e-3, rtol=1e-3)


def test_t5_bucket_bias_gathered_from_a_table():
    """Buckets ``clamp(j - i, -16, 16) + 16`` of each head's 33-entry row (log2 units)."""
    q, k, v = _h(4, 60, 64), _h(4, 170, 64), _h(4, 170, 64)
    table = RNG.standard_normal((2, 33)).astype(np.float32)
    o = _run("zoo_t5_bucket_bias_gather", {0: q, 1: k, 2: v, 3: table}, (1, 4), {0: q.shape, 4: q.shape})[4]
    i, j = np.arange(60)[:, None], np.arange(170)[None, :]
    bucket = np.clip(j - i, -16, 16) + 16
    ref = _attn(_scores(q, k, 0.125) + table[np.arange(4) % 2][:, bucket] * LN2, v)
    _check(o, ref)


def test_window_with_the_safe_max_guard():
    """A 50-key causal window with the loop from key tile 0: query tile 3's first two key tiles are
    all masked (the guard keeps ``exp2(-inf - -inf)`` out)."""
    q, k, v = _h(2, 200, 64), _h(2, 200, 64), _h(2, 200, 64)
    o = _run("zoo_window_safe_max_from_zero", {0: q, 1: k, 2: v}, (4, 2))[3]
    i, j = np.arange(200)[:, None], np.arange(200)[None, :]
    _check(o, _attn(_masked(_scores(q, k, 0.125), (j <= i) & (i - j < 50)), v))


def test_two_stage_causal_loops():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = _run("zoo_causal_two_stage_loops", {0: q, 1: k, 2: v}, (2, 2))[3]
    _check(o, _attn(_masked(_scores(q, k, 0.125), _causal(256, 256)), v))


@pytest.mark.parametrize("name, sk, causal", [("zoo_q_prescaled_exp_d32_causal", 100, True),
                                              pytest.param("zoo_q_prescaled_exp_d32_bf16", 180, False,
                                                           marks=EXTENDED)])
def test_q_scaled_before_the_first_dot_d32(name, sk, causal):
    q, k, v = _h(2, 100, 32), _h(2, sk, 32), _h(2, sk, 32)
    o = _run(name, {0: q, 1: k, 2: v}, (2, 2))[3]
    qs = (q.astype(np.float32) * np.float32(1 / math.sqrt(32))).astype(np.float16)
    s = _scores(qs, k)
    _check(o, _attn(_masked(s, _causal(100, sk)) if causal else s, v))


@pytest.mark.parametrize("name, sq, sk, d, causal, grid", [
    pytest.param("zoo_log2_lse_d256_causal", 150, 150, 256, True, (3, 2), marks=EXTENDED),
    ("zoo_log2_lse_d64_bf16", 200, 170, 64, False, (2, 2))])
def test_log2_lse_beside_o(name, sq, sk, d, causal, grid):
    q, k, v = _h(2, sq, d), _h(2, sk, d), _h(2, sk, d)
    out = _run(name, {0: q, 1: k, 2: v}, grid)
    s = _scores(q, k, 1 / math.sqrt(d))
    if causal:
        s = _masked(s, _causal(sq, sk))
    _check(out[3], _attn(s, v))
    np.testing.assert_allclose(out[4], _lse(s) / LN2, atol=3e-3, rtol=1e-3)


@EXTENDED
def test_natural_lse_sequence_major():
    q, k, v = _h(2, 100, 2, 64), _h(2, 150, 2, 64), _h(2, 150, 2, 64)
    out = _run("zoo_lse_natural_bshd", {0: q, 1: k, 2: v}, (2, 2, 2))
    s = _scores(q.transpose(0, 2, 1, 3), k.transpose(0, 2, 1, 3), 0.125)
    _check(out[3], _attn(s, v.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3))
    np.testing.assert_allclose(out[4], _lse(s), atol=2e-3, rtol=1e-3)


@pytest.mark.parametrize("persistent", ["1", "0"])
def test_query_tiles_taken_last_first(persistent, monkeypatch):
    """``qt = num_blocks(0) - 1 - bid(0)`` (refused before this session: 'reads the grid size
    (num_blocks) in a kernel whose work tiles are not the launch grid's programs'): the persistent
    kernel reads the program grid from its grid parameters, the one-CTA-per-program kernel
    (``TILEORCH_ATTN_PERSISTENT=0``) from ``nctaid``; causal, 200 ragged rows in 4 tiles."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    q, k, v = _h(2, 200, 64), _h(2, 200, 64), _h(2, 200, 64)
    o = _run("zoo_reversed_q_tiles_causal", {0: q, 1: k, 2: v}, (4, 2))[3]
    _check(o, _attn(_masked(_scores(q, k, 0.125), _causal(200, 200)), v))


def test_gqa_two_query_heads_per_program():
    """Query heads 2g and 2g + 1 on KV head g, each K / V tile read once for both."""
    q, k, v = _h(2, 4, 128, 64), _h(2, 2, 192, 64), _h(2, 2, 192, 64)
    o = _run("zoo_gqa_two_heads_per_program", {0: q, 1: k, 2: v}, (2, 2, 2))[3]
    _check(o, _attn(_scores(q, np.repeat(k, 2, axis=1), 0.125), np.repeat(v, 2, axis=1)))


def test_fused_qkv_in_place_merged_heads_out():
    """``[B, S, 3 H D]`` with H = 2, D = 64 (Q, K, V column tiles h, H + h, 2H + h), 100 ragged rows;
    O ``[B, S, H D]``, the LSE ``[B, S, H]``."""
    qkv = _h(2, 100, 3 * 2 * 64)
    out = _run("zoo_fused_qkv_hidden", {0: qkv}, (2, 2, 2), {0: qkv.shape, 1: (2, 100, 128), 2: (2, 100, 2)})
    for h in range(2):
        q, k, v = (qkv[:, :, 64 * (c * 2 + h):64 * (c * 2 + h + 1)] for c in range(3))
        s = _scores(q, k, 0.125)
        _check(out[1][:, :, 64 * h:64 * (h + 1)], _attn(s, v))
        np.testing.assert_allclose(out[2][:, :, h], _lse(s), atol=2e-3, rtol=1e-3)


def test_dropout_from_a_position_hash():
    q, k, v = _h(2, 128, 64), _h(2, 180, 64), _h(2, 180, 64)
    o = _run("zoo_hash_dropout", {0: q, 1: k, 2: v}, (2, 2))[3]
    i, j = np.arange(128)[:, None], np.arange(180)[None, :]
    h = i * 7919 + j * 104729 + 1234  # below 2^31 for these positions: no int32 wrap
    keep = ((h ^ (h >> 5)) & 7) != 0
    s = _scores(q, k, 0.125)
    p = np.exp(s - s.max(-1, keepdims=True))
    pd = np.where(keep, p * (8.0 / 7.0), 0.0)
    _check(o, (pd / p.sum(-1, keepdims=True)) @ v.astype(np.float64))


@EXTENDED
def test_mixed_layouts_q_head_major_kv_sequence_major():
    q, k, v = _h(2, 2, 160, 64), _h(2, 160, 2, 64), _h(2, 160, 2, 64)
    o = _run("zoo_mixed_layouts_causal_bf16", {0: q, 1: k, 2: v}, (3, 2, 2))[3]
    kk, vv = k.transpose(0, 2, 1, 3), v.transpose(0, 2, 1, 3)
    _check(o, _attn(_masked(_scores(q, kk, 0.125), _causal(160, 160)), vv))


@EXTENDED
def test_q_loaded_inside_the_key_loop():
    q, k, v = _h(2, 128, 64), _h(2, 170, 64), _h(2, 170, 64)
    o = _run("zoo_q_loaded_in_loop", {0: q, 1: k, 2: v}, (2, 2))[3]
    _check(o, _attn(_scores(q, k, 0.125), v))


@EXTENDED
def test_accumulator_kept_normalized():
    q, k, v = _h(2, 190, 64), _h(2, 190, 64), _h(2, 190, 64)
    o = _run("zoo_normalized_online", {0: q, 1: k, 2: v}, (3, 2))[3]
    _check(o, _attn(_masked(_scores(q, k, 0.125), _causal(190, 190)), v))


@EXTENDED
def test_v_wider_than_q_and_k():
    """V 128 wide, Q / K 64 (the bf16 O runs here as f16: the emulator's arrays have no bf16)."""
    q, k, v = _h(2, 128, 64), _h(2, 150, 64), _h(2, 150, 128)
    o = _run("zoo_dv_wider_than_dqk", {0: q, 1: k, 2: v}, (2, 2))[3]
    _check(o, _attn(_scores(q, k, 0.125), v))


def test_gqa_group_rows_in_one_tile_causal():
    """Query heads 2 kh and 2 kh + 1 as the 128 rows of one Q tile (row r: query qt 64 + r % 64)."""
    q, k, v = _h(2, 4, 128, 64), _h(2, 2, 128, 64), _h(2, 2, 128, 64)
    o = _run("zoo_gqa_group_rows_causal", {0: q, 1: k, 2: v}, (2, 2, 2))[3]
    ref = _attn(_masked(_scores(q, np.repeat(k, 2, axis=1), 0.125), _causal(128, 128)), np.repeat(v, 2, axis=1))
    _check(o, ref)


@pytest.mark.parametrize("causal", [1, pytest.param(0, marks=EXTENDED)])
def test_causal_by_a_runtime_flag(causal):
    """The same compiled kernel with the run-time flag 1 and 0."""
    q, k, v = _h(2, 150, 64), _h(2, 150, 64), _h(2, 150, 64)
    prog = s3.resized("zoo_runtime_causal_flag", {}, {5: causal})
    o = s3._chained("zoo_runtime_causal_flag", {0: q, 1: k, 2: v}, (3, 2, 1), program=prog)[3]
    s = _scores(q, k, 0.125)
    _check(o, _attn(_masked(s, _causal(150, 150)) if causal else s, v))
