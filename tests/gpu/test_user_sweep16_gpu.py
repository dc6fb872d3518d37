"""The sixteenth user sweep on the GPU (issues 20 and 22: dot and attention-shaped programs acceptance
runs that we will not see): every program of ``tileorch.testing.user_programs16`` runs through
``tileorch.cutile.launch`` on its spec's ragged shapes and grid (tests/gpu/sweep_harness.gpu_run:
every array inside a larger buffer of the fill, NaN for floats, an integer sentinel, the fp8 NaN
byte; outputs start as the fill and the tails must stay it; the path the program compiles to checked
against its table entry).  The f16 programs rerun tests/unit/test_user_sweep16_emulated.py's cases
(float64 numpy references) with the emulator swapped for the GPU; the programs the emulator cannot
run (bf16, fp8, int8 WGMMAs) and the programs the tiers refuse (the SIMT path's mma.sync) are checked
here against torch fp32 on the GPU.  Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_user_sweep16_gpu.py``."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
ml_dtypes = pytest.importorskip("ml_dtypes")

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # the CPU tests' numpy references (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import sweep_harness  # noqa: E402
import test_user_sweep16_emulated as s16e  # noqa: E402

from tileorch.testing.user_programs16 import PROGRAMS  # noqa: E402

if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

RNG = np.random.default_rng(2316)
TABLE = {**PROGRAMS, **s16e.TWINS}


def run(name: str, inputs: dict) -> dict:
    return sweep_harness.gpu_run(TABLE, name, inputs)


def _t(x):
    """A host array as a torch fp32 tensor on the GPU (the reference's operand)."""
    return torch.from_numpy(np.asarray(x, np.float32)).cuda()


def _ref(x) -> np.ndarray:
    return x.double().cpu().numpy()


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _bf(*shape, scale=1.0):
    """bf16 values (as float32) of a normal sample."""
    return (RNG.standard_normal(shape) * scale).astype(ml_dtypes.bfloat16).astype(np.float32)


def _check(out, ref, atol, rtol=2e-3):
    out = np.asarray(out, np.float64)
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=atol, rtol=rtol)


def _attn_ref(q, k, v, scale, mask=None):
    """softmax(q k^T * scale, masked) v in torch fp32."""
    s = (_t(q) @ _t(k).transpose(-1, -2)) * scale
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.softmax(s, -1) @ _t(v)


# ----------------------------------------------------------------------------------------------- the emulated f16 cases


@pytest.mark.parametrize("case", sorted(s16e.CASES))
def test_emulated_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s16e, "emulate", run)
    monkeypatch.setattr(s16e, "chained", run)
    s16e.CASES[case]()


# ----------------------------------------------------------------------------------------------- bf16 / fp8 / int8


def test_fp8_e4m3_row_col_scales_bkn():
    a = RNG.standard_normal((200, 256)).astype(ml_dtypes.float8_e4m3fn)
    b = (RNG.standard_normal((256, 192)) * 0.5).astype(ml_dtypes.float8_e4m3fn)
    sa, sb = (RNG.random(200) + 0.5).astype(np.float32), (RNG.random(192) + 0.5).astype(np.float32)
    y = run("fp8_e4m3_row_col_scales_bkn", {0: a.view(np.uint8), 1: b.view(np.uint8), 2: sa, 3: sb})[4]
    ref = (_t(a.astype(np.float32)) @ _t(b.astype(np.float32))) * _t(sa)[:, None] * _t(sb)[None, :]
    _check(y, _ref(ref), 0.1, 1e-2)


def test_k72_tk32_bf16_64x128():
    a, b = _bf(100, 72), _bf(72, 200, scale=0.25)
    _check(run("k72_tk32_bf16_64x128", {0: a, 1: b})[2], _ref(_t(a) @ _t(b)), 3e-2, 1e-2)


def test_i8_requant_row_col():
    """The int32 product scaled per row and column, converted to int8 with saturation: the saturation
    exercised (|y| past 127 on some elements); the conversion's rounding (toward zero or to nearest)
    may differ from numpy's by 1."""
    a = RNG.integers(-128, 128, (200, 256)).astype(np.int8)
    bt = RNG.integers(-128, 128, (192, 256)).astype(np.int8)
    sa, sb = (RNG.random(200) * 2e-3).astype(np.float32), (RNG.random(192) + 0.5).astype(np.float32)
    y = run("i8_requant_row_col", {0: a, 1: bt, 2: sa, 3: sb})[4].astype(np.int64)
    exact = (a.astype(np.int64) @ bt.astype(np.int64).T).astype(np.float64) * sa[:, None] * sb[None, :]
    assert np.abs(exact).max() > 127
    assert np.abs(y - np.clip(np.rint(exact), -128, 127)).max() <= 1


def test_attn_causal_bottom_right_bf16():
    q, k, v = _bf(2, 100, 64), _bf(2, 300, 64), _bf(2, 300, 64)
    o = run("attn_causal_bottom_right_bf16", {0: q, 1: k, 2: v})[3]
    mask = (torch.arange(300, device="cuda")[None, :] <= torch.arange(200, 300, device="cuda")[:, None])
    _check(o, _ref(_attn_ref(q, k, v, 0.125, mask)), 2e-2, 2e-2)


def test_attn_prescaled_q_bf16_d128_bm64():
    q, k, v = _bf(2, 256, 128), _bf(2, 256, 128), _bf(2, 256, 128)
    o = run("attn_prescaled_q_bf16_d128_bm64", {0: q, 1: k, 2: v})[3]
    _check(o, _ref(_attn_ref(q, k, v, 1 / math.sqrt(128))), 2e-2, 2e-2)


