"""The SIMT emitter's shared attributes (``tileaa_to_simt.emit``): ``float_attr`` gives the
attribute ``FloatAttr`` would (one object per value and type; ``0.0``/``-0.0`` and NaN payloads
apart), ``inline_asm`` the op ``llvm.InlineAsmOp`` would (same properties in the same order,
same printed form, verifies)."""

from __future__ import annotations

import math
import struct

from xdsl.dialects import llvm, test
from xdsl.dialects.builtin import FloatAttr, f16, f32, i32

import tileorch.transforms  # noqa: F401  (the lowering passes' op construction)
from tileorch.transforms.tileaa_to_simt.emit import float_attr, inline_asm


def _nan(payload: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", 0x7FF8000000000000 | payload))[0]


def test_float_attr_is_floatattr_shared_per_bits():
    for value, typ in ((1.5, f32), (-0.0, f32), (0.0, f32), (1, f32), (0.1, f16), (math.inf, f32)):
        assert float_attr(value, typ) == FloatAttr(value, typ)
        assert float_attr(value, typ) is float_attr(value, typ)
    assert float_attr(0.0, f32) is not float_attr(-0.0, f32)
    assert str(float_attr(-0.0, f32)) == str(FloatAttr(-0.0, f32)) != str(FloatAttr(0.0, f32))
    assert float_attr(1.5, f32) is not float_attr(1.5, f16)
    a, b = float_attr(_nan(1), f32), float_attr(_nan(2), f32)
    assert a is not b  # equal to nothing, kept apart by their bits
    assert float_attr(1, f32) is not float_attr(1.0, f32)  # the value's Python type is part of the key


def test_inline_asm_is_the_constructors_op():
    src = test.TestOp(result_types=[f32, f32])
    for args in (("ex2.approx.f32 $0, $1;", "=f,f", [src.results[0]], [f32]),
                 ("add.f32 $0, $1, $2;", "=f,f,f", list(src.results), [f32])):
        ours, theirs = inline_asm(*args), llvm.InlineAsmOp(*args)
        assert list(ours.properties.items()) == list(theirs.properties.items())
        assert str(ours) == str(theirs) and ours.result_types == theirs.result_types
        ours.verify()
    ours = inline_asm("trap;", "", [], [], has_side_effects=True)
    theirs = llvm.InlineAsmOp("trap;", "", [], [], has_side_effects=True)
    assert list(ours.properties.items()) == list(theirs.properties.items()) and not ours.results
    assert inline_asm("mov.b32 $0, 1;", "=r", [], [i32]).properties["asm_string"] is \
        inline_asm("mov.b32 $0, 1;", "=r", [], [i32]).properties["asm_string"]
