"""``tileorch.testing.ptx_emulator``'s per-thread-operand ``shfl.sync`` (every thread its own ``b`` and ``c``:
source lane, clamp and segment mask) and ``setp``'s fourteen comparisons, against references written from the
PTX ISA here (per lane / per element in Python), so that a vectorized form of either (session 34: the shuffle's
lanes as arrays, one comparison computed per ``setp``) is held to the per-lane rules.  Needs no GPU, no ptxas."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tileorch.testing.ptx_emulator import Emu

from test_ptx_emulator_sweep10 import BASE, _kernel

THREADS = 96  # three warps: a lane's warp base matters


def _emulate(body: str, a: np.ndarray, b: np.ndarray) -> None:
    memory = [(BASE, a.view(np.uint8).reshape(-1), "a"), (2 * BASE, b.view(np.uint8).reshape(-1), "b")]
    emu = Emu(_kernel(body), [BASE, 2 * BASE], 16, THREADS, (0, 0, 0), {}, memory)
    emu.run()
    assert not emu.errors, emu.errors


def _shfl_reference(mode: str, values: list, b: list, c: list) -> list:
    """PTX ISA ``shfl.sync``: lane ``i`` of each warp reads lane ``j`` when ``j`` is in range, else its own value;
    ``c`` holds the clamp (bits 0-4) and the segment mask (bits 8-12)."""
    out = []
    for t in range(len(values)):
        lane, warp = t % 32, t - t % 32
        bv, clamp, seg = b[t] & 31, c[t] & 31, (c[t] >> 8) & 31
        max_lane = (lane & seg) | (clamp & ~seg)
        min_lane = lane & seg
        if mode == "up":
            j, ok = lane - bv, lane - bv >= max_lane
        elif mode == "down":
            j, ok = lane + bv, lane + bv <= max_lane
        elif mode == "bfly":
            j, ok = lane ^ bv, (lane ^ bv) <= max_lane
        else:
            j = min_lane | (bv & ~seg)
            ok = j <= max_lane
        out.append(values[warp + (j if ok else lane)])
    return out


@pytest.mark.parametrize("mode", ["up", "down", "bfly", "idx"])
def test_shfl_with_a_lane_operand_and_a_clamp_operand_per_thread(mode):
    """``b`` and ``c`` read from memory (a different source lane, clamp and segment mask in every thread)."""
    rng = np.random.default_rng({"up": 1, "down": 2, "bfly": 3, "idx": 4}[mode])
    values = rng.integers(0, 1 << 31, THREADS)
    b = rng.integers(0, 64, THREADS)  # (bits above 4 ignored)
    seg = rng.choice([0, 0x18, 0x1C, 0x10, 0x1F], THREADS)
    clamp = rng.choice([0, 7, 15, 31, 3], THREADS)
    c = clamp | (seg << 8)
    a = np.stack([values, b, c], axis=1).astype(np.int32).reshape(-1)
    out = np.full(THREADS, -1, np.int32)
    _emulate(f"""  mul.wide.u32 %rd6, %r1, 12;
  add.s64 %rd4, %rd1, %rd6;
  ld.global.b32 %r2, [%rd4];
  ld.global.b32 %r4, [%rd4+4];
  ld.global.b32 %r5, [%rd4+8];
  shfl.sync.{mode}.b32 %r3, %r2, %r4, %r5, -1;
  add.s64 %rd7, %rd2, %rd3;
  st.global.b32 [%rd7], %r3;""", a, out)
    assert out.tolist() == _shfl_reference(mode, values.tolist(), b.tolist(), c.tolist())


_ORDERED = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y,
            "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}


def _setp_reference(cmp: str, x, y) -> bool:
    """PTX ISA ``setp``: the ordered comparisons are false where an operand is NaN, the ``u`` forms true there;
    ``num``: both ordered, ``nan``: either NaN."""
    unordered = isinstance(x, float) and (math.isnan(x) or math.isnan(y))
    if cmp == "num":
        return not unordered
    if cmp == "nan":
        return unordered
    if cmp.endswith("u"):
        return unordered or _ORDERED[cmp[:-1]](x, y)
    return not unordered and _ORDERED[cmp](x, y)


CMPS = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]


@pytest.mark.parametrize("ty", ["f32", "s32", "u32"])
def test_setp_each_comparison_per_element(ty):
    """Every comparison of ``setp.<cmp>.<ty>`` over pairs with equal, ordered, signed-zero, infinite and NaN
    operands (integers: negative ones, which ``u32`` reads as large)."""
    rng = np.random.default_rng(7)
    if ty == "f32":
        pool = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 3.0], np.float32)
    else:
        pool = np.array([0, 1, -1, 7, -(1 << 31), (1 << 31) - 1, 3, -3], np.int32)
    x, y = rng.choice(pool, THREADS), rng.choice(pool, THREADS)
    x[:8], y[:8] = pool, pool  # every operand against itself
    a = np.stack([x, y], axis=1).reshape(-1).copy()
    out = np.full((THREADS, len(CMPS)), -1, np.int32)
    reg = "%f" if ty == "f32" else "%r"
    lines = [f"  mul.wide.u32 %rd6, %r1, 8;\n  add.s64 %rd4, %rd1, %rd6;\n  ld.global.b32 {reg}2, [%rd4];\n"
             f"  ld.global.b32 {reg}3, [%rd4+4];\n  mul.wide.u32 %rd7, %r1, {4 * len(CMPS)};\n  add.s64 %rd8, %rd2, %rd7;"]
    for i, cmp in enumerate(CMPS):
        if cmp in ("equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan") and ty != "f32":
            continue  # (the unordered comparisons are float ones)
        lines.append(f"  setp.{cmp}.{ty} %p1, {reg}2, {reg}3;\n  selp.b32 %r9, 1, 0, %p1;\n"
                     f"  st.global.b32 [%rd8+{4 * i}], %r9;")
    _emulate("\n".join(lines), a, out)
    if ty == "u32":
        x, y = x.view(np.uint32), y.view(np.uint32)
    for i, cmp in enumerate(CMPS):
        if ty != "f32" and cmp in ("equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"):
            assert (out[:, i] == -1).all()
            continue
        want = [int(_setp_reference(cmp, xv, yv)) for xv, yv in zip(x.tolist(), y.tolist())]
        assert out[:, i].tolist() == want, (cmp, ty)
