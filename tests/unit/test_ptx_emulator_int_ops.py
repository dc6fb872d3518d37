"""The PTX emulator's integer instructions in numpy (``ptx_emulator._int_op_fast``, the hot path)
give the bits the Python-integer reference (``_int_op_exact``) gives, for every instruction,
variant and width the fast path takes, on random operands and the edge values of each width;
and the fast path declines what it does not compute exactly (division, bit-field extract,
64-bit high/wide products)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tileorch.testing.ptx_emulator import _int_op_exact, _int_op_fast

OPS = {  # base -> (operand count, variants of the full instruction name)
    "add": (2, ["add"]), "sub": (2, ["sub"]), "mul": (2, ["mul.lo", "mul.hi", "mul.wide"]),
    "mad": (3, ["mad.lo"]), "and": (2, ["and"]), "or": (2, ["or"]), "xor": (2, ["xor"]),
    "not": (1, ["not"]), "neg": (1, ["neg"]), "shl": (2, ["shl"]), "shr": (2, ["shr"]),
    "min": (2, ["min"]), "max": (2, ["max"]),
}
TYPES = ["b8", "u8", "s8", "b16", "u16", "s16", "b32", "u32", "s32", "b64", "u64", "s64"]


def _operands(rng, width: int, n: int, count: int, shift: bool) -> list[np.ndarray]:
    edges = [0, 1, 2, 3, (1 << (width - 1)) - 1, 1 << (width - 1), (1 << (width - 1)) + 1, (1 << width) - 1,
             (1 << width) - 2, 1 << 63, (1 << 64) - 1, 31, 32, 33, 63, 64, 65, width - 1, width, width + 1]
    out = []
    for i in range(count):
        x = rng.integers(0, 1 << 64, n, dtype=np.uint64, endpoint=False)
        if i == 1 and shift:  # shift amounts: small ones too
            x[: n // 2] = rng.integers(0, 80, n // 2).astype(np.uint64)
        x[: len(edges)] = np.array(edges, dtype=np.uint64)[rng.permutation(len(edges))]
        x[len(edges): 2 * len(edges)] = np.array(edges, dtype=np.uint64)
        out.append(x)
    return out


@pytest.mark.parametrize("base", sorted(OPS))
def test_fast_integer_ops_give_the_reference_bits(base):
    rng = np.random.default_rng(sum(map(ord, base)))
    count, variants = OPS[base]
    checked = 0
    for ty in TYPES:
        width, signed = int(ty[1:]), ty[0] == "s"
        for variant in variants:
            op = f"{variant}.{ty}"
            a = _operands(rng, width, 400, count, base in ("shl", "shr"))
            fast = _int_op_fast(base, op, width, signed, a)
            if fast is None:
                assert width == 64 and variant in ("mul.hi", "mul.wide"), op
                continue
            exact = _int_op_exact(base, op, width, signed, a)
            assert fast.dtype == np.uint64 and fast.shape == exact.shape
            bad = np.nonzero(fast != exact)[0]
            assert not len(bad), (op, [(int(x[bad[0]]) for x in a)], int(fast[bad[0]]), int(exact[bad[0]]))
            checked += 1
    assert checked >= len(TYPES)


@pytest.mark.parametrize("base, op, width", [("div", "div.u32", 32), ("rem", "rem.s32", 32), ("bfe", "bfe.u32", 32),
                                             ("mul", "mul.hi.u64", 64), ("mul", "mul.wide.s64", 64),
                                             ("add", "add.b1", 1), ("mad", "mad.hi.u32", 32),
                                             ("mad", "mad.wide.s32", 32)])
def test_the_fast_path_declines_what_it_does_not_compute_exactly(base, op, width):
    a = [np.arange(1, 5, dtype=np.uint64)] * 3
    assert _int_op_fast(base, op, width, op.split(".")[-1].startswith("s"), a) is None


def test_the_reference_is_what_ptx_says():
    """A few results by hand, so that both paths are not merely equal but right."""
    u = lambda *v: [np.array(v, dtype=np.uint64)]  # noqa: E731
    for f in (_int_op_fast, _int_op_exact):
        assert f("add", "add.s32", 32, True, u(0x7FFFFFFF) + u(1)).tolist() == [0x80000000]
        assert f("mul", "mul.hi.u32", 32, False, u(0xFFFFFFFF) * 2).tolist() == [0xFFFFFFFE]
        assert f("mul", "mul.hi.s32", 32, True, u(0xFFFFFFFF) + u(2)).tolist() == [0xFFFFFFFF]  # -1 * 2 = -2: hi -1
        assert f("mul", "mul.wide.s32", 32, True, u(0xFFFFFFFF) + u(3)).tolist() == [0xFFFFFFFFFFFFFFFD]
        assert f("shr", "shr.s32", 32, True, u(0x80000000) + u(40)).tolist() == [0xFFFFFFFF]  # clamped: sign fill
        assert f("shr", "shr.u32", 32, False, u(0x80000000) + u(31)).tolist() == [1]
        assert f("shl", "shl.b32", 32, False, u(1) + u(32)).tolist() == [0]
        assert f("shl", "shl.b64", 64, False, u(3) + u(63)).tolist() == [1 << 63]
        assert f("min", "min.s64", 64, True, u(1 << 63) + u(5)).tolist() == [1 << 63]
        assert f("max", "max.u16", 16, False, u(0x18000) + u(0x7FFF)).tolist() == [0x8000]


def test_mad_hi_and_wide_are_what_ptx_says():
    """``mad.wide`` (16 / 32-bit a, b; d and c of twice the width: d = a * b + c) and ``mad.hi`` (d = the high half
    of a * b, plus c), by hand from the PTX ISA's definitions; both computed the ``.lo`` form truncated to the
    type's width before session 39 (no kernel we emulate had them)."""
    u = lambda *v: [np.array([x & ((1 << 64) - 1) for x in v], dtype=np.uint64)]  # noqa: E731
    assert _int_op_exact("mad", "mad.wide.s32", 32, True, u(0x7FFFFFFF) + u(4) + u(1)).tolist() == [0x1FFFFFFFD]
    assert _int_op_exact("mad", "mad.wide.s32", 32, True, u(-3) + u(5) + u(-1)).tolist() == [(-16) & ((1 << 64) - 1)]
    assert _int_op_exact("mad", "mad.wide.u16", 16, False, u(0xFFFF) + u(0xFFFF) + u(1)).tolist() == [0xFFFE0002]
    assert _int_op_exact("mad", "mad.hi.u32", 32, False, u(0xFFFFFFFF) + u(2) + u(5)).tolist() == [6]
    assert _int_op_exact("mad", "mad.hi.s32", 32, True, u(-1) + u(2) + u(3)).tolist() == [2]
    assert _int_op_exact("mad", "mad.hi.u64", 64, False, u(1 << 63) + u(4) + u(1)).tolist() == [3]
    assert _int_op_exact("mad", "mad.lo.s32", 32, True, u(0x7FFFFFFF) + u(4) + u(1)).tolist() == [0xFFFFFFFD]


