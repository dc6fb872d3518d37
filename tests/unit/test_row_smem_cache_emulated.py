"""``TILEORCH_ROW_SMEM_CACHE=1`` (``tileaa_to_simt/row_smem_cache.py``, ``row_cache_lowering.py``): a two-pass
row keeps its first loop's tiles in shared memory and its second loop reads them there.  On the PTX emulator
against numpy (f64), NaN-prefilled outputs, ragged widths (the tail tile padded: ``NEG_INF`` in the first
pass, ``ZERO`` in the second, so the read puts its own padding in), the launcher's dynamic shared memory
(one slot per tile), a row that fits only partly (the slots past the launch's shared memory reload from
global memory), an in-place call (output = input), and the switch off for the same bits.  The kernels are
checked to carry the cache (``st.shared.v{2,4}`` / ``ld.shared.v{2,4}`` in the PTX, the launch record), so a lowering
that silently dropped it fails.  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

BV = 1024


def _x(rows: int, v: int, seed: int) -> np.ndarray:
    x = (np.random.default_rng(seed).standard_normal((rows, v)) * 3).astype(np.float32)
    return (x.view(np.uint32) & 0xFFFF0000).view(np.float32)  # bf16 values


def _bits(a) -> np.ndarray:
    return np.asarray(a, np.float64).view(np.uint64)


def _compiled(name, kernel, spec, grid):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    return compile_once(cutile_bytecode(kernel, spec), name, arch="sm_90a", ptxas=False)


def _emulate(monkeypatch, name, kernel, spec, grid, inputs, cache: str):
    monkeypatch.setenv("TILEORCH_ROW_SMEM_CACHE", cache)
    monkeypatch.setattr(s10e, "PROGRAMS", {name: UserProgram(kernel, spec, grid, "simt")})
    prog = _compiled(name, kernel, spec, grid)
    cached = cache == "1" and prog.row_cache is not None
    if cache == "1":
        assert cached and re.search(r"st\.shared\.v[24]", prog.ptx) and re.search(r"ld\.shared\.v[24]", prog.ptx), \
            prog.remarks
    return s10e.emulate(name, inputs), prog


@pytest.mark.parametrize("v", [BV - 7, 1000, 2 * BV, 4 * BV - 1, 3 * BV + 1, 6 * BV - 3, 11 * BV + 5, 32001])
def test_log_softmax(v, monkeypatch):
    """1 to 32 tiles a row: the hoisted first loop runs 0 to 31 iterations with 4 tiles in flight (5 iterations a
    trip, ``fill_depth``), so every remainder of the rotation writes its slots."""
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    x = _x(3, v, 2)
    spec = [((3, v), "bfloat16"), ((3, v), "bfloat16"), BV]
    want = x - np.log(np.exp(x.astype(np.float64)).sum(1))[:, None]
    got, _ = _emulate(monkeypatch, "rowcache_lsm", kernel, spec, (3,), {0: x}, "1")
    np.testing.assert_allclose(got[1], want, rtol=2e-2, atol=5e-2)
    base, _ = _emulate(monkeypatch, "rowcache_lsm", kernel, spec, (3,), {0: x}, "0")
    np.testing.assert_array_equal(_bits(got[1]), _bits(base[1]))


def _f16(rows: int, v: int, seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal((rows, v)) * 3).astype(np.float16)


@pytest.mark.parametrize("v", [4 * BV - 1, 2310])
def test_cross_entropy_forward_backward(v, monkeypatch):
    """The loss (a store between the loops, unordered with the logits by the program's tokens), a gathered
    label logit (a load between them) and the gradient loop reading the cached logits."""
    from tileorch.testing.user_programs10 import cross_entropy_fwd_bwd_vocab as kernel

    x = _f16(6, v, 4)
    labels = np.array([3, -100, 5, 7, v - 1, 0], np.int64)
    spec = [((6, v), "float16"), ((6,), "int64"), ((6,), "float32"), ((6, v), "float16"), -100, 0.125, BV]
    got, _ = _emulate(monkeypatch, "rowcache_ce", kernel, spec, (6,), {0: x, 1: labels}, "1")
    xd = x.astype(np.float64)
    lse = np.log(np.exp(xd).sum(1))
    keep = labels != -100
    np.testing.assert_allclose(got[2], np.where(keep, lse - xd[np.arange(6), np.where(keep, labels, 0)], 0.0),
                               rtol=1e-5, atol=1e-4)
    onehot = np.zeros_like(xd)
    onehot[np.arange(6)[keep], labels[keep]] = 1
    want = np.where(keep[:, None], (np.exp(xd - lse[:, None]) - onehot) * 0.125, 0.0)
    np.testing.assert_allclose(got[3], want, rtol=1e-2, atol=1e-5)
    base, _ = _emulate(monkeypatch, "rowcache_ce", kernel, spec, (6,), {0: x, 1: labels}, "0")
    np.testing.assert_array_equal(_bits(got[3]), _bits(base[3]))


@pytest.mark.parametrize("v", [1000, 3 * BV + 1])
def test_softmax_three_loops(v, monkeypatch):
    """One fill, two reads (the sum loop pads as the fill does, the write loop with zeros)."""
    from tileorch.testing.row_cache_programs import softmax_three_loops as kernel

    x = _f16(3, v, 5)
    spec = [((3, v), "float16"), ((3, v), "float16"), BV]
    got, prog = _emulate(monkeypatch, "rowcache_sm3", kernel, spec, (3,), {0: x}, "1")
    assert len(re.findall(r"ld\.shared\.v[24]", prog.ptx)) >= 2
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max(1, keepdims=True))
    np.testing.assert_allclose(got[1], e / e.sum(1, keepdims=True), rtol=2e-3, atol=1e-5)


@pytest.mark.parametrize("v", [1000, 4 * BV - 1, 32001])
def test_layernorm_column_loop(v, monkeypatch):
    """ZERO padding in both loops (no padding fix); W and B read in the second loop only."""
    from tileorch.testing.row_cache_programs import layernorm_column_loop as kernel

    rng = np.random.default_rng(6)
    x = _x(3, v, 6) + 1.0
    w, b = rng.standard_normal(v).astype(np.float32), rng.standard_normal(v).astype(np.float32)
    spec = [((3, v), "bfloat16"), ((v,), "float32"), ((v,), "float32"), ((3, v), "float32"), 1e-5, BV]
    got, _ = _emulate(monkeypatch, "rowcache_ln", kernel, spec, (3,), {0: x, 1: w, 2: b}, "1")
    xd = np.asarray(got[0], np.float64)
    mean = xd.mean(1, keepdims=True)
    want = (xd - mean) / np.sqrt(xd.var(1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(got[3], want, rtol=1e-3, atol=1e-3)
    base, _ = _emulate(monkeypatch, "rowcache_ln", kernel, spec, (3,), {0: x, 1: w, 2: b}, "0")
    np.testing.assert_array_equal(_bits(got[3]), _bits(base[3]))


@pytest.mark.parametrize("v", [1000, 4 * BV - 1])
def test_log_softmax_in_place(v, monkeypatch):
    """Output = input: the second loop stores tile ``k`` over the row after reading it from the cache."""
    from tileorch.testing.row_cache_programs import log_softmax_in_place as kernel

    x = _x(3, v, 7)
    spec = [((3, v), "bfloat16"), BV]
    got, _ = _emulate(monkeypatch, "rowcache_inplace", kernel, spec, (3,), {0: x}, "1")
    np.testing.assert_allclose(got[0], x - np.log(np.exp(x.astype(np.float64)).sum(1))[:, None], rtol=2e-2,
                               atol=5e-2)
    base, _ = _emulate(monkeypatch, "rowcache_inplace", kernel, spec, (3,), {0: x}, "0")
    np.testing.assert_array_equal(_bits(got[0]), _bits(base[0]))


@pytest.mark.parametrize("slots", [0, 1, 3])
def test_row_past_the_shared_memory(slots, monkeypatch):
    """A launch whose shared memory holds ``slots`` of the row's 5 tiles (the launcher's cap lowered): those
    come from shared memory, the rest from global memory -- the same bits."""
    import tileorch.launchers.row_cache_smem as sizing
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    v = 5 * BV - 3
    x = _x(3, v, 8)
    spec = [((3, v), "bfloat16"), ((3, v), "bfloat16"), BV]
    base, prog = _emulate(monkeypatch, "rowcache_fit", kernel, spec, (3,), {0: x}, "0")
    monkeypatch.setenv("TILEORCH_ROW_SMEM_CACHE", "1")
    prog = _compiled("rowcache_fit", kernel, spec, (3,))
    scratch, slot = -(-prog.smem // 16) * 16, prog.row_cache[2]
    monkeypatch.setattr(sizing, "MAX_DYNAMIC_SMEM", scratch + slots * slot + slot // 2)
    got, _ = _emulate(monkeypatch, "rowcache_fit", kernel, spec, (3,), {0: x}, "1")
    np.testing.assert_array_equal(_bits(got[1]), _bits(base[1]))
    assert sizing.launch_smem(prog, [bytes(8), *[v.to_bytes(4, "little")] * 4]) == prog.smem + slots * slot


@pytest.mark.parametrize("v", [BV - 5, 3 * BV + 4, 2 * BV])
def test_read_puts_its_own_padding(v, monkeypatch):
    """The fill pads with ``-inf`` (a max), the read with zeros (a sum): the ragged tail tile's padded lanes
    must read 0 from the cache, or the sum is ``-inf``."""
    from tileorch.testing.row_cache_programs import max_then_zero_padded_sum as kernel

    x = np.random.default_rng(9).standard_normal((3, v)).astype(np.float32)
    spec = [((3, v), "float32"), ((3,), "float32"), BV]
    got, _ = _emulate(monkeypatch, "rowcache_pad", kernel, spec, (3,), {0: x}, "1")
    np.testing.assert_allclose(got[1], x.max(1) + x.astype(np.float64).sum(1), rtol=1e-5, atol=1e-4)


def test_two_rows_one_cache(monkeypatch):
    """Two arrays read twice: the first fill's row is kept, the other's second read reloads (a remark says so)."""
    from tileorch.testing.row_cache_programs import two_rows_read_twice as kernel

    v = 3 * BV - 2
    rng = np.random.default_rng(10)
    x, d = rng.standard_normal((2, 3, v)).astype(np.float32)
    spec = [((3, v), "float32"), ((3, v), "float32"), ((3, v), "float32"), BV]
    got, prog = _emulate(monkeypatch, "rowcache_two", kernel, spec, (3,), {0: x, 1: d}, "1")
    assert any("1 more pair(s) of loads of a row read twice reload" in r for r in prog.remarks), prog.remarks
    xd, dd = x.astype(np.float64), d.astype(np.float64)
    want = xd * dd.sum(1, keepdims=True) + dd * xd.sum(1, keepdims=True)
    np.testing.assert_allclose(got[2], want, rtol=1e-4, atol=1e-3)
