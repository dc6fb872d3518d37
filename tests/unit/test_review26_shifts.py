"""Shift amounts of the width or more (review 26): PTX's ``shl`` / ``shr`` clamp the amount to the width (0, or
the sign for an arithmetic right shift), which ``cudatile_to_tileaa._arith_binary`` keeps for a constant amount
(LLVM's ``shl`` / ``lshr`` / ``ashr`` make it poison and drop the store of the result).  An amount that only LLVM
folds to a constant (``x << (x * 0 + 35)``) reached LLVM as a poison shift and its store was dropped (review 26's
strict xfail); since review 27 ``convert-arith-to-llvm`` guards every shift whose amount is not a constant below
the width (``transforms/defined_integer_llvm.py``).  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

C = ct.Constant
ZERO = ct.PaddingMode.ZERO
X = np.array([1, -1, 3, -7, 2 ** 30, 5, 6, 7], np.int32)


@ct.kernel
def constant_shifts_past_the_width(X, Y, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(0, 0), tile=(x << 33).reshape((1, BN)))
    ct.store(Y, index=(1, 0), tile=(x >> 40).reshape((1, BN)))


@ct.kernel
def folded_shift_past_the_width(X, Y, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(0, 0), tile=(x << (x * 0 + 35)).reshape((1, BN)))


def _emulate(monkeypatch, name, kernel, rows):
    spec = [((8,), "int32"), ((rows, 8), "int32"), 8]
    monkeypatch.setattr(s10e, "PROGRAMS", {name: UserProgram(kernel, spec, (1,), "simt")})
    return s10e.emulate(name, {0: X, 1: np.full((rows, 8), 77, np.int32)})[1]


def test_constant_amounts_clamp_like_ptx(monkeypatch):
    y = _emulate(monkeypatch, "rv26_const_shifts", constant_shifts_past_the_width, 2)
    np.testing.assert_array_equal(y[0], 0)
    np.testing.assert_array_equal(y[1], np.where(X < 0, -1, 0))


def test_an_amount_llvm_folds_past_the_width(monkeypatch):
    y = _emulate(monkeypatch, "rv26_folded_shift", folded_shift_past_the_width, 1)
    np.testing.assert_array_equal(y[0], 0)