# ----------------------------------------------------------------------------------------------- refused by the tiers


def test_gemv_column_n1():
    x, w = _h(200, 256), _h(256, 1)
    _check(run("gemv_column_n1", {0: x, 1: w})[2], _ref(_t(x) @ _t(w)), 1e-3)


def test_row_per_program_m1():
    x, w = _h(5, 256), _h(256, 192, scale=0.25)
    _check(run("row_per_program_m1", {0: x, 1: w})[2], _ref(_t(x) @ _t(w)), 2e-2)


def test_moe_gathered_rows_expert_table():
    """Six 64-row tiles of tokens sorted by expert (token ids gathered from 300 rows), experts per tile."""
    x, w = _h(300, 128), _h(3, 128, 192, scale=0.25)
    tok = RNG.integers(0, 300, 384).astype(np.int32)
    te = np.array([0, 1, 1, 2, 2, 0], np.int32)
    y = run("moe_gathered_rows_expert_table", {0: x, 1: tok, 2: te, 3: w})[4]
    xs = _t(x)[torch.from_numpy(tok).long().cuda()]
    ref = torch.cat([xs[64 * t:64 * t + 64] @ _t(w[te[t]]) for t in range(6)])
    _check(y, _ref(ref), 2e-2)


def test_moe_expert_table_skip_invalid():
    """Tiles 2 and 5 padding (expert -1): their rows zero (the branch's store), the others their expert's."""
    x, w = _h(384, 128), _h(3, 128, 192, scale=0.25)
    te = np.array([1, 0, -1, 2, 2, -1], np.int32)
    y = run("moe_expert_table_skip_invalid", {0: x, 1: w, 2: te})[3]
    ref = torch.cat([_t(x[64 * t:64 * t + 64]) @ _t(w[te[t]]) if te[t] >= 0 else torch.zeros(64, 192, device="cuda")
                     for t in range(6)])
    _check(y, _ref(ref), 2e-2)


def test_lowrank_chain_xa_b():
    """The rank-64 product rounded to f16 before the second dot (as the program does)."""
    x, la, lb = _h(200, 256), _h(256, 64, scale=0.125), _h(64, 192, scale=0.25)
    y = run("lowrank_chain_xa_b", {0: x, 1: la, 2: lb})[3]
    t = (_t(x) @ _t(la)).half().float()
    _check(y, _ref(t @ _t(lb)), 2e-2, 1e-2)


def test_k_unrolled_by_two():
    a, b = _h(200, 256), _h(256, 192, scale=0.25)
    _check(run("k_unrolled_by_two", {0: a, 1: b})[2], _ref(_t(a) @ _t(b)), 2e-2)


def test_epi_row_cumsum():
    x, w = _h(200, 128), _h(128, 64, scale=0.25)
    _check(run("epi_row_cumsum", {0: x, 1: w})[2], _ref(torch.cumsum(_t(x) @ _t(w), 1)), 1e-2, 1e-3)


def test_linear_attn_causal_state():
    """``O_i = Q_i (sum_{j<i} K_j^T V_j) + tril(Q_i K_i^T) V_i``, the state and the masked scores rounded to
    f16 before their dots (as the program does); equal to the causal quadratic form up to that rounding."""
    q, k, v = _h(2, 256, 64, scale=0.25), _h(2, 256, 64, scale=0.25), _h(2, 256, 64, scale=0.25)
    o = run("linear_attn_causal_state", {0: q, 1: k, 2: v})[3]
    s = (_t(q) @ _t(k).transpose(-1, -2)).tril()
    _check(o, _ref(s @ _t(v)), 2e-2, 1e-2)


def test_attn_differential():
    q1, k1, q2, k2, v = (_h(2, 128, 64) for _ in range(5))
    o = run("attn_differential", {0: q1, 1: k1, 2: q2, 3: k2, 4: v})[5]
    ref = _attn_ref(q1, k1, v, 0.125) - 0.5 * _attn_ref(q2, k2, v, 0.125)
    _check(o, _ref(ref), 3e-3, 1e-2)


def test_attn_prefix_cache_then_new():
    """192 cached keys all visible, then 128 new keys causal against the 128 queries."""
    q, kc, vc, kn, vn = _h(2, 128, 64), _h(2, 192, 64), _h(2, 192, 64), _h(2, 128, 64), _h(2, 128, 64)
    o = run("attn_prefix_cache_then_new", {0: q, 1: kc, 2: vc, 3: kn, 4: vn})[5]
    k, v = np.concatenate([kc, kn], 1), np.concatenate([vc, vn], 1)
    mask = torch.arange(320, device="cuda")[None, :] <= (192 + torch.arange(128, device="cuda"))[:, None]
    _check(o, _ref(_attn_ref(q, k, v, 0.125, mask)), 3e-3, 1e-2)


def test_attn_varlen_zero_past_end():
    """Batch lengths 200 and 100 of 256: query tiles from row 256 / 128 on store zeros; rows 200..255 of
    batch 0 (inside a computed tile) attend to its 200 keys."""
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    lens = np.array([200, 100], np.int32)
    o = run("attn_varlen_zero_past_end", {0: q, 1: k, 2: v, 3: lens})[4]
    for b, n in enumerate(lens):
        done = -(-n // 64) * 64  # the query rows of the tiles computed
        _check(o[b, :done], _ref(_attn_ref(q[b, :done], k[b, :n], v[b, :n], 0.125)), 3e-3, 1e-2)
        assert not o[b, done:].any()


def test_every_program_is_checked():
    import inspect

    src = inspect.getsource(sys.modules[__name__]) + inspect.getsource(s16e)
    assert not [n for n in PROGRAMS if f'"{n}' not in src]
