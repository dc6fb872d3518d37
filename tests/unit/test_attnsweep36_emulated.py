"""Session 36's attention-shaped sweep (``tileorch.testing.attnsweep36_programs``): each chained kernel's PTX run on
the CPU by ``tileorch.testing.ptx_emulator`` (every CTA of the launch, the launcher's tensor maps and parameters:
test_user_sweep3_emulated's runner) against a numpy float64 reference written from the program's docstring, outputs
NaN-prefilled, the spec's ragged sizes.  The emulator's WGMMA is f16: a bf16 program runs as its f16 twin (its bf16
form compiles in test_attnsweep36_compile.py and runs on the GPU in tests/gpu/test_attnsweep36_gpu.py).  Cache rows
a mask must hide hold large finite values.  CI runs :data:`QUICK`; ``TILEORCH_EMULATE_ALL=1`` runs every chained
program.  Needs cuda-tile."""

from __future__ import annotations

import dataclasses
import math
import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.attnsweep36_programs import HASH_MUL, PROGRAMS  # noqa: E402

RNG = np.random.default_rng(36020)
TWINS = {f"{n}__f16": dataclasses.replace(p, spec=[(s[0], "float16", *s[2:]) if isinstance(s, tuple) and
                                                   s[1] == "bfloat16" else s for s in p.spec])
         for n, p in PROGRAMS.items() if any(isinstance(s, tuple) and s[1] == "bfloat16" for s in p.spec)}
QUICK = {"s36_d80_bshd_cross_strided", "s36_window_two_bounds", "s36_document_mask", "s36_dropout_hashed",
         "s36_lse_natural_f32out_d80", "s36_sample_kt_view_d96"}
"""The programs CI emulates (the rest with ``TILEORCH_EMULATE_ALL=1``)."""


@pytest.fixture(autouse=True)
def _sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, **TWINS})


def _h(shape):
    return RNG.standard_normal(shape).astype(np.float16)


def _scores(q, k, scale):
    return (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2)) * scale


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _attn(q, k, v, keep=None, scale=None):
    """softmax(q k^T / sqrt(d) masked by ``keep``) v over the last two axes."""
    s = _scores(q, k, scale if scale is not None else 1 / math.sqrt(q.shape[-1]))
    if keep is not None:
        s = np.where(keep, s, -np.inf)
    return _softmax(s) @ v.astype(np.float64)


def _pos(sq, sk):
    return np.arange(sq)[:, None], np.arange(sk)[None, :]


def _run(name, inputs):
    key = f"{name}__f16" if f"{name}__f16" in TWINS else name
    grid = tuple(PROGRAMS[name].grid) + (1,) * (3 - len(PROGRAMS[name].grid))
    return s3._chained(key, inputs, grid)


def _qkv(name, n=3):
    return [_h(PROGRAMS[name].spec[i][0]) for i in range(n)]


def _close(got, ref, atol=3e-3, rtol=1e-2):
    assert not np.isnan(np.asarray(got, np.float64)).any(), "unwritten outputs"
    np.testing.assert_allclose(np.asarray(got, np.float64), ref, atol=atol, rtol=rtol)


def dropout_keep(bh, sq, sk, seed, keep_min):
    """The kernel's hash (its docstring) in int32 with wrapping: the kept (query, key) pairs of head ``bh``."""
    i, k = (x.astype(np.int32) for x in _pos(sq, sk))
    with np.errstate(over="ignore"):
        x = (i * np.int32(65599) + k) ^ np.int32(seed + bh * 977)
        x = (x * np.int32(HASH_MUL)).astype(np.int32)
        x = x ^ (x >> 15)
    return (x & 0xFFFF) >= keep_min


