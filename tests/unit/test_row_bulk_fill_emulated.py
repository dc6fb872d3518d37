"""``TILEORCH_ROW_BULK_FILL=1`` (``tileaa_to_simt/row_bulk_fill.py``) with ``TILEORCH_ROW_SMEM_CACHE=1``: the row's
whole tiles are bulk-copied (``cp.async.bulk`` + mbarrier) into their slots before the fill loop, which reads them
from shared memory.  On the PTX emulator (which reports an ``ld.shared`` of a bulk copy's bytes before the thread
waited for its barrier) against numpy (f64), NaN-prefilled outputs, the same bits as without the cache; each CTA's
bulk-copied bytes are counted and checked against the contract's rule (whole tiles only, a row whose start is not
16-byte aligned -- an odd bf16 column count makes rows 1, 2 so -- copies nothing, at most the slots the launch
gives), so a lowering that silently fell back to the loaded path fails.  Needs cuda-tile and ml_dtypes, no GPU."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

from test_row_smem_cache_emulated import BV, _bits, _x  # noqa: E402  (the row cache's inputs and bit views)


def _emulate(monkeypatch, name, kernel, spec, grid, inputs, bulk: bool):
    """The program with the row cache on (bulk fill ``bulk``): (outputs, program, bulk bytes per CTA)."""
    from tileorch.testing import ptx_emulator
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    monkeypatch.setenv("TILEORCH_ROW_SMEM_CACHE", "1")
    monkeypatch.setenv("TILEORCH_ROW_BULK_FILL", "1" if bulk else "0")
    monkeypatch.setattr(s10e, "PROGRAMS", {name: UserProgram(kernel, spec, grid, "simt")})
    prog = compile_once(cutile_bytecode(kernel, spec), name, arch="sm_90a", ptxas=False)
    assert prog.row_cache is not None, prog.remarks
    copied: Counter = Counter()
    plain = ptx_emulator.Emu.bulk_copy

    def counting(self, op, ops, T):
        before = self.traffic.copy()
        plain(self, op, ops, T)
        copied[self.ctaid[0]] += sum((self.traffic - before).values())

    monkeypatch.setattr(ptx_emulator.Emu, "bulk_copy", counting)
    return s10e.emulate(name, inputs), prog, copied


def _expected(rows: int, v: int, esize: int, slots: int | None = None) -> dict[int, int]:
    """The contract's bulk bytes per row: the whole tiles of a row whose start is 16-byte aligned, at most
    ``slots`` of them."""
    out = {}
    for r in range(rows):
        tiles = v // BV if (r * v * esize) % 16 == 0 else 0
        tiles = tiles if slots is None else min(tiles, slots)
        if tiles:
            out[r] = tiles * BV * esize
    return out


def _lsm(x):
    return x - np.log(np.exp(x.astype(np.float64)).sum(1))[:, None]


@pytest.mark.parametrize("v", [32001, 4095, 1000, 8 * BV, 3 * BV + 8])
def test_log_softmax(v, monkeypatch):
    """Ragged (32001, 4095: rows 1 and 2 not 16-byte aligned, the loaded path), no whole tile (1000), every row
    aligned and whole (8192), a tail of 8 columns (3080: every row aligned)."""
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    x = _x(3, v, 12)
    spec = [((3, v), "bfloat16"), ((3, v), "bfloat16"), BV]
    got, prog, copied = _emulate(monkeypatch, "bulk_lsm", kernel, spec, (3,), {0: x}, True)
    assert dict(copied) == _expected(3, v, 2), (dict(copied), prog.remarks)
    if copied:
        assert "cp.async.bulk.shared::cluster.global" in prog.ptx and "mbarrier.try_wait.parity" in prog.ptx
    np.testing.assert_allclose(got[1], _lsm(x), rtol=2e-2, atol=5e-2)
    if v <= 8 * BV:  # (the same bits as the cache's loaded fill; 32001 columns: numpy alone, for CI time)
        base, _, none = _emulate(monkeypatch, "bulk_lsm", kernel, spec, (3,), {0: x}, False)
        assert not none
        np.testing.assert_array_equal(_bits(got[1]), _bits(base[1]))


def test_row_longer_than_the_shared_memory(monkeypatch):
    """120000 bf16 columns (117 whole tiles, 240 KB): the slots the launch gives are bulk-filled, the rest of the
    row takes the loaded path (and the second loop reloads it)."""
    from tileorch.launchers.row_cache_smem import MAX_DYNAMIC_SMEM
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    v = 120000
    x = _x(2, v, 13)
    spec = [((2, v), "bfloat16"), ((2, v), "bfloat16"), BV]
    got, prog, copied = _emulate(monkeypatch, "bulk_long", kernel, spec, (2,), {0: x}, True)
    base = prog.smem  # (the scratch and the barriers, 16-byte aligned: the slots' base)
    slots = (MAX_DYNAMIC_SMEM - base) // (BV * 2)
    assert slots < v // BV and dict(copied) == _expected(2, v, 2, slots), (slots, dict(copied))
    np.testing.assert_allclose(got[1], _lsm(x), rtol=2e-2, atol=5e-2)


@pytest.mark.parametrize("slots", [0, 1, 3])
def test_slots_past_the_launch(slots, monkeypatch):
    """A launch whose shared memory holds ``slots`` of the row's tiles: only those are bulk-copied."""
    import tileorch.launchers.row_cache_smem as sizing
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    v = 5 * BV + 8
    x = _x(3, v, 14)
    spec = [((3, v), "bfloat16"), ((3, v), "bfloat16"), BV]
    base, _, _ = _emulate(monkeypatch, "bulk_fit", kernel, spec, (3,), {0: x}, False)
    _, prog, _ = _emulate(monkeypatch, "bulk_fit", kernel, spec, (3,), {0: x}, True)
    monkeypatch.setattr(sizing, "MAX_DYNAMIC_SMEM", prog.smem + slots * prog.row_cache[2] + prog.row_cache[2] // 2)
    got, _, copied = _emulate(monkeypatch, "bulk_fit", kernel, spec, (3,), {0: x}, True)
    assert dict(copied) == _expected(3, v, 2, slots)
    np.testing.assert_array_equal(_bits(got[1]), _bits(base[1]))


def _f16(rows: int, v: int, seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal((rows, v)) * 3).astype(np.float16)


@pytest.mark.parametrize("v", [4 * BV, 2310])
def test_cross_entropy_forward_backward(v, monkeypatch):
    from tileorch.testing.user_programs10 import cross_entropy_fwd_bwd_vocab as kernel

    x = _f16(6, v, 15)
    labels = np.array([3, -100, 5, 7, v - 1, 0], np.int64)
    spec = [((6, v), "float16"), ((6,), "int64"), ((6,), "float32"), ((6, v), "float16"), -100, 0.125, BV]
    got, _, copied = _emulate(monkeypatch, "bulk_ce", kernel, spec, (6,), {0: x, 1: labels}, True)
    assert dict(copied) == _expected(6, v, 2)
    xd = x.astype(np.float64)
    lse = np.log(np.exp(xd).sum(1))
    keep = labels != -100
    np.testing.assert_allclose(got[2], np.where(keep, lse - xd[np.arange(6), np.where(keep, labels, 0)], 0.0),
                               rtol=1e-5, atol=1e-4)
    onehot = np.zeros_like(xd)
    onehot[np.arange(6)[keep], labels[keep]] = 1
    want = np.where(keep[:, None], (np.exp(xd - lse[:, None]) - onehot) * 0.125, 0.0)
    np.testing.assert_allclose(got[3], want, rtol=1e-2, atol=1e-5)
    base, _, _ = _emulate(monkeypatch, "bulk_ce", kernel, spec, (6,), {0: x, 1: labels}, False)
    np.testing.assert_array_equal(_bits(got[3]), _bits(base[3]))


@pytest.mark.parametrize("v", [3 * BV + 1, 4 * BV])
def test_softmax_three_loops(v, monkeypatch):
    """One bulk fill, two reads."""
    from tileorch.testing.row_cache_programs import softmax_three_loops as kernel

    x = _f16(3, v, 16)
    spec = [((3, v), "float16"), ((3, v), "float16"), BV]
    got, prog, copied = _emulate(monkeypatch, "bulk_sm3", kernel, spec, (3,), {0: x}, True)
    assert dict(copied) == _expected(3, v, 2)
    assert len(re.findall(r"ld\.shared\.v[24]", prog.ptx)) >= 3  # (the fill's slot read and the two reads)
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max(1, keepdims=True))
    np.testing.assert_allclose(got[1], e / e.sum(1, keepdims=True), rtol=2e-3, atol=1e-5)


