"""The sm_100a-only intrinsic names (tcgen05) are real LLVM 22 intrinsics that ptxas accepts for
sm_100a, and the tcgen05 lowering emits exactly the names of that table."""

from __future__ import annotations

import re
import shutil

import pytest

from tileorch.backend.intrinsics import KNOWN_INTRINSICS, SM100A_ONLY, TCGEN05_LDST_SHAPES
from tileorch.backend.ptx import llvm_to_ptx

needs_ptxas = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")

P6, P3, GEN = "ptr addrspace(6) %t", "ptr addrspace(3) @bar", "ptr %gen"
LDST_REGS = {"16x64b": 1, "16x32bx2": 1, "32x32b": 1, "16x128b": 2, "16x256b": 4}


def _vec(regs: int) -> str:
    return "i32" if regs == 1 else f"<{regs} x i32>"


def signature(name: str) -> tuple[str, list[str]]:
    short = name.removeprefix("llvm.nvvm.tcgen05.")
    if short.startswith(("fence.", "wait.", "relinq.")):
        return "void", []
    if short.startswith("alloc.shared."):
        return "void", [P3, "i32 32"]
    if short.startswith("alloc."):
        return "void", [GEN, "i32 32"]
    if short.startswith("dealloc."):
        return "void", [P6, "i32 32"]
    if short.startswith("shift."):
        return "void", [P6]
    if short.startswith("commit"):
        addr = P3 if ".shared" in short else GEN
        return "void", [addr] + (["i16 3"] if ".mc" in short else [])
    if short.startswith("cp."):
        return "void", [P6, "i64 %d"]
    if short.startswith(("ld.", "st.")):
        kind, shape, num = short.split(".")
        regs = LDST_REGS[shape] * int(num.removeprefix("x"))
        offset = ["i64 2"] if shape == "16x32bx2" else []
        if kind == "ld":
            return _vec(regs), [P6, *offset, "i1 0"]
        value = f"{_vec(regs)} " + ("0" if regs == 1 else "zeroinitializer")
        return "void", [P6, *offset, value, "i1 0"]
    if short.startswith("mma."):
        a = P6 if short.startswith("mma.tensor") else "i64 %d"
        head = [P6, a, "i64 %d", "i32 %n", "i1 %p"]
        if ".disable_output_lane.cg" in short:
            lanes = 4 * int(short[-1])
            return "void", [*head, f"<{lanes} x i32> zeroinitializer", "i32 0", "i32 0"]
        scale = ["i64 1"] if short.endswith(".scale_d") else []
        return "void", [*head, *scale, "i32 0", "i32 1", "i32 0"]
    raise AssertionError(f"no signature for {name}")


def test_table_is_the_tcgen05_family_and_known():
    assert SM100A_ONLY <= KNOWN_INTRINSICS
    assert all(n.startswith("llvm.nvvm.tcgen05.") for n in SM100A_ONLY)
    # every ld/st shape with every power-of-two num up to its limit (PTX ISA table)
    assert "llvm.nvvm.tcgen05.ld.16x256b.x32" in SM100A_ONLY and "llvm.nvvm.tcgen05.ld.16x256b.x64" not in SM100A_ONLY
    assert "llvm.nvvm.tcgen05.st.32x32b.x128" in SM100A_ONLY
    assert len([n for n in SM100A_ONLY if ".ld." in n]) == sum(top.bit_length() for top in TCGEN05_LDST_SHAPES.values())


@needs_ptxas
def test_every_sm100a_intrinsic_assembles():
    from tileorch.backend.ptxas import run_ptxas

    # ptxas rejects a function that mixes cta_group::1 and cta_group::2: one kernel per group
    decls, bodies = [], {1: [], 2: []}
    for i, name in enumerate(sorted(SM100A_ONLY)):
        ret, args = signature(name)
        types = ", ".join(re.sub(r" (%\w+|@\w+|-?\d+|zeroinitializer)$", "", a) for a in args)
        decls.append(f'declare {ret} @"{name}"({types})')
        group = 2 if name.endswith(".cg2") else 1
        call = f'  {"" if ret == "void" else f"%r{i} = "}call {ret} @"{name}"({", ".join(args)})'
        bodies[group].append(call)
        if name.startswith("llvm.nvvm.tcgen05.mma.") and ".cg" not in name:  # cta_group is an operand
            bodies[2].append(call.replace("i32 0, i32 1, i32 0)", "i32 0, i32 2, i32 0)").replace(f"%r{i} ", f"%s{i} "))
    ir = "\n".join([
        'target triple = "nvptx64-nvidia-cuda"',
        "@bar = internal addrspace(3) global i64 undef, align 8",
        *decls,
        *(line for g in (1, 2) for line in (
            f"define ptx_kernel void @k{g}(ptr addrspace(6) %t, i64 %d, i32 %n, i1 %p) {{",
            "  %gen = addrspacecast ptr addrspace(3) @bar to ptr",
            *bodies[g],
            "  ret void",
            "}",
        )),
    ])
    ptx = llvm_to_ptx(ir, "sm_100a", 86, isolate=True)
    assert ".extern" not in ptx
    assert ptx.count("tcgen05.") >= len(SM100A_ONLY)
    assert "tcgen05.mma.cta_group::2.kind::f16" in ptx and "tcgen05.cp.cta_group::2.128x256b" in ptx
    run_ptxas(ptx, "sm_100a")