def _case(name):
    """inputs, {output position: reference} for program ``name``."""
    p = PROGRAMS[name]
    if name == "s36_d80_bshd_cross_strided":
        q, k, v = _qkv(name)
        ref = np.stack([_attn(q[:, :, h], k[:, :, h], v[:, :, h]) for h in range(3)], axis=2)
        return {0: q, 1: k, 2: v}, {3: ref}
    if name in ("s36_sample_kt_view_causal", "s36_sample_kt_view_d96"):
        q, k, v = _qkv(name)
        sq = q.shape[2]
        i, j = _pos(sq, sq)
        return {0: q, 1: k, 2: v}, {3: _attn(q, k, v, (j <= i) if p.spec[-1] else None, p.spec[4])}
    if name == "s36_kt_array_cross_d96":
        q, kt, v = _qkv(name)
        return {0: q, 1: kt, 2: v}, {3: _attn(q, np.swapaxes(kt, -1, -2), v)}
    if name == "s36_o_transposed":
        q, k, v = _qkv(name)
        return {0: q, 1: k, 2: v}, {3: np.swapaxes(_attn(q, k, v), -1, -2)}
    if name == "s36_window_two_bounds":
        q, k, v = _qkv(name)
        wl, wr = p.spec[5], p.spec[6]
        i, j = _pos(q.shape[1], k.shape[1])
        return {0: q, 1: k, 2: v}, {3: _attn(q, k, v, (j >= i - wl) & (j <= i + wr))}
    if name == "s36_prefix_lm":
        q, k, v = _qkv(name)
        i, j = _pos(q.shape[1], k.shape[1])
        return {0: q, 1: k, 2: v}, {3: _attn(q, k, v, (j < p.spec[5]) | (j <= i))}
    if name == "s36_document_mask":
        q, k, v = _qkv(name)
        s = q.shape[2]
        seg = np.stack([np.repeat([0, 1, 2], [70, 80, 50]), np.repeat([0, 1], [130, 70])]).astype(np.int32)
        i, j = _pos(s, s)
        keep = (seg[:, None, :, None] == seg[:, None, None, :]) & (j <= i)
        return {0: q, 1: k, 2: v, 3: seg}, {4: _attn(q, k, v, keep)}
    if name == "s36_key_padding_lens":
        q, k, v = _qkv(name)
        lens = np.array([200, 77], np.int32)
        for b, n in enumerate(lens):
            k[b, :, n:], v[b, :, n:] = 30.0, 1000.0
        keep = np.arange(k.shape[2])[None, None, None, :] < lens[:, None, None, None]
        return {0: q, 1: k, 2: v, 3: lens}, {4: _attn(q, k, v, keep)}
    if name == "s36_dropout_hashed":
        q, k, v = _qkv(name)
        seed, keep_min = p.spec[5], p.spec[6]
        sq, sk = q.shape[1], k.shape[1]
        keep = np.stack([dropout_keep(bh, sq, sk, seed, keep_min) for bh in range(q.shape[0])])
        assert 0.85 < keep.mean() < 0.95
        pm = _softmax(_scores(q, k, 0.125)) * keep * (65536.0 / (65536 - keep_min))
        return {0: q, 1: k, 2: v}, {3: pm @ v.astype(np.float64)}
    if name in ("s36_runtime_scale_exp_bf16", "s36_scale_in_exp", "s36_triton_tutorial"):
        q, k, v = _qkv(name)
        i, j = _pos(q.shape[1], k.shape[1])
        return {0: q, 1: k, 2: v}, {3: _attn(q, k, v, None if "runtime" in name else j <= i, p.spec[4])}
    if name == "s36_lse_log2_cross":
        q, k, v = _qkv(name)
        s = _scores(q, k, 0.125)
        lse = s.max(-1) + np.log(np.exp(s - s.max(-1, keepdims=True)).sum(-1))
        return {0: q, 1: k, 2: v}, {3: _attn(q, k, v), 4: lse / math.log(2.0)}
    if name == "s36_lse_natural_f32out_d80":
        q, k, v = _qkv(name)
        i, j = _pos(q.shape[1], k.shape[1])
        s = np.where(j <= i, _scores(q, k, p.spec[5]), -np.inf)
        lse = s.max(-1) + np.log(np.exp(s - s.max(-1, keepdims=True)).sum(-1))
        return {0: q, 1: k, 2: v}, {3: _attn(q, k, v, j <= i), 4: lse}
    kernel = p.kernel.__name__ if hasattr(p.kernel, "__name__") else ""
    q, k, v = _qkv(name)
    i, j = _pos(q.shape[1], k.shape[1])
    causal = "causal" in name or kernel == "s36_causal"
    return {0: q, 1: k, 2: v}, {3: _attn(q, k, v, (j <= i) if causal else None)}


CHAINED = sorted(n for n, p in PROGRAMS.items() if p.path == "chained")


@pytest.mark.parametrize("name", CHAINED)
def test_chained_program_matches_numpy(name):
    if name not in QUICK and not os.environ.get("TILEORCH_EMULATE_ALL"):
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 runs every program")
    inputs, refs = _case(name)
    out = _run(name, inputs)
    for pos, ref in refs.items():
        _close(out[pos], ref)


def test_dropout_reference_hash_is_the_docstrings():
    """The reference's hash on a few hand-computed values (seed 1, head 0, query 0, key 1: x = 1 ^ 1 = 0 -> kept
    only where 0 >= keep_min)."""
    assert dropout_keep(0, 1, 2, 1, 1).tolist() == [[True, False]]
    x = np.int32((2 * 65599 + 3) ^ (5 + 977))
    with np.errstate(over="ignore"):
        x = np.int32(x * np.int32(HASH_MUL))
    x ^= x >> 15
    assert dropout_keep(1, 3, 4, 5, 0x8000)[2, 3] == bool((x & 0xFFFF) >= 0x8000)
