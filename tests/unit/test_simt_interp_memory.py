"""The SIMT interpreter's memory accesses (tests/unit/simt_interp.py), vectorized over the threads,
against the thread-by-thread rules they replace: a store of a later thread wins where two overlap,
loads read the right buffer (global or shared), the first failing thread (thread order) names the
error, ``ldmatrix`` follows the PTX ISA's lane rule, ``mma.sync`` the ISA's fragment layouts."""

from __future__ import annotations

import re
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("xdsl")

from simt_interp import (SHARED_BASE, Interpreter, Memory, SimtError, _frag_a, _frag_b, _frag_c,  # noqa: E402
                         _load_plan, _store_plan, mma_sync)
from xdsl.dialects.builtin import Float16Type, Float32Type, Float64Type, IntegerType, VectorType  # noqa: E402

T = 64


def _interp(*buffers: bytes) -> tuple[Interpreter, list[int]]:
    mem = Memory()
    bases = [mem.place(b) for b in buffers]
    it = Interpreter(None, mem, T, smem_bytes=1024)
    it.smem = np.zeros(1024, np.uint8)
    return it, bases


def test_overlapping_stores_keep_the_last_threads_bytes():
    it, (base,) = _interp(bytes(64))
    addrs = np.full(T, base + 8, np.int64)  # every thread stores to the same word
    it._store(addrs, np.arange(T, dtype=np.int64), IntegerType(32), np.ones(T, bool), None)
    assert int(np.frombuffer(it.mem.buffers[0][1][8:12].tobytes(), np.int32)[0]) == T - 1
    mask = np.ones(T, bool)
    mask[T - 1] = False  # the last active thread wins, not the last thread
    it._store(addrs, np.arange(T, dtype=np.int64) + 100, IntegerType(32), mask, None)
    assert int(np.frombuffer(it.mem.buffers[0][1][8:12].tobytes(), np.int32)[0]) == 100 + T - 2


def test_loads_read_each_threads_buffer_and_shared_memory():
    a = np.arange(32, dtype=np.float32)
    b = -np.arange(32, dtype=np.float32)
    it, (ba, bb) = _interp(a.tobytes(), b.tobytes())
    it.smem[:16] = np.frombuffer(np.array([7, 8, 9, 10], np.float32).tobytes(), np.uint8)
    t = np.arange(T)
    addrs = np.where(t % 3 == 0, ba + 4 * (t % 8) * 4, np.where(t % 3 == 1, bb + 16 * (t % 8), SHARED_BASE))
    got = it._load(addrs, VectorType(Float32Type(), [4]), np.ones(T, bool), 16)
    for i in range(T):
        want = (a[4 * (i % 8):4 * (i % 8) + 4] if i % 3 == 0 else b[4 * (i % 8):4 * (i % 8) + 4] if i % 3 == 1
                else np.array([7, 8, 9, 10], np.float32))
        assert got[i].tolist() == want.tolist(), i
    masked = np.zeros(T, bool)
    masked[4] = True
    got = it._load(np.where(masked, addrs, 0), Float32Type(), masked, None)  # inactive threads: never read
    assert got[4] == b[16] and not got[np.arange(T) != 4].any()


def test_the_first_failing_thread_names_the_error():
    it, (base,) = _interp(bytes(64))
    addrs = np.full(T, base, np.int64)
    addrs[10] = base + 2  # misaligned
    addrs[20] = base + 4096  # outside every buffer
    with pytest.raises(SimtError, match=rf"misaligned load of 4 bytes at {base + 2:#x}"):
        it._load(addrs, Float32Type(), np.ones(T, bool), None)
    addrs[10] = base
    addrs[5] = SHARED_BASE + 1024  # past the shared scratch: thread 5 comes first
    with pytest.raises(SimtError, match="shared access at 1024 of 4 bytes outside the scratch"):
        it._store(addrs, np.zeros(T, np.float32), Float32Type(), np.ones(T, bool), None)
    addrs[5] = base
    with pytest.raises(SimtError, match="outside every buffer"):
        it._load(addrs, Float32Type(), np.ones(T, bool), None)
    mask = np.ones(T, bool)
    mask[20] = False  # an inactive thread's address is not checked
    assert it._load(addrs, Float32Type(), mask, None).shape == (T,)



