"""The SIMT emitter's lean op builders (``binary``, ``cast``, ``load_op``, ``store_op``, ``inline_asm``,
``int_type``) build the op xDSL's own constructor builds: same name, operands, result types,
properties (in the same order) and attributes, for every class and argument kind the
lowering passes them."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import IntegerType, VectorType, f16, f32, i1, i8, i16, i32, i64
from xdsl.ir import Block

from tileorch.transforms.tileaa_to_simt.emit import GLOBAL_PTR, binary, cast, inline_asm, int_type, load_op, store_op


def _same(mine, theirs) -> None:
    assert type(mine) is type(theirs)
    assert list(mine.operands) == list(theirs.operands)
    assert [r.type for r in mine.results] == [r.type for r in theirs.results]
    assert mine.properties == theirs.properties
    assert list(mine.properties) == list(theirs.properties)  # (the printed order)
    assert mine.attributes == theirs.attributes
    assert not mine.regions and not mine.successors
    mine.verify()
    theirs.verify()


@pytest.mark.parametrize("cls", [arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp,
                                 arith.ShLIOp, arith.ShRUIOp, arith.ShRSIOp, arith.DivUIOp, arith.RemUIOp,
                                 arith.DivSIOp, arith.RemSIOp])
@pytest.mark.parametrize("typ", [i1, i32, i64])
def test_binary_is_the_constructors_op(cls, typ):
    blk = Block(arg_types=[typ, typ])
    a, b = blk.args
    _same(binary(cls, a, b), cls(a, b))
    op = cls(a, b)  # an operand given as the op that defines it
    _same(binary(cls, op, b), cls(op, b))


@pytest.mark.parametrize("cls,src,dst", [(arith.ExtUIOp, i1, i32), (arith.ExtUIOp, i16, i32), (arith.ExtUIOp, i32, i64),
                                         (arith.ExtSIOp, i32, i64), (arith.TruncIOp, i64, i32),
                                         (arith.TruncIOp, i32, i8), (arith.BitcastOp, i32, f32),
                                         (arith.BitcastOp, f16, i16), (llvm.PtrToIntOp, GLOBAL_PTR, i64)])
def test_cast_is_the_constructors_op(cls, src, dst):
    blk = Block(arg_types=[src])
    _same(cast(cls, blk.args[0], dst), cls(blk.args[0], dst))


@pytest.mark.parametrize("alignment", [None, 1, 4, 16])
@pytest.mark.parametrize("typ", [i32, f16, VectorType(i32, [4])])
def test_load_and_store_are_the_constructors_ops(alignment, typ):
    blk = Block(arg_types=[GLOBAL_PTR, typ])
    ptr, value = blk.args
    _same(load_op(ptr, typ, alignment), llvm.LoadOp(ptr, typ, alignment=alignment))
    _same(store_op(value, ptr, alignment), llvm.StoreOp(value, ptr, alignment=alignment))


@pytest.mark.parametrize("width", [1, 8, 16, 32, 64])
def test_int_type_is_the_type(width):
    assert int_type(width) == IntegerType(width)
    assert int_type(width) is int_type(width)


@pytest.mark.parametrize("side_effects", [False, True])
@pytest.mark.parametrize("results", [[i16], [i32], [llvm.LLVMStructType.from_type_list([i32, i32])]])
def test_inline_asm_is_the_constructors_op(side_effects, results):
    blk = Block(arg_types=[i32, i64])
    args = list(blk.args)
    asm, constraints = "{ mov.b32 $0, $1; }", "=r,r,l"
    _same(inline_asm(asm, constraints, args, results, has_side_effects=side_effects),
          llvm.InlineAsmOp(asm, constraints, args, results, has_side_effects=side_effects))
