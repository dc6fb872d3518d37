"""The chained consumer loop's soft cap ``tanh(s / cap)`` over whole tiles: the IEEE division of the
scores by a value shared by the whole tile (``transforms/tileas/loop_division.py``: one reciprocal per
thread and three instructions per element, ``div.rn`` per element only in the branch a thread takes when an
operand lies outside ``[2^-60, 2^60]``) and the full-precision ``tanh`` under a warp-uniform branch to its
polynomial alone (``transforms/tileas/loop_tanh.py``: where every ``|x|`` of the warp is below 0.9).

Run on the PTX emulator (the f16 twin of ``zoo_softcap_lens_lse_bf16_d128``: 64 queries of 4 heads, 100
keys for batch 0 (an interior and a masked key tile) and 37 for batch 1, NaN-prefilled outputs) against
numpy float64, with the dynamic counts of ``div.rn.f32`` and ``rcp.approx``: with ``cap = 30`` no ``div.rn``
and one ``rcp`` per thread and tile (before: one ``div.rn`` per score, and the ``tanh``'s ``rcp`` per score);
with ``cap = -30`` (a negative divisor: the range test fails, every tile divides with ``div.rn``) the same
attention (``-30 tanh(s / -30) = 30 tanh(s / 30)``) through the slow branch; with one warp's rows scaled
past the polynomial's range, that warp's ``tanh`` in full and the outputs bit for bit those of
``TILEORCH_ATTN_TANH_BRANCH=0``.  The compile test reads the driver's remarks and the switches.  Needs
cuda-tile."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
from test_attention_programs2_emulated import _attn, _scores  # noqa: E402  (numpy references)
from test_attention_programs3_emulated import _f16_twin  # noqa: E402

from tileorch.testing.attnzoo30_programs import PROGRAMS  # noqa: E402

NAME = "zoo_softcap_lens_lse_bf16_d128"
TWIN = f"{NAME}__f16"
REMARK = "IEEE division(s) of the consumer loop by a value shared by the whole tile"
TANH_REMARK = "full-precision tanh(s) of the consumer loop take their polynomial alone"


@pytest.fixture(autouse=True)
def _twin(monkeypatch):
    s4.add_sweep_programs(monkeypatch, {TWIN: _f16_twin(PROGRAMS[NAME])})


def _h(rng, *shape):
    return rng.standard_normal(shape).astype(np.float16)


def _emulated(monkeypatch, cap: float, q_scale=None, outputs: list | None = None):
    """The per-opcode thread-instruction counts of every CTA of the twin on 4 heads (2 per batch) x 64
    queries (``q_scale``: Q's rows scaled), its O and LSE checked (``outputs``: O and LSE appended)."""
    from tileorch.testing import ptx_emulator

    made = []

    class Counted(ptx_emulator.Emu):
        count_instructions = True

        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            made.append(self)

    monkeypatch.setattr(ptx_emulator, "Emu", Counted)
    rng = np.random.default_rng(31020)  # the same inputs in every call
    q, k, v = _h(rng, 4, 64, 128), _h(rng, 4, 100, 128), _h(rng, 4, 100, 128)
    if q_scale is not None:
        q = (q.astype(np.float32) * q_scale).astype(np.float16)
    lens = np.array([100, 37], np.int32)
    k[2:, 37:], v[2:, 37:] = 30.0, 1000.0  # past batch 1's length: the mask must hide them
    shapes = {0: q.shape, 1: k.shape, 2: v.shape, 4: q.shape, 5: (4, 64)}
    prog = s3.resized(TWIN, shapes, {7: cap})
    out = s3._chained(TWIN, {0: q, 1: k, 2: v, 3: lens}, (1, 4, 1), program=prog)
    ops = sum((Counter({o: n for o, n in e.traffic.items() if o.startswith("op:")}) for e in made), Counter())
    if outputs is not None:
        outputs += [out[4].copy(), out[5].copy()]
    for bh in range(4):
        n = lens[bh // 2]
        s = 30.0 * np.tanh(_scores(q[bh], k[bh, :n], 1 / math.sqrt(128)) / 30.0)
        s4._check(out[4][bh], _attn(s, v[bh, :n]))
        m = s.max(-1, keepdims=True)
        lse = (m + np.log(np.exp(s - m).sum(-1, keepdims=True)))[..., 0]
        np.testing.assert_allclose(out[5][bh], lse, atol=2e-3, rtol=1e-3)
    return ops


TILES = 2 * 2 + 2 * 1  # 64 x 64 score tiles: batch 0's 2 key tiles, batch 1's 1, 2 heads each
INSTANCES = 4  # program instances: 4 heads x one 64-query tile
THREADS = 128  # one consumer warp group: 32 scores of a tile per thread


def test_softcap_divides_by_one_reciprocal_per_thread(monkeypatch):
    ops = _emulated(monkeypatch, 30.0)
    assert ops["op:div.rn.f32"] == 0, ops["op:div.rn.f32"]
    # the division's reciprocal once per thread and instance (the cap is loop-invariant: since the SIMT math became
    # LLVM intrinsics in session 41, LLVM hoists its rcp out of the key loop; it was once per tile), the epilogue's
    # per row (2 per thread and instance), and
    # the full tanh's per score only in batch 1's two tiles (its keys past 37 hold 30: |s / 30| >= 0.9 there,
    # masked after the cap); |s / 30| < 0.9 elsewhere: the polynomial alone
    assert ops["op:rcp.approx.ftz.f32"] == INSTANCES * THREADS + 4 * 2 * THREADS + 2 * THREADS * 32, \
        ops["op:rcp.approx.ftz.f32"]


def test_negative_cap_takes_div_rn_in_the_branch(monkeypatch):
    ops = _emulated(monkeypatch, -30.0)
    assert ops["op:div.rn.f32"] == TILES * THREADS * 32, ops["op:div.rn.f32"]


def test_one_warp_past_the_polynomial_takes_the_full_tanh(monkeypatch):
    """Query rows 0-15 of every head (warp 0's) scaled by 24: their scores reach past ``0.9 cap``; warps 1-3 keep
    the polynomial.  O and LSE bit for bit those of the kernel without the branch."""
    scale = np.ones((1, 64, 1), np.float32)
    scale[:, :16] = 24.0
    got, want = [], []
    ops = _emulated(monkeypatch, 30.0, scale, got)
    # the full tanh's rcp per score: batch 1's two tiles (every warp), warp 0's 32 threads in batch 0's four
    assert ops["op:rcp.approx.ftz.f32"] == INSTANCES * THREADS + 4 * 2 * THREADS + 2 * THREADS * 32 + 4 * 32 * 32, \
        ops["op:rcp.approx.ftz.f32"]
    monkeypatch.setenv("TILEORCH_ATTN_TANH_BRANCH", "0")
    _emulated(monkeypatch, 30.0, scale, want)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.view(np.uint16 if a.dtype == np.float16 else np.uint32),
                                      b.view(np.uint16 if b.dtype == np.float16 else np.uint32))


def test_remark_and_switch(monkeypatch):
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[NAME]
    data = cutile_bytecode(p.kernel, p.spec)
    remarks = list(lower_once(data, NAME, arch="sm_90a").remarks)
    for text in (REMARK, TANH_REMARK):
        assert [r for r in remarks if text in r and r.startswith("remark: 1 ")], remarks
    monkeypatch.setenv("TILEORCH_UNIFORM_DIV", "0")
    monkeypatch.setenv("TILEORCH_ATTN_TANH_BRANCH", "0")
    assert not [r for r in lower_once(data, NAME, arch="sm_90a").remarks if REMARK in r or TANH_REMARK in r]


def test_a_gelu_tanh_keeps_the_full_form():
    """The chained MLP's GELU ``tanh(0.798 (z + 0.0447 z^3))`` (a hidden tile plus a bias, then a polynomial:
    not a dot's result scaled) keeps ``tanh_full`` with no vote: its arguments mostly pass 0.9 (the branch made
    it 171.9 -> 155.8 TFLOP/s on an H100, session 31); the chain compiles and says nothing of the branch."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs11 import PROGRAMS as P11

    p = P11["mlp_bias_gelu_bias_bf16"]
    lowered = lower_once(cutile_bytecode(p.kernel, p.spec), "mlp_bias_gelu_bias_bf16", arch="sm_90a")
    assert lowered.kind == "chained", lowered.remarks
    assert not [r for r in lowered.remarks if TANH_REMARK in r], lowered.remarks