@pytest.mark.parametrize("typ", [IntegerType(8), IntegerType(16), IntegerType(32), IntegerType(64), Float16Type(),
                                 Float32Type(), Float64Type()], ids=str)
def test_one_threads_scalar_access_is_the_masked_access_of_that_thread(typ):
    """The atomics' one-thread load and store (``_load_one`` / ``_store_one``) against ``_load`` / ``_store``
    with only that thread active: the same value (signed integers sign-extended), the same bytes written
    (a value wider than the type wrapped), the same error for a misaligned address, one past a buffer, one
    past the shared scratch."""
    rng = np.random.default_rng(7)
    data = rng.integers(0, 256, 256, dtype=np.uint8).tobytes()
    size = max(1, (typ.width.data if isinstance(typ, IntegerType) else typ.bitwidth) // 8)
    load, store = _load_plan(typ, None), _store_plan(typ, None)
    one = np.zeros(T, bool)
    one[9] = True
    for where in ("global", "shared"):
        a, (base,) = _interp(data)  # the masked paths
        b, _ = _interp(data)  # the one-thread paths
        for m in (a, b):
            m.smem[:] = np.frombuffer(data * 4, np.uint8)
        at = (base if where == "global" else SHARED_BASE) + 3 * size
        addrs = np.full(T, at, np.int64)
        got, want = b._load_one(load, at), a._load(addrs, typ, one, None)[9]
        assert type(got) is type(want) and got.tobytes() == want.tobytes(), (where, got, want)
        value = (np.full(T, -(1 << 40) - 12345, np.int64) if isinstance(typ, IntegerType)
                 else np.full(T, -1.5e3, a._load(addrs, typ, one, None).dtype))
        a._store(addrs, value, typ, one, None)
        b._store_one(store, at, value[9:10])
        assert a.mem.buffers[0][1].tobytes() == b.mem.buffers[0][1].tobytes() and \
            a.smem.tobytes() == b.smem.tobytes(), where
        bad = [(at + 1, "misaligned")] if size > 1 else []
        bad += [(base + 256, "outside every buffer") if where == "global"
                else (SHARED_BASE + 1024, "outside the scratch")]
        for addr, what in bad:
            addrs = np.full(T, addr, np.int64)
            with pytest.raises(SimtError) as masked:
                a._load(addrs, typ, one, None)
            with pytest.raises(SimtError, match=f"^{re.escape(str(masked.value))}$"):
                b._load_one(load, addr)
            with pytest.raises(SimtError) as masked:
                a._store(addrs, value, typ, one, None)
            with pytest.raises(SimtError, match=f"^{re.escape(str(masked.value))}$"):
                b._store_one(store, addr, value[9:10])
            assert what in str(masked.value)

def test_ldmatrix_gives_each_lane_its_rows_pair():
    rng = np.random.default_rng(0)
    it, _ = _interp()
    it.smem[:] = rng.integers(0, 256, 1024, dtype=np.uint8)
    rows = rng.permutation(64)[:T] * 16  # each row-address lane's 16-byte row, anywhere in the scratch
    addrs = SHARED_BASE + rows
    mask = np.ones(T, bool)
    mask[32:] = False  # the second warp is inactive: it loads nothing
    got = it.ldmatrix(4, addrs, mask)
    halves = it.smem.view(np.uint16)
    for lane in range(32):
        for j in range(4):
            row = rows[8 * j + lane // 4] // 2
            lo, hi = int(halves[row + 2 * (lane % 4)]), int(halves[row + 2 * (lane % 4) + 1])
            word = lo | hi << 16
            assert got[lane, j] == (word - (1 << 32) if word >= 1 << 31 else word), (lane, j)
    assert not got[32:].any()
    addrs[3] += 8
    with pytest.raises(SimtError, match="not 16-byte aligned"):
        it.ldmatrix(4, addrs, mask)


def _mma_op(k: int, ptx: str, na: int, nb: int):
    enum = types.SimpleNamespace
    return types.SimpleNamespace(shape=enum(k=enum(data=k)), multiplicandAPtxType=enum(data=enum(value=ptx)),
                                 multiplicandBPtxType=enum(data=enum(value=ptx)), operandA=[0] * na,
                                 operandB=[0] * nb)


def test_mma_sync_f16_follows_the_isa_fragments():
    """m16n8k16 f16: A 16 x 16 and B 16 x 8 placed into the lanes' registers by the ISA's tables,
    D = A B + C read back by the same tables, against numpy."""
    rng = np.random.default_rng(1)
    A = rng.standard_normal((16, 16)).astype(np.float16)
    B = rng.standard_normal((16, 8)).astype(np.float16)
    C = rng.standard_normal((16, 8)).astype(np.float32)
    regs_a = [np.zeros((32, 2), np.float16) for _ in range(4)]
    regs_b = [np.zeros((32, 2), np.float16) for _ in range(2)]
    regs_c = [np.zeros(32, np.float32) for _ in range(4)]
    for lane in range(32):
        g, t = lane >> 2, lane % 4
        for i in range(8):
            regs_a[i // 2][lane, i % 2] = A[_frag_a(16, g, t, i)]
        for i in range(4):
            regs_b[i // 2][lane, i % 2] = B[_frag_b(16, g, t, i)]
            regs_c[i][lane] = C[_frag_c(g, t, i)]
    out = mma_sync(_mma_op(16, "f16", 4, 2), [*regs_a, *regs_b, *regs_c], np.ones(32, bool))
    D = (A.astype(np.float64) @ B.astype(np.float64) + C).astype(np.float32)
    for lane in range(32):
        for i in range(4):
            assert out[lane, i] == D[_frag_c(lane >> 2, lane % 4, i)], (lane, i)


def test_mma_sync_f16_of_several_warps_some_inactive():
    """Each active warp of a 4-warp CTA its own m16n8k16 product (placed and read back by the ISA's
    tables), against numpy per warp; the rows of the inactive warps (1, 3) stay zero."""
    rng = np.random.default_rng(5)
    warps, active = 4, (0, 2)
    T = 32 * warps
    regs_a = [np.zeros((T, 2), np.float16) for _ in range(4)]
    regs_b = [np.zeros((T, 2), np.float16) for _ in range(2)]
    regs_c = [np.zeros(T, np.float32) for _ in range(4)]
    want = {}
    for w in range(warps):
        A = rng.standard_normal((16, 16)).astype(np.float16)
        B = rng.standard_normal((16, 8)).astype(np.float16)
        C = rng.standard_normal((16, 8)).astype(np.float32)
        want[w] = (A.astype(np.float64) @ B.astype(np.float64) + C).astype(np.float32)
        for lane in range(32):
            g, t, row = lane >> 2, lane % 4, 32 * w + lane
            for i in range(8):
                regs_a[i // 2][row, i % 2] = A[_frag_a(16, g, t, i)]
            for i in range(4):
                regs_b[i // 2][row, i % 2] = B[_frag_b(16, g, t, i)]
                regs_c[i][row] = C[_frag_c(g, t, i)]
    mask = np.zeros(T, bool)
    for w in active:
        mask[32 * w: 32 * w + 32] = True
    out = mma_sync(_mma_op(16, "f16", 4, 2), [*regs_a, *regs_b, *regs_c], mask)
    assert out.shape == (T, 4) and out.dtype == np.float32
    for w in range(warps):
        for lane in range(32):
            for i in range(4):
                expect = want[w][_frag_c(lane >> 2, lane % 4, i)] if w in active else 0
                assert out[32 * w + lane, i] == expect, (w, lane, i)


def test_mma_sync_s8_is_exact_and_wraps():
    rng = np.random.default_rng(2)
    A = rng.integers(-128, 128, (16, 32))
    B = rng.integers(-128, 128, (32, 8))
    C = rng.integers(-(2**31), 2**31, (16, 8))
    regs_a = [np.zeros(32, np.int64) for _ in range(4)]
    regs_b = [np.zeros(32, np.int64) for _ in range(2)]
    regs_c = [np.zeros(32, np.int64) for _ in range(4)]
    for lane in range(32):
        g, t = lane >> 2, lane % 4
        for i in range(16):
            regs_a[i // 4][lane] |= (int(A[_frag_a(32, g, t, i)]) & 0xFF) << (8 * (i % 4))
        for i in range(8):
            regs_b[i // 4][lane] |= (int(B[_frag_b(32, g, t, i)]) & 0xFF) << (8 * (i % 4))
        for i in range(4):
            regs_c[i][lane] = C[_frag_c(g, t, i)]
    out = mma_sync(_mma_op(32, "s8", 4, 2), [*regs_a, *regs_b, *regs_c], np.ones(32, bool))
    D = [[(sum(int(A[r, x]) * int(B[x, c]) for x in range(32)) + int(C[r, c])) for c in range(8)] for r in range(16)]
    for lane in range(32):
        for i in range(4):
            r, c = _frag_c(lane >> 2, lane % 4, i)
            want = D[r][c] & 0xFFFFFFFF
            assert out[lane, i] == (want - (1 << 32) if want >= 1 << 31 else want), (lane, i)


def _cas_one_by_one(it, typ, addrs, expected, new, mask):
    """``llvm.cmpxchg`` as the interpreter ran it before: each active thread in thread order loads, compares and
    (on success) stores by itself (``_load_one`` / ``_store_one``)."""
    out = np.zeros((T, 2), np.int64)
    load, store = _load_plan(typ, None), _store_plan(typ, None)
    for t in np.nonzero(mask)[0]:
        old = int(it._load_one(load, int(addrs[t])))
        ok = old == int(expected[t])
        if ok:
            it._store_one(store, int(addrs[t]), new[t:t + 1])
        out[t] = (old, int(ok))
    return out


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([8, 16, 32, 64]), st.integers(1, 6), st.integers(0, 2 ** 32 - 1), st.booleans())
def test_cmpxchg_of_all_threads_is_the_thread_order_chain(width, slots, seed, shared):
    """A CTA's compare-and-swaps on a few words (each thread's expected value often the one an earlier thread
    just stored: the chains of a CAS loop) end in the same memory and return the same (old, success) pairs as
    the threads one after the other."""
    rng = np.random.default_rng(seed)
    size = max(1, width // 8)
    words = np.asarray(rng.integers(-3, 3, slots), {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}[width])
    at = size * rng.integers(0, slots, T)
    expected = rng.integers(-3, 3, T)
    new = rng.integers(-3, 3, T) + (rng.integers(0, 2, T) << (width - 1))  # past the width: wrapped
    mask = rng.random(T) < 0.8
    (a, (base,)), (b, _) = _interp(words.tobytes()), _interp(words.tobytes())
    for it in (a, b):
        it.smem[:slots * size] = np.frombuffer(words.tobytes(), np.uint8)
    at = at + (SHARED_BASE if shared else base)
    typ = IntegerType(width)
    got = a._cmpxchg(typ, at, expected, new, mask)
    want = _cas_one_by_one(b, typ, at, expected, new, mask)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a.mem.buffers[0][1], b.mem.buffers[0][1])
    np.testing.assert_array_equal(a.smem, b.smem)


def test_cmpxchg_names_the_first_bad_threads_error():
    it, (base,) = _interp(bytes(16))
    at = np.full(T, base, np.int64)
    at[5] = base + 2  # misaligned, and the first active bad thread
    at[9] = base + 4096  # outside every buffer
    with pytest.raises(SimtError, match=f"misaligned load of 4 bytes at {base + 2:#x}"):
        it._cmpxchg(IntegerType(32), at, np.zeros(T, np.int64), np.ones(T, np.int64), np.ones(T, bool))
    mask = np.ones(T, bool)
    mask[5] = False
    with pytest.raises(SimtError, match="outside every buffer"):
        it._cmpxchg(IntegerType(32), at, np.zeros(T, np.int64), np.ones(T, np.int64), mask)
    assert not it.mem.buffers[0][1].any()  # nothing stored
