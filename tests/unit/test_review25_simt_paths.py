"""Adversarial programs on two SIMT default paths that no GPU has run yet, on the PTX emulator against numpy
(outputs NaN-prefilled):

* exchange-free reductions (``tileaa_to_simt/thread_local_reduce.py``): sums and maxima over every axis of
  1-, 2- and 3-D tiles with unit dimensions (a ``-inf`` among the values), each also compiled with
  ``TILEORCH_SIMT_REDUCE_EXCHANGE=1`` (the shared-memory exchange) and compared bit for bit; the module's
  cases (a unit dimension reduced first, the reduced dimension above every thread-index bit) are asserted to
  skip the exchange (the driver's remark), so there the comparison is of two different kernels; a case with
  ``None`` is left to the lowering (a unit reduction may be no reduction at all, a 32-thread kernel's bits
  differ);
* ordered view accesses (``tileaa_to_simt/ordered_views.py``): an acquire load and a release store of the same
  tile in a loop whose stored tile is the loaded one transposed (another thread owns each element the next
  iteration reads), a relaxed f16 load padded with ``-inf`` (an all-negative row's maximum), an acquire f32
  load and a release int8 store of a ragged 2-D tile.

Needs cuda-tile, no GPU."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

from test_user_sweep13_strided import emulate_views  # noqa: E402

RNG = np.random.default_rng(2526)
ACQ, REL, RLX, DEV = ct.MemoryOrder.ACQUIRE, ct.MemoryOrder.RELEASE, ct.MemoryOrder.RELAXED, ct.MemoryScope.DEVICE
NO_EXCHANGE = "already holds the result elements"


@ct.kernel
def full_1d(X, Y, n: ct.Constant[int]):
    t = ct.load(X, index=(0,), shape=(n,))
    ct.store(Y, index=(0,), tile=ct.reshape(ct.sum(t), (1,)))
    ct.store(Y, index=(1,), tile=ct.reshape(ct.max(t), (1,)))


@ct.kernel
def axis_2d(X, S, M, a: ct.Constant[int], b: ct.Constant[int], axis: ct.Constant[int]):
    t = ct.load(X, index=(0, 0), shape=(a, b))
    ct.store(S, index=(0, 0), tile=ct.sum(t, axis=axis, keepdims=True))
    ct.store(M, index=(0, 0), tile=ct.max(t, axis=axis, keepdims=True))


@ct.kernel
def axis_3d(X, S, M, a: ct.Constant[int], b: ct.Constant[int], c: ct.Constant[int], axis: ct.Constant[int]):
    t = ct.load(X, index=(0, 0, 0), shape=(a, b, c))
    ct.store(S, index=(0, 0, 0), tile=ct.sum(t, axis=axis, keepdims=True))
    ct.store(M, index=(0, 0, 0), tile=ct.max(t, axis=axis, keepdims=True))


def _x(shape):
    x = RNG.standard_normal(shape).astype(np.float32)
    if x.size > 4:
        x.reshape(-1)[RNG.integers(0, x.size)] = -np.inf
    return x


def _reduced(kernel, name, x, outs, consts, monkeypatch):
    """The outputs with and without the exchange (equal bit for bit); whether the default skipped it."""
    got, skipped = [], False
    for exchange in ("", "1"):
        if exchange:
            monkeypatch.setenv("TILEORCH_SIMT_REDUCE_EXCHANGE", exchange)
        else:
            monkeypatch.delenv("TILEORCH_SIMT_REDUCE_EXCHANGE", raising=False)
        arrays = [np.full_like(o, np.nan) for o in outs]
        prog = emulate_views(kernel, name + exchange, [x.copy(), *arrays, *consts], (1,))
        skipped = skipped or (not exchange and any(NO_EXCHANGE in r for r in prog.remarks))
        assert not (exchange and any(NO_EXCHANGE in r for r in prog.remarks))
        got.append(arrays)
    monkeypatch.delenv("TILEORCH_SIMT_REDUCE_EXCHANGE", raising=False)
    for a, b in zip(*got):
        assert np.array_equal(a.view(np.uint32), b.view(np.uint32)), "the exchange-free reduction differs"
    return got[0], skipped


def _close(out, ref):
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("n", [1, 256, 4096])
def test_full_reduction_of_a_1d_tile(monkeypatch, n):
    x = _x((n,))
    (y,), _ = _reduced(full_1d, f"rv25_full_{n}", x, [np.zeros(2, np.float32)], [n], monkeypatch)
    _close(y, [x.sum(), x.max()])


@pytest.mark.parametrize("a,b,axis,no_exchange", [(1, 4096, 0, True), (1, 4096, 1, False), (256, 1, 1, None),
                                                  (8, 64, 0, None), (64, 4, 1, False), (1, 1, 0, None)])
def test_every_axis_of_a_2d_tile(monkeypatch, a, b, axis, no_exchange):
    x = _x((a, b))
    shape = (1, b) if axis == 0 else (a, 1)
    (s, m), skipped = _reduced(axis_2d, f"rv25_2d_{a}_{b}_{axis}", x, [np.zeros(shape, np.float32)] * 2,
                               [a, b, axis], monkeypatch)
    _close(s, x.sum(axis, keepdims=True))
    _close(m, x.max(axis, keepdims=True))
    assert no_exchange is None or skipped == no_exchange


@pytest.mark.parametrize("shape,axis,no_exchange", [((4, 1, 128), 1, True), ((4, 1, 128), 0, True),
                                                    ((4, 128, 1), 2, None), ((2, 8, 64), 0, True),
                                                    ((2, 8, 64), 2, False), ((8, 1, 1), 0, False)])
def test_axes_of_a_3d_tile_with_unit_dimensions(monkeypatch, shape, axis, no_exchange):
    x = _x(shape)
    out = tuple(1 if d == axis else e for d, e in enumerate(shape))
    (s, m), skipped = _reduced(axis_3d, "rv25_3d_" + "_".join(map(str, shape)) + f"_{axis}", x,
                               [np.zeros(out, np.float32)] * 2, [*shape, axis], monkeypatch)
    _close(s, x.sum(axis, keepdims=True))
    _close(m, x.max(axis, keepdims=True))
    assert no_exchange is None or skipped == no_exchange


# ----------------------------------------------------------------------------------------------- ordered views


@ct.kernel
def transpose_chain(Y, n: ct.Constant[int], steps: ct.Constant[int]):
    for _ in range(steps):
        t = ct.load(Y, index=(0, 0), shape=(n, n), memory_order=ACQ, memory_scope=DEV)
        ct.store(Y, index=(0, 0), tile=ct.transpose(t) * 2.0 + 1.0, memory_order=REL, memory_scope=DEV)


@ct.kernel
def relaxed_row_max(X, Y, tm: ct.Constant[int], tn: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.full((tm, tn), -1e30, dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tn))):
        acc = ct.maximum(acc, ct.load(X, index=(i, k), shape=(tm, tn), padding_mode=ct.PaddingMode.NEG_INF,
                                      memory_order=RLX, memory_scope=DEV).astype(ct.float32))
    ct.store(Y, index=(i,), tile=ct.max(acc, axis=1), memory_order=RLX, memory_scope=DEV)


@ct.kernel
def sign_mask(X, Mk, tm: ct.Constant[int], tn: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(tm, tn), memory_order=ACQ, memory_scope=DEV)
    ct.store(Mk, index=(i, j), tile=(x < 0).astype(ct.int8), memory_order=REL, memory_scope=DEV)


def test_acquire_release_of_one_tile_transposed_in_a_loop():
    """Each step reads what the previous step's release store wrote, element ``(i, j)`` written by the thread
    holding ``(j, i)`` of the loaded tile: three steps of ``y = y^T * 2 + 1``."""
    y0 = RNG.standard_normal((32, 32)).astype(np.float32)
    y = y0.copy()
    prog = emulate_views(transpose_chain, "rv25_transpose_chain", [y, 32, 3], (1,))
    assert "ld.acquire.gpu" in prog.ptx and "fence" in prog.ptx
    want = y0.astype(np.float64)
    for _ in range(3):
        want = want.T * 2 + 1
    np.testing.assert_allclose(y, want, rtol=1e-6)


def test_relaxed_f16_load_padded_with_negative_infinity():
    """Every value negative: a zero-padded ragged column tile would give 0 as the maximum."""
    x = (-np.abs(RNG.standard_normal((40, 100))) - 1).astype(np.float16)
    y = np.full(40, np.nan, np.float32)
    emulate_views(relaxed_row_max, "rv25_relaxed_row_max", [x, y, 16, 64], (3,))
    np.testing.assert_array_equal(y, x.astype(np.float32).max(1))


def test_acquire_f32_release_int8_ragged_tiles():
    x = RNG.standard_normal((50, 90)).astype(np.float32)
    m = np.full((50, 90), 7, np.int8)
    emulate_views(sign_mask, "rv25_sign_mask", [x, m, 32, 64], (2, 2))
    np.testing.assert_array_equal(m, (x < 0).astype(np.int8))
