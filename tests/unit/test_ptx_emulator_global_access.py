"""The PTX emulator's global loads, stores and atomics as one numpy gather / scatter per
instruction (``Emu._one_buffer``) against its one-thread-at-a-time path (``_AT_ONCE_MIN`` set
beyond any launch), bit for bit: the values read, every buffer's bytes after the stores, the
traffic counts, and where an address is illegal the same fault, error and bytes stored before it.
Random addresses (seeded) in two buffers, 1- to 8-byte accesses, stores that overlap (thread
order decides the bytes), addresses across both buffers, atomics on shared addresses."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tileorch.testing import ptx_emulator
from tileorch.testing.ptx_emulator import Emu, Fault

PTX = """
.version 8.6
.target sm_90a
.address_size 64
.visible .entry k(
	.param .u64 k_param_0
)
{
	ret;
}
"""

THREADS = 64
BASES = (0x10000, 0x20000)
SIZES = (512, 1024)


def _emu(seed: int) -> Emu:
    rng = np.random.default_rng(seed)
    memory = [(base, rng.integers(0, 256, size, dtype=np.uint8), f"buf{i}")
              for i, (base, size) in enumerate(zip(BASES, SIZES))]
    return Emu(PTX, [BASES[0]], 0, THREADS, (0, 0, 0), {}, memory)


def _both(monkeypatch, seed: int, act):
    """``act(emu)`` on an emulator as it runs and on one forced one thread at a time: (result,
    buffers' bytes, traffic, errors, fault text) of each."""
    out = []
    for at_once in (True, False):
        with monkeypatch.context() as m:
            if not at_once:
                m.setattr(ptx_emulator, "_AT_ONCE_MIN", 10 ** 9)
            emu = _emu(seed)
            try:
                result, fault = act(emu), None
            except Fault as exc:
                result, fault = None, str(exc)
            out.append((result, [buf.copy() for _, buf, _ in emu.memory[:2]], dict(emu.traffic), list(emu.errors),
                        fault))
    return out


def _same(fast, slow):
    (r1, b1, t1, e1, f1), (r2, b2, t2, e2, f2) = fast, slow
    if r2 is None:
        assert r1 is None
    else:
        assert r1.dtype == r2.dtype and np.array_equal(r1, r2)
    for x, y in zip(b1, b2):
        assert np.array_equal(x, y)
    assert (t1, e1, f1) == (t2, e2, f2)


def _addresses(rng, nbytes, buffer=0, count=THREADS):
    return (BASES[buffer] + rng.integers(0, SIZES[buffer] - nbytes + 1, count)).astype(np.uint64)


@pytest.mark.parametrize("nbytes", [1, 2, 4, 8])
@pytest.mark.parametrize("seed", range(3))
def test_loads_match_the_one_by_one_path(monkeypatch, nbytes, seed):
    rng = np.random.default_rng(100 + seed)
    addrs = _addresses(rng, nbytes, buffer=seed % 2)
    fast, slow = _both(monkeypatch, seed, lambda emu: emu.global_load(addrs, nbytes))
    assert fast[2] == {f"load:buf{seed % 2}": nbytes * THREADS}  # (the gather ran: every load counted)
    _same(fast, slow)


@pytest.mark.parametrize("nbytes", [1, 2, 4, 8])
@pytest.mark.parametrize("overlapping", [False, True])
def test_stores_match_the_one_by_one_path(monkeypatch, nbytes, overlapping):
    rng = np.random.default_rng(7 * nbytes + overlapping)
    if overlapping:  # 16 slots for 64 threads, unaligned: later threads' bytes must win
        addrs = (BASES[1] + rng.integers(0, 16, THREADS) * max(1, nbytes // 2)).astype(np.uint64)
    else:
        addrs = (BASES[1] + rng.permutation(SIZES[1] // nbytes)[:THREADS] * nbytes).astype(np.uint64)
    vals = rng.integers(0, 2 ** 63, THREADS, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    fast, slow = _both(monkeypatch, nbytes, lambda emu: emu.global_store(addrs, vals, nbytes))
    _same(fast, slow)
    assert not np.array_equal(fast[1][1], _emu(nbytes).memory[1][1])  # something was stored


def test_accesses_across_two_buffers_match(monkeypatch):
    rng = np.random.default_rng(5)
    addrs = np.concatenate([_addresses(rng, 4, 0, 32), _addresses(rng, 4, 1, 32)])
    vals = rng.integers(0, 2 ** 32, THREADS, dtype=np.uint64)
    _same(*_both(monkeypatch, 1, lambda emu: emu.global_load(addrs, 4)))
    _same(*_both(monkeypatch, 1, lambda emu: emu.global_store(addrs[::2], vals[::2], 4)))


@pytest.mark.parametrize("kind", ["load", "store"])
def test_an_illegal_address_faults_the_same(monkeypatch, kind):
    rng = np.random.default_rng(9)
    addrs = _addresses(rng, 4, 0)
    addrs[40] = BASES[0] + SIZES[0] - 2  # its last two bytes outside buf0
    vals = rng.integers(0, 2 ** 32, THREADS, dtype=np.uint64)
    act = (lambda emu: emu.global_load(addrs, 4)) if kind == "load" else (lambda emu: emu.global_store(addrs, vals, 4))
    fast, slow = _both(monkeypatch, 2, act)
    assert fast[4] is not None and "illegal global address" in fast[4]
    _same(fast, slow)


@pytest.mark.parametrize("op, width", [("atom.global.add.u32", 4), ("atom.global.max.s32", 4),
                                       ("atom.global.cas.b64", 8), ("atom.global.add.f32", 4),
                                       ("red.global.add.u64", 8), ("atom.global.inc.u32", 4)])
def test_atomics_match_the_one_by_one_path(monkeypatch, op, width):
    rng = np.random.default_rng(width)
    addrs = (BASES[0] + rng.integers(0, 6, THREADS) * width).astype(np.uint64)  # 6 words, ~11 threads each
    b = rng.integers(0, 2 ** 31, THREADS, dtype=np.uint64)
    if op.endswith("f32"):
        b = np.float32(rng.standard_normal(THREADS)).view(np.uint32).astype(np.uint64)
    c = rng.integers(0, 2 ** 31, THREADS, dtype=np.uint64)
    T = np.ones(THREADS, dtype=bool)

    def act(emu):
        emu.set("%rd1", T, addrs)
        emu.set("%rd2", T, b)
        emu.set("%rd3", T, c)
        if op.startswith("red"):
            emu.execute(op, ["[%rd1]", "%rd2"], T)
            return None
        emu.execute(op, ["%rd4", "[%rd1]", "%rd2", *(["%rd3"] if ".cas." in op else [])], T)
        return emu.regs["%rd4"].copy()

    fast, slow = _both(monkeypatch, 3, act)
    assert fast[2] == {"load:buf0": width * THREADS, "store:buf0": width * THREADS}
    _same(fast, slow)


_FLOAT_BITS = {"f32": (np.float32, np.uint32), "f64": (np.float64, np.uint64)}


@settings(max_examples=40, deadline=None)
@given(ty=st.sampled_from(["f32", "f64"]), atom=st.booleans(), nan=st.booleans(), distinct=st.booleans(),
       data=st.data())
def test_float_add_at_once_matches_the_one_by_one_path(ty, atom, nan, distinct, data):
    """``red.global.add.f32`` / ``.f64`` (one ``np.add.at``) and ``atom.global.add`` (per word an
    ``np.add.accumulate``: each thread's old value) in ``Emu._float_add_at_once`` against one thread at a time
    (``_float_add_bits``), bit for bit: threads adding into the same words in thread order (rounding after each
    add) or each into its own word (``distinct``), infinities, signed zeros, subnormals and huge values among
    the addends and the old words, NaNs among the old words (and, ``nan``, among the addends: then one thread at
    a time)."""
    dtype, bits = _FLOAT_BITS[ty]
    width = np.dtype(dtype).itemsize
    special = [0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-40, 3e38, -3e38, 1.0, 2.0 ** -24]
    value = st.one_of(st.sampled_from(special), st.floats(width=32 if ty == "f32" else 64, allow_nan=False))
    old = st.one_of(value, st.just(np.nan))
    addends = data.draw(st.lists(old if nan else value, min_size=THREADS, max_size=THREADS))
    nwords = THREADS if distinct else 6
    words = np.random.default_rng(len(addends)).permutation(THREADS) if distinct else \
        np.array(data.draw(st.lists(st.integers(0, 5), min_size=THREADS, max_size=THREADS)))
    olds = data.draw(st.lists(old, min_size=nwords, max_size=nwords))
    addrs = (BASES[0] + words * width).astype(np.uint64)
    b = np.array(addends, dtype=dtype).view(bits).astype(np.uint64)
    T = np.ones(THREADS, dtype=bool)
    at_once = []

    def act(emu):
        emu.memory[0][1][:nwords * width] = np.array(olds, dtype=dtype).view(np.uint8)
        emu.set("%rd1", T, addrs)
        emu.set("%rd2", T, b)
        if not atom:
            emu.execute(f"red.global.add.{ty}", ["[%rd1]", "%rd2"], T)
            return None
        emu.execute(f"atom.global.add.{ty}", ["%rd4", "[%rd1]", "%rd2"], T)
        return emu.regs["%rd4"].copy()

    with pytest.MonkeyPatch.context() as monkeypatch:
        real = Emu._float_add_at_once
        monkeypatch.setattr(Emu, "_float_add_at_once", lambda self, *a: at_once.append(real(self, *a)) or at_once[-1])
        fast, slow = _both(monkeypatch, 4, act)
    assert (at_once[0] is not None) == (not np.isnan(np.array(addends, dtype=dtype)).any())  # (forced: None)
    assert fast[2] == {"load:buf0": width * THREADS, "store:buf0": width * THREADS}
    _same(fast, slow)


@pytest.mark.parametrize("op", ["red", "atom"])
@pytest.mark.parametrize("ty", ["f32", "f64"])
@pytest.mark.parametrize("at_once", [True, False])
def test_float_add_rounds_after_each_add_and_keeps_negative_zero(monkeypatch, op, ty, at_once):
    """Expected values from IEEE addition: 64 threads add 2^-p (half an ulp of 1.0, p = 24 / 53) to a word holding
    1.0: each add ties back to 1.0 (nearest even), so the word stays 1.0 and every old value is 1.0 (a sum in a
    wider type would give 1 + 64 2^-p); 64 threads add -0.0 to a word holding -0.0: -0.0 (the one-thread-at-a-time
    f64 add summed with ``.sum()``, which starts from +0, and gave +0.0 before session 39)."""
    dtype, bits = _FLOAT_BITS[ty]
    width = np.dtype(dtype).itemsize
    half_ulp = 2.0 ** -(24 if ty == "f32" else 53)
    if not at_once:
        monkeypatch.setattr(ptx_emulator, "_AT_ONCE_MIN", 10 ** 9)
    for start, addend in ((1.0, half_ulp), (-0.0, -0.0)):
        emu = _emu(0)
        emu.memory[0][1][:width] = np.array([start], dtype=dtype).view(np.uint8)
        T = np.ones(THREADS, dtype=bool)
        emu.set("%rd1", T, np.full(THREADS, BASES[0], dtype=np.uint64))
        emu.set("%rd2", T, np.full(THREADS, np.array([addend], dtype=dtype).view(bits)[0], dtype=np.uint64))
        if op == "red":
            emu.execute(f"red.global.add.{ty}", ["[%rd1]", "%rd2"], T)
        else:
            emu.execute(f"atom.global.add.{ty}", ["%rd4", "[%rd1]", "%rd2"], T)
            olds = emu.regs["%rd4"].astype(bits).view(dtype)
            assert (olds.view(bits) == np.array([start], dtype=dtype).view(bits)[0]).all(), olds[:4]
        word = emu.memory[0][1][:width].view(dtype)
        assert word.view(bits)[0] == np.array([start], dtype=dtype).view(bits)[0], (start, addend, word)
