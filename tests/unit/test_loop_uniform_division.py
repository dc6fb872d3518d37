"""The chained consumer loop's IEEE division of the scores by a value shared by the whole tile
(``transforms/tileas/loop_division.py``: the soft cap's ``s / cap``): one reciprocal per thread and
three instructions per element, ``div.rn`` per element only in the branch a thread takes when an
operand lies outside ``[2^-60, 2^60]``.

Run on the PTX emulator (the f16 twin of ``zoo_softcap_lens_lse_bf16_d128``: 64 queries of 4 heads,
100 keys for batch 0 (an interior and a masked key tile) and 37 for batch 1, NaN-prefilled outputs) against numpy float64 with the
dynamic count of ``div.rn.f32``: none with ``cap = 30`` (before loop_division: one per score per key
tile), and with ``cap = -30`` (a negative divisor: the range test fails, every tile divides with
``div.rn``) the same attention (``-30 tanh(s / -30) = 30 tanh(s / 30)``) through the slow branch.
The compile test reads the driver's remark and the switch ``TILEORCH_UNIFORM_DIV=0``.  Needs cuda-tile."""

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
RNG = np.random.default_rng(31020)


@pytest.fixture(autouse=True)
def _twin(monkeypatch):
    s4.add_sweep_programs(monkeypatch, {TWIN: _f16_twin(PROGRAMS[NAME])})


def _h(*shape):
    return RNG.standard_normal(shape).astype(np.float16)


def _emulated(monkeypatch, cap: float):
    """The per-opcode thread-instruction counts of every CTA of the twin on 4 heads (2 per batch) x 64
    queries, its O and LSE checked."""
    from tileorch.testing import ptx_emulator

    made = []

    class Counted(ptx_emulator.Emu):
        count_instructions = True

        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            made.append(self)

    monkeypatch.setattr(ptx_emulator, "Emu", Counted)
    q, k, v = _h(4, 64, 128), _h(4, 100, 128), _h(4, 100, 128)
    lens = np.array([100, 37], np.int32)
    k[2:, 37:], v[2:, 37:] = 30.0, 1000.0  # past batch 1's length: the mask must hide them
    shapes = {0: q.shape, 1: k.shape, 2: v.shape, 4: q.shape, 5: (4, 64)}
    prog = s3.resized(TWIN, shapes, {7: cap})
    out = s3._chained(TWIN, {0: q, 1: k, 2: v, 3: lens}, (1, 4, 1), program=prog)
    ops = sum((Counter({o: n for o, n in e.traffic.items() if o.startswith("op:")}) for e in made), Counter())
    for bh in range(4):
        n = lens[bh // 2]
        s = 30.0 * np.tanh(_scores(q[bh], k[bh, :n], 1 / math.sqrt(128)) / 30.0)
        s4._check(out[4][bh], _attn(s, v[bh, :n]))
        m = s.max(-1, keepdims=True)
        lse = (m + np.log(np.exp(s - m).sum(-1, keepdims=True)))[..., 0]
        np.testing.assert_allclose(out[5][bh], lse, atol=2e-3, rtol=1e-3)
    return ops


def test_softcap_divides_by_one_reciprocal_per_thread(monkeypatch):
    ops = _emulated(monkeypatch, 30.0)
    assert ops["op:div.rn.f32"] == 0, ops["op:div.rn.f32"]
    assert ops["op:rcp.approx.ftz.f32"] > 0


def test_negative_cap_takes_div_rn_in_the_branch(monkeypatch):
    ops = _emulated(monkeypatch, -30.0)
    # each consumer thread's 32 scores of each 64 x 64 score tile: batch 0's 2 key tiles, batch 1's 1, 2 heads each
    assert ops["op:div.rn.f32"] == (2 * 2 + 2 * 1) * 128 * 32, ops["op:div.rn.f32"]


def test_remark_and_switch(monkeypatch):
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[NAME]
    data = cutile_bytecode(p.kernel, p.spec)
    remarks = list(lower_once(data, NAME, arch="sm_90a").remarks)
    assert [r for r in remarks if REMARK in r and r.startswith("remark: 1 ")], remarks
    monkeypatch.setenv("TILEORCH_UNIFORM_DIV", "0")
    assert not [r for r in lower_once(data, NAME, arch="sm_90a").remarks if REMARK in r]