@pytest.mark.parametrize("v", [4 * BV - 1, 4 * BV])
def test_layernorm_column_loop(v, monkeypatch):
    from tileorch.testing.row_cache_programs import layernorm_column_loop as kernel

    rng = np.random.default_rng(17)
    x = _x(3, v, 17) + 1.0
    w, b = rng.standard_normal(v).astype(np.float32), rng.standard_normal(v).astype(np.float32)
    spec = [((3, v), "bfloat16"), ((v,), "float32"), ((v,), "float32"), ((3, v), "float32"), 1e-5, BV]
    got, _, copied = _emulate(monkeypatch, "bulk_ln", kernel, spec, (3,), {0: x, 1: w, 2: b}, True)
    assert dict(copied) == _expected(3, v, 2)
    xd = np.asarray(got[0], np.float64)
    mean = xd.mean(1, keepdims=True)
    want = (xd - mean) / np.sqrt(xd.var(1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(got[3], want, rtol=1e-3, atol=1e-3)
    base, _, _ = _emulate(monkeypatch, "bulk_ln", kernel, spec, (3,), {0: x, 1: w, 2: b}, False)
    np.testing.assert_array_equal(_bits(got[3]), _bits(base[3]))


def test_a_read_before_the_wait_is_reported(monkeypatch):
    """The emulator's check the tests above rely on: the fill's wait removed, its ``ld.shared`` of the bulk bytes
    is reported."""
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel
    from tileorch.transforms.tileaa_to_simt import row_bulk_fill

    from tileorch.driver import compile_program
    from tileorch.testing import compile_memo

    monkeypatch.setattr(row_bulk_fill.RowBulkFill, "_bulk_wait", lambda self, b, k, shift: None)
    # (a patched compile is not memoised: compile_memo's rule)
    monkeypatch.setattr(compile_memo, "compile_once", lambda data, name, **options: compile_program(data, name, **options))
    x = _x(3, 2 * BV, 18)
    spec = [((3, 2 * BV), "bfloat16"), ((3, 2 * BV), "bfloat16"), BV]
    with pytest.raises(AssertionError, match="before thread"):
        _emulate(monkeypatch, "bulk_nowait", kernel, spec, (3,), {0: x}, True)


def test_row_loop_not_bulk_filled(monkeypatch):
    """Rows in a loop (each program takes rows ``bid, bid + 2``): the barriers complete one phase, so the fill
    is not bulk-copied (a remark says why) and each row is still right -- a second row's tiles are not the
    first's."""
    from tileorch.testing.row_cache_programs import log_softmax_rows_loop as kernel

    v = 2 * BV
    x = _x(4, v, 19)
    spec = [((4, v), "bfloat16"), ((4, v), "bfloat16"), BV]
    got, prog, copied = _emulate(monkeypatch, "bulk_rows", kernel, spec, (2,), {0: x}, True)
    assert not copied and any("not bulk-filled: the fill loop runs inside another loop" in r for r in prog.remarks), \
        prog.remarks
    np.testing.assert_allclose(got[1], _lsm(x), rtol=2e-2, atol=5e-2)


def test_fill_loop_under_a_branch(monkeypatch):
    """The loops under ``if r < R``: the copies are issued in the branch (the fill loop's block), so a program that
    skips it copies nothing (the emulator also reports a CTA exiting before a bulk copy's barrier was waited for)."""
    from tileorch.testing.row_cache_programs import log_softmax_rows_below as kernel

    v = 2 * BV
    x = _x(3, v, 20)
    spec = [((3, v), "bfloat16"), ((3, v), "bfloat16"), 1, BV]
    got, _, copied = _emulate(monkeypatch, "bulk_below", kernel, spec, (3,), {0: x}, True)
    assert dict(copied) == {0: v * 2}
    np.testing.assert_allclose(got[1][:1], _lsm(x)[:1], rtol=2e-2, atol=5e-2)
    assert np.isnan(got[1][1:]).all()


def test_loop_shorter_than_the_row(monkeypatch):
    """Loops over the first 2 of a row's 5 tiles: only those 2 are copied (the copies are bounded by the fill
    loop's trips), the rest of the row is neither read nor written."""
    from tileorch.testing.row_cache_programs import log_softmax_first_tiles as kernel

    v = 5 * BV
    x = _x(3, v, 21)
    spec = [((3, v), "bfloat16"), ((3, v), "bfloat16"), 2, BV]
    got, _, copied = _emulate(monkeypatch, "bulk_first", kernel, spec, (3,), {0: x}, True)
    assert dict(copied) == {r: 2 * BV * 2 for r in range(3)}
    np.testing.assert_allclose(got[1][:, :2 * BV], _lsm(x[:, :2 * BV]), rtol=2e-2, atol=5e-2)
    assert np.isnan(got[1][:, 2 * BV:]).all()


@pytest.mark.parametrize("v", [4 * BV, 4 * BV - 1])
def test_log_softmax_in_place(v, monkeypatch):
    """Output = input: the second loop stores tile ``k`` over the row after the bulk copies have landed."""
    from tileorch.testing.row_cache_programs import log_softmax_in_place as kernel

    x = _x(3, v, 22)
    spec = [((3, v), "bfloat16"), BV]
    got, _, copied = _emulate(monkeypatch, "bulk_inplace", kernel, spec, (3,), {0: x}, True)
    assert dict(copied) == _expected(3, v, 2)
    np.testing.assert_allclose(got[0], _lsm(x), rtol=2e-2, atol=5e-2)
    base, _, _ = _emulate(monkeypatch, "bulk_inplace", kernel, spec, (3,), {0: x}, False)
    np.testing.assert_array_equal(_bits(got[0]), _bits(base[0]))
