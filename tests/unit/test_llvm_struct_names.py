"""Named struct types in the LLVM IR text (tileorch.backend.llvm_struct_names, issue 22): every large
literal struct type becomes one identified type, consistently at any depth (identified types are
nominal, so a literal and its name must never meet), the small ones and those listed as literal
stay as they are, and a WGMMA GEMM's text defines its accumulator type once, shrinks several
times over and gives the same PTX as the literal spelling."""

from __future__ import annotations

import re
from pathlib import Path

import llvmlite.ir as ir

from tileorch.backend.llvm_struct_names import MIN_MEMBERS, StructNames
from tileorch.backend.ptx import llvm_to_ptx
from tileorch.driver import compile_text

F32 = ir.FloatType()
I32 = ir.IntType(32)


def _struct(n: int, member: ir.Type = F32, packed: bool = False) -> ir.LiteralStructType:
    return ir.LiteralStructType([member] * n, packed=packed)


def test_equal_literals_get_one_name_and_different_ones_their_own():
    names = StructNames(ir.Context())
    a, b = names.named(_struct(128)), names.named(_struct(128))  # two objects, one type
    assert isinstance(a, ir.IdentifiedStructType) and a is b
    assert str(a) == '%"128xfloat"' and a.elements == (F32,) * 128
    mixed = names.named(ir.LiteralStructType([I32] * 7 + [F32]))
    assert isinstance(mixed, ir.IdentifiedStructType) and mixed is not a
    assert str(mixed).startswith('%"struct.') and mixed.elements == (I32,) * 7 + (F32,)
    packed = names.named(_struct(8, packed=True))
    assert str(packed) == '%"packed.8xfloat"' and packed.packed
    assert len(names.context.identified_types) == 3


def test_small_structs_and_the_listed_literals_stay_literal():
    small = _struct(MIN_MEMBERS - 1)
    kept = _struct(16, I32)
    names = StructNames(ir.Context(), literal={str(kept)})
    assert names.named(small) is small
    assert names.named(kept) is kept
    assert names.named(F32) is F32
    assert names.context.identified_types == {}


def test_a_large_struct_is_named_wherever_it_occurs():
    names = StructNames(ir.Context())
    acc = names.named(_struct(64))
    outer = names.named(ir.LiteralStructType([_struct(64), I32]))  # two members: stays literal
    assert isinstance(outer, ir.LiteralStructType) and outer.elements[0] is acc
    array = names.named(ir.ArrayType(_struct(64), 2))
    assert isinstance(array, ir.ArrayType) and array.element is acc and array.count == 2
    fn = names.named(ir.FunctionType(_struct(64), [_struct(64), I32]))
    assert fn.return_type is acc and fn.args[0] is acc and fn.args[1] is I32
    big_outer = names.named(ir.LiteralStructType([_struct(64)] * 8))  # named, members named first
    assert isinstance(big_outer, ir.IdentifiedStructType) and big_outer.elements == (acc,) * 8
    assert "{float" not in "".join(t.get_declaration() for t in names.context.identified_types.values()
                                   if t is not acc)


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gemm_sm90.mlir"


def test_gemm_defines_its_accumulator_once_and_its_ptx_is_the_literal_spellings():
    text = compile_text(EXAMPLE.read_text(), str(EXAMPLE), ptxas=False).llvm_ir
    definitions = re.findall(r'^(%"[^"]+") = type (\{.*\})$', text, re.M)
    assert len(definitions) == 1, definitions  # the 128-float accumulator (and no other large struct)
    name, body = definitions[0]
    assert name == '%"128xfloat"' and body.count("float") == 128
    assert text.count(body) == 1  # spelled out in its definition only
    literal = text.replace(f"{name} = type {body}\n", "").replace(name, body)
    assert len(literal) > 5 * len(text), (len(literal), len(text))
    assert llvm_to_ptx(literal, "sm_90a", isolate=False) == llvm_to_ptx(text, "sm_90a", isolate=False)
