"""``tileaa-exp-below-lse`` (``tileaa_to_simt/exp_below_lse.py``) on the PTX emulator against numpy: sweep 10's
cross entropy forward + backward with f32 logits and an f32 gradient (so the exponential's own error shows, not a
bf16 rounding), rows shifted by +-60 (``|lse|`` ~ 60: the folded ``lse * log2 e``'s rounding), a row spread over
[-120, 0] (results below 2^-126 flushed to 0 by ``ex2.approx.ftz``), ragged rows (the gradient loop pads with zeros,
the max loop with -inf: accepted because the padded exponentials are only stored).  The gradient is within the
module's absolute bound ``(|lse| + 1) 2^-24 + 2^-22`` (times the scale) of the same kernel compiled with
``TILEORCH_EXP_BELOW_LSE=0`` (the full-precision exp, the same forward loop: the same lse bits), both near numpy's
float64 softmax.  (The emulator's ``ex2.approx`` is exact: the device's is measured by the GPU run.)  Needs
cuda-tile, no GPU, no ptxas."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

import test_user_sweep10_emulated as s10e  # noqa: E402

ROWS, V, BV, SCALE = 4, 1000, 256, 0.25  # four tiles a row, the last of 232 columns


def _inputs():
    rng = np.random.default_rng(34)
    x = (rng.standard_normal((ROWS, V)) * 3).astype(np.float32)
    x[1] += 60.0
    x[2] -= 60.0
    x[3] = -120.0 * rng.random(V).astype(np.float32)
    labels = np.array([3, -100, V - 1, 500], np.int64)
    return x, labels


def _run(monkeypatch, below: str):
    from tileorch.testing.user_programs10 import cross_entropy_fwd_bwd_vocab as kernel

    monkeypatch.setenv("TILEORCH_EXP_BELOW_LSE", below)
    x, labels = _inputs()
    got = s10e.emulate_kernel(monkeypatch, f"ce_exp_below_lse_{below}", kernel,
                              [x, labels, np.full(ROWS, np.nan, np.float32), np.full((ROWS, V), np.nan, np.float32)],
                              (-100, SCALE, BV), (ROWS,))
    return got


def _prog(below: str):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    return compile_once(cutile_bytecode(s10e.PROGRAMS[f"ce_exp_below_lse_{below}"].kernel,
                                        s10e.PROGRAMS[f"ce_exp_below_lse_{below}"].spec),
                        f"ce_exp_below_lse_{below}", arch="sm_90a", ptxas=False)


def test_gradient_exp_within_the_bound_against_the_full_form_and_numpy(monkeypatch):
    x, labels = _inputs()
    new = _run(monkeypatch, "1")
    said = [r for r in _prog("1").remarks if "exp(x - lse)" in r]
    assert len(said) == 1 and "1 exponential(s)" in said[0], _prog("1").remarks
    assert "ex2.approx.ftz.f32" in _prog("1").ptx
    full = _run(monkeypatch, "0")
    assert not any("exp(x - lse)" in r for r in _prog("0").remarks)

    xd = x.astype(np.float64)
    lse = xd.max(1) + np.log(np.exp(xd - xd.max(1, keepdims=True)).sum(1))
    keep = labels != -100
    onehot = np.zeros_like(xd)
    onehot[np.arange(ROWS)[keep], labels[keep]] = 1.0
    scale = np.where(keep, SCALE, 0.0)[:, None]  # (the program multiplies by inv_count on kept rows)
    want = (np.exp(xd - lse[:, None]) - onehot) * scale
    for out in (new, full):
        assert not np.isnan(out[3]).any() and not np.isnan(out[2]).any()
        np.testing.assert_allclose(out[2], np.where(keep, lse - xd[np.arange(ROWS), np.where(keep, labels, 0)], 0.0),
                                   rtol=1e-6, atol=1e-5)
    bound = ((np.abs(lse) + 1.0) * 2.0 ** -24 + 2.0 ** -22)[:, None] * scale
    assert (np.abs(new[3] - full[3]) <= bound).all(), np.abs(new[3] - full[3]).max()
    # near numpy: the bound plus the forward loop's lse error (the same in both forms) times p
    np.testing.assert_allclose(new[3], want, rtol=0, atol=2.0 ** -20)
    assert np.abs(new[3] - want).max() > 0  # (not bit-equal to float64: an f32 computation was checked)
    tiny = (np.exp(xd - lse[:, None]) < 2.0 ** -126) & keep[:, None] & (onehot == 0)
    assert tiny[3].sum() > 50  # (the spread row has results below the normal range)
    assert (new[3][tiny] == 0).all()  # flushed by ex2.approx.ftz
    assert (full[3][tiny] != 0).any()  # the full-precision exp keeps subnormals