def test_division_is_exact_at_64_bits_and_does_not_trap_on_zero():
    """``div`` / ``rem`` of 64-bit values past 2**53 round toward zero exactly (a float quotient would
    not), and a zero divisor gives PTX's unspecified value (all ones for ``div`` and ``rem``, as an H100
    gave in session 27) instead of
    stopping the emulation: a padded lane or an idle program slot divides by the zero it loaded
    (found by user sweep 13's int32 floor division, four programs per warp, two launched)."""
    u = lambda *v: [np.array([x & ((1 << 64) - 1) for x in v], dtype=np.uint64)]  # noqa: E731
    big = (1 << 62) + 12345
    assert _int_op_exact("div", "div.s64", 64, True, u(-big) + u(7)).tolist() == [(-(big // 7)) & ((1 << 64) - 1)]
    assert _int_op_exact("rem", "rem.s64", 64, True, u(-big) + u(7)).tolist() == [(-(big % 7)) & ((1 << 64) - 1)]
    assert _int_op_exact("div", "div.s32", 32, True, u(-7) + u(2)).tolist() == [(-3) & 0xFFFFFFFF]
    assert _int_op_exact("rem", "rem.s32", 32, True, u(-7) + u(2)).tolist() == [(-1) & 0xFFFFFFFF]
    assert _int_op_exact("div", "div.s32", 32, True, u(5, 9) + u(0, 3)).tolist() == [0xFFFFFFFF, 3]
    assert _int_op_exact("rem", "rem.u32", 32, False, u(5, 9) + u(0, 4)).tolist() == [0xFFFFFFFF, 1]


SETP_TYPES = ["b8", "u8", "s8", "b16", "u16", "s16", "b32", "u32", "s32", "b64", "u64", "s64"]
SETP = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y,
        "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}


def _as_type(v: int, ty: str) -> int:
    """The integer the low bits of register bits ``v`` are as PTX type ``ty`` (signed: two's complement)."""
    w = int(ty[1:])
    v &= (1 << w) - 1
    return v - (1 << w) if ty[0] == "s" and v >> (w - 1) else v


@settings(max_examples=60, deadline=None)
@given(ty=st.sampled_from(SETP_TYPES), cmp=st.sampled_from(sorted(SETP)),
       values=st.lists(st.tuples(st.integers(0, 2 ** 64 - 1), st.integers(0, 2 ** 64 - 1)), min_size=1, max_size=40),
       equal=st.booleans())
def test_integer_setp_compares_the_typed_values(ty, cmp, values, equal):
    """``setp.<cmp>.<type>`` on 64-bit registers whose bits above the type's width are arbitrary: the comparison
    of the values the low bits are as the type (signed types two's complement), written here with Python
    integers; ``equal``: the second operand's low bits equal to the first's (other upper bits)."""
    from tileorch.testing.ptx_emulator import Emu

    w = int(ty[1:])
    if equal:
        values = [(a, (b & ~((1 << w) - 1) & (2 ** 64 - 1)) | (a & ((1 << w) - 1))) for a, b in values]
    n = len(values)
    emu = Emu(".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\tret;\n}\n", [0], 0, n, (0, 0, 0), {}, [])
    T = np.ones(n, dtype=bool)
    emu.set("%rd1", T, np.array([a for a, _ in values], dtype=np.uint64))
    emu.set("%rd2", T, np.array([b for _, b in values], dtype=np.uint64))
    emu.execute(f"setp.{cmp}.{ty}", ["%p1", "%rd1", "%rd2"], T)
    want = [int(SETP[cmp](_as_type(a, ty), _as_type(b, ty))) for a, b in values]
    assert emu.regs["%p1"].tolist() == want
