"""TILEORCH_ATTN_ROW_DIV: the chained epilogue's IEEE division ``acc / l_i`` by one reciprocal per
row (tileorch.transforms.tileas.row_division) is bit-identical to ``div.rn.f32``.

* the sequence itself, with exact rationals (independent of the compiler and the emulator): for
  operands in ``[2^-60, 2^60]`` and any reciprocal within 1 ulp of ``1/b`` (MUFU.RCP's bound), the
  result is ``a / b`` rounded to nearest even;
* the compiled attention kernel under the PTX emulator: the same output bits with and without the
  switch (plain, persistent with packed and ragged tiles, the next-S tail, causal), no ``div.rn``
  executed when every operand is in range, and ``div.rn`` taken (same bits) when an accumulator
  column is zero (below the range).
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import numpy as np
import pytest
from test_chained_emulated import _compile, _emulate


def _rn32(x: F) -> F:
    """``x`` rounded to the nearest float32 (ties to even; normal range), in integers: ``e`` with
    ``2^e <= |x| < 2^(e+1)``, then ``|x| / 2^(e-23)`` split into its whole part and remainder."""
    if x == 0:
        return F(0)
    sign, x = (-1 if x < 0 else 1), abs(x)
    n, d = x.numerator, x.denominator
    e = n.bit_length() - d.bit_length()  # 2^(e-1) < x < 2^(e+1)
    if (n << max(0, -e)) < (d << max(0, e)):  # x < 2^e
        e -= 1
    shift = 23 - e  # x / ulp = n 2^shift / d
    whole, rem = divmod(n << shift, d) if shift >= 0 else divmod(n, d << -shift)
    den = d if shift >= 0 else d << -shift
    if 2 * rem > den or (2 * rem == den and whole % 2):
        whole += 1
    return sign * (F(whole << -shift) if shift <= 0 else F(whole, 1 << shift))


def test_row_division_sequence_is_correctly_rounded():
    from tileorch.transforms.tileas.row_division import HIGH, LOW

    rng = random.Random(7)
    lo, hi = int(np.log2(LOW)), int(np.log2(HIGH)) - 1

    def operand() -> F:
        return F(rng.randint(2 ** 23, 2 ** 24 - 1), 2 ** 23) * F(2) ** rng.randint(lo, hi) * rng.choice((1, -1))

    for i in range(3000):
        a, b = operand(), operand()
        if i % 3 == 0:  # quotients close to representable ones
            a = _rn32(b * rng.randint(1, 4096))
        exact = _rn32(1 / b)
        r0 = _rn32(exact + rng.choice((-1, 1)) * abs(exact) * F(rng.randint(0, 1000), 1000 * 2 ** 23))
        r = _rn32(r0 * _rn32(1 - b * r0) + r0)
        q = _rn32(a * r)
        rem = _rn32(a - q * b)
        assert _rn32(r * rem + q) == _rn32(a / b), (float(a), float(b), float(r0))


def _executed(monkeypatch) -> list[str]:
    from tileorch.testing import ptx_emulator

    seen: list[str] = []
    real = ptx_emulator.Emu.execute

    def execute(self, op, ops, T):
        seen.append(op)
        return real(self, op, ops, T)

    monkeypatch.setattr(ptx_emulator.Emu, "execute", execute)
    return seen


CASES = [  # (environment, (seq, d, tile_m, tile_n, causal), persistent CTAs)
    ({"TILEORCH_ATTN_PERSISTENT": "1"}, (300, 64, 128, 128, False), 2),  # packed whole tiles + a ragged one
    ({"TILEORCH_ATTN_PERSISTENT": "1", "TILEORCH_ATTN_NEXT_S": "1"}, (300, 64, 128, 128, False), 1),
    ({"TILEORCH_ATTN_PERSISTENT": "0", "TILEORCH_ATTN_EPILOGUE": "scalar"}, (200, 64, 64, 64, True), 1),
]


@pytest.mark.parametrize("env,cfg,ctas", CASES)
def test_row_div_bit_identical_emulated(env, cfg, ctas, monkeypatch):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("TILEORCH_ATTN_ROW_DIV", "0")
    base = _compile(*cfg)
    assert "div.rn.f32" in base.ptx and "row_div" not in base.chained
    monkeypatch.setenv("TILEORCH_ATTN_ROW_DIV", "1")
    p = _compile(*cfg)
    assert p.chained.get("row_div") is True, p.chained
    assert any("one reciprocal per divisor value" in r for r in p.remarks), p.remarks
    assert "rcp.approx.ftz.f32" in p.ptx and "div.rn.f32" in p.ptx  # the fast path and the fallback
    seen = _executed(monkeypatch)
    out, ref, errors = _emulate(p, *cfg, ctas_persistent=ctas)
    assert not errors, errors[:4]
    assert not any(op.startswith("div.rn") for op in seen), "an in-range epilogue took div.rn"
    assert sum(op.startswith("rcp.approx") for op in seen) > 0
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)
    want, _, errors = _emulate(base, *cfg, ctas_persistent=ctas)
    assert not errors, errors[:4]
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))


def test_row_div_out_of_range_takes_div_rn(monkeypatch):
    """V zero in its first 8 columns: every thread holds an accumulator element of 0 (below 2^-60),
    so each takes the div.rn copy, with the same output bits as without the switch."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    cfg = (256, 64, 128, 128, False)
    monkeypatch.setenv("TILEORCH_ATTN_ROW_DIV", "0")
    base = _compile(*cfg)
    monkeypatch.setenv("TILEORCH_ATTN_ROW_DIV", "1")
    p = _compile(*cfg)
    seen = _executed(monkeypatch)

    def zero_columns(q, k, v):
        v[..., :8] = 0

    out, ref, errors = _emulate(p, *cfg, ctas_persistent=1, adjust=zero_columns)
    assert not errors, errors[:4]
    assert sum(op.startswith("div.rn") for op in seen) > 0, "the out-of-range epilogue did not take div.rn"
    assert (out[..., :8] == 0).all() and not np.isnan(out).any()
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)
    want, _, _ = _emulate(base, *cfg, ctas_persistent=1, adjust=zero_columns)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))


def test_row_div_refused_where_the_quotients_do_not_fit(monkeypatch):
    """d256: the 128 quotients beside the 128 accumulator registers would spill (ptxas 13.0: 292
    bytes): the epilogue keeps div.rn and a remark says why."""
    monkeypatch.setenv("TILEORCH_ATTN_ROW_DIV", "1")
    p = _compile(300, 256, 128, 64, False)
    assert "row_div" not in p.chained and "exceed the consumer's registers" in p.chained["row_div_off"]
    assert any("TILEORCH_ATTN_ROW_DIV not applied" in r for r in p.remarks), p.remarks
    assert "rcp.approx.ftz.f32" not in p.ptx and "div.rn.f32" in p.ptx
