"""``TILEORCH_PREFETCH_PAST_STORES=1`` (``tileaa_to_simt/prefetch.py``): a loop that stores issues its next
iteration's loads before this iteration's stores when cuTile left them unordered (the loads' token comes
from outside the loop).  On the PTX emulator, NaN-prefilled outputs, ragged rows:

* the log-softmax's second pass (sweep 10, bf16; sweep 6, f16 -> f32) is prefetched (its remark) and gives
  the same bits as the loop as written, and numpy's answer on finite rows;
* a loop whose loads cuTile ties to its stores (an in-place carry along the row) and a loop holding an
  atomic keep their order (no remark, the same PTX as without the setting) and numpy's answer.

Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

REMARK = "issue their next iteration's loads before this iteration's stores"


def _name(kernel) -> str:
    return getattr(kernel, "__name__", None) or kernel._pyfunc.__name__


def _compiled(kernel, spec, past: bool, monkeypatch):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    monkeypatch.setenv("TILEORCH_PREFETCH_PAST_STORES", "1" if past else "0")
    return compile_once(cutile_bytecode(kernel, spec), _name(kernel), arch="sm_90a", ptxas=False)


def _run(kernel, spec, grid, inputs, past: bool, monkeypatch):
    """(emulated arguments after the run, the compiled program) under the setting or without it."""
    prog = _compiled(kernel, spec, past, monkeypatch)
    monkeypatch.setattr(s10e, "PROGRAMS", {_name(kernel): UserProgram(kernel, spec, grid, "simt")})
    return s10e.emulate(_name(kernel), inputs), prog


def _took(prog) -> bool:
    return any(REMARK in r for r in prog.remarks)


def _rows(v: int, seed: int) -> np.ndarray:
    """Five rows: finite, a NaN, a +inf, scattered -inf, finite."""
    x = (np.random.default_rng(seed).standard_normal((5, v)) * 3).astype(np.float32)
    x[1, v // 3] = np.nan
    x[2, v - 1] = np.inf
    x[3, ::5] = -np.inf
    return x


def _lsm(x) -> np.ndarray:
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        return x - np.log(np.exp(x).sum(1))[:, None]


@pytest.mark.parametrize("which", ["bf16", "f16"])
def test_log_softmax_second_pass_prefetched(which, monkeypatch):
    if which == "bf16":
        from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

        v = 2312  # 9 tiles of 256 (the online softmax's minimum 8), the last 8 wide
        x = (_rows(v, 2).view(np.uint32) & 0xFFFF0000).view(np.float32)
        spec, tol = [((5, v), "bfloat16"), ((5, v), "bfloat16"), 256], 5e-2
    else:
        from tileorch.testing.user_programs6 import log_softmax_two_pass as kernel

        v = 2100
        x = _rows(v, 3).astype(np.float16)
        spec, tol = [((5, v), "float16"), ((5, v), "float32"), 256], 2e-6
    got, prog = _run(kernel, spec, (5,), {0: x}, True, monkeypatch)
    assert _took(prog), prog.remarks
    written, base = _run(kernel, spec, (5,), {0: x}, False, monkeypatch)
    assert not _took(base) and base.ptx != prog.ptx
    g, w = np.asarray(got[1], np.float64), np.asarray(written[1], np.float64)
    np.testing.assert_array_equal(g.view(np.uint64), w.view(np.uint64))  # the same bits, NaN where it was
    assert not np.isnan(g[[0, 4]]).any()
    np.testing.assert_allclose(g[[0, 4]], _lsm(x)[[0, 4]], rtol=tol, atol=tol)


def test_tied_in_place_carry_keeps_its_order(monkeypatch):
    from prefetch_programs import carry_along_row_in_place as kernel

    bv, v = 128, 5 * 128 - 3
    x = np.random.default_rng(4).standard_normal((3, v)).astype(np.float32)
    spec = [((3, v), "float32"), bv]
    got, prog = _run(kernel, spec, (3,), {0: x}, True, monkeypatch)
    assert not _took(prog), prog.remarks
    assert prog.ptx == _compiled(kernel, spec, False, monkeypatch).ptx
    want = x.copy()
    for k in range(4):  # tile k + 1 from tile k as stored by the iteration before
        hi = min(v, (k + 2) * bv)
        want[:, (k + 1) * bv:hi] = want[:, k * bv:k * bv + hi - (k + 1) * bv] + 1
    np.testing.assert_array_equal(got[0], want)


def test_loop_with_an_atomic_keeps_its_order(monkeypatch):
    from prefetch_programs import scaled_copy_counting as kernel

    v = 3 * 128 + 5
    x = np.random.default_rng(5).standard_normal((2, v)).astype(np.float32)
    spec = [((2, v), "float32"), ((2, v), "float32"), ((1,), "int32"), 128]
    got, prog = _run(kernel, spec, (2,), {0: x, 2: np.zeros(1, np.int32)}, True, monkeypatch)
    assert not _took(prog), prog.remarks
    assert prog.ptx == _compiled(kernel, spec, False, monkeypatch).ptx
    np.testing.assert_array_equal(got[1], 2 * x)
    assert got[2][0] == 2 * 4
