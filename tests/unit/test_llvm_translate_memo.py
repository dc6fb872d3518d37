"""The LLVM IR translation's memos (issue 22): one llvmlite type per type attribute, one callee per
distinct ``llvm.inline_asm`` (asm text, constraints, side effect, result and operand types).
Sharing must not change a byte of the IR text: each call still prints its own operands and
types, and asm ops that differ in any part of the key keep their own callee."""

from __future__ import annotations

from xdsl.backend.llvm.convert_type import convert_type as xdsl_convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import Float16Type, IntAttr, IntegerType, VectorType, f32, i1, i32, i64

from tileorch.backend.llvm_translate import convert_type, translate_module
from tileorch.diagnostics import parse_module
from tileorch.registry import make_context

ASM = ('builtin.module {{\n  llvm.func @k(%a: i32, %b: f32) {{\n{body}    llvm.return\n  }}\n}}\n')


def _ir(body: str) -> list[str]:
    module = parse_module(make_context(), ASM.format(body=body), "asm.mlir")
    text = translate_module(module)
    return [line.strip() for line in text.splitlines() if " asm " in line]


def _asm(result: str, operands: str, types: str, asm: str, constraints: str, side_effect: bool = False) -> str:
    flag = ", has_side_effects" if side_effect else ""
    lhs = f"%{result} = " if result else ""
    return (f'    {lhs}"llvm.inline_asm"({operands}) <{{asm_string = "{asm}", constraints = "{constraints}"{flag}, '
            f'tail_call_kind = #llvm.tailcallkind<none>}}> : {types}\n')


def test_repeated_inline_asm_prints_every_call_with_its_operands():
    # llvmlite names the arguments %".1", %".2", the entry block .4 (.3 is the function's
    # own counter), then each result in order; it writes "asm  " (two spaces) without sideeffect
    body = (_asm("x", "%a", "(i32) -> i32", "mov.b32 $0, $1;", "=r,r")
            + _asm("y", "%x", "(i32) -> i32", "mov.b32 $0, $1;", "=r,r")
            + _asm("z", "%y", "(i32) -> i32", "mov.b32 $0, $1;", "=r,r"))
    assert _ir(body) == ['%".5" = call i32 asm  "mov.b32 $0, $1;", "=r,r"(i32 %".1")',
                         '%".6" = call i32 asm  "mov.b32 $0, $1;", "=r,r"(i32 %".5")',
                         '%".7" = call i32 asm  "mov.b32 $0, $1;", "=r,r"(i32 %".6")']


def test_inline_asm_differing_in_any_part_keeps_its_own_text():
    body = (_asm("x", "%a", "(i32) -> i32", "mov.b32 $0, $1;", "=r,r")
            + _asm("y", "%b", "(f32) -> f32", "mov.b32 $0, $1;", "=r,r")  # other types
            + _asm("z", "%a", "(i32) -> i32", "mov.b32 $0, $1;", "=r,r", side_effect=True)
            + _asm("w", "%a", "(i32) -> i64", "mov.b32 $0, $1;", "=r,r")  # other result type
            + _asm("v", "%a", "(i32) -> i32", "mov.b32 $0, $1;", "=l,r")  # other constraints
            + _asm("u", "%a", "(i32) -> i32", "mov.b16 $0, $1;", "=r,r")  # other text
            + _asm("", "", "() -> ()", "bar.sync \\220\\22;", "", side_effect=True)  # quotes escaped
            + _asm("", "", "() -> ()", "bar.sync \\220\\22;", "", side_effect=True))
    assert _ir(body) == ['%".5" = call i32 asm  "mov.b32 $0, $1;", "=r,r"(i32 %".1")',
                         '%".6" = call float asm  "mov.b32 $0, $1;", "=r,r"(float %".2")',
                         '%".7" = call i32 asm sideeffect "mov.b32 $0, $1;", "=r,r"(i32 %".1")',
                         '%".8" = call i64 asm  "mov.b32 $0, $1;", "=r,r"(i32 %".1")',
                         '%".9" = call i32 asm  "mov.b32 $0, $1;", "=l,r"(i32 %".1")',
                         '%".10" = call i32 asm  "mov.b16 $0, $1;", "=r,r"(i32 %".1")',
                         'call void asm sideeffect "bar.sync \\220\\22;", ""()',
                         'call void asm sideeffect "bar.sync \\220\\22;", ""()']


def test_convert_type_is_xdsls_with_one_object_per_attribute():
    types = [i1, i32, i64, f32, Float16Type(), IntegerType(7), llvm.LLVMPointerType(IntAttr(1)), llvm.LLVMPointerType(),
             VectorType(Float16Type(), [2]), llvm.LLVMStructType.from_type_list([i32, f32, llvm.LLVMPointerType(IntAttr(3))]),
             llvm.LLVMArrayType(IntAttr(4), i64)]
    for t in types:
        first = convert_type(t)
        assert convert_type(t) is first, t
        assert str(first) == str(xdsl_convert_type(t)), t
    # equal attributes built apart convert to equal types (each object has its own entry)
    assert str(convert_type(llvm.LLVMPointerType(IntAttr(1)))) == str(convert_type(llvm.LLVMPointerType(IntAttr(1)))) == "ptr addrspace(1)"
