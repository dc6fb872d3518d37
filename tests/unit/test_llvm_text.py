"""LLVM IR written directly (tileorch.backend.llvm_text) against llvmlite's translation of the same
module (the path it replaces, kept for every function it does not cover): the two texts must be
byte-identical, and the direct path must have been taken where it covers the function."""

from __future__ import annotations

import pytest

from tileorch.backend import llvm_text
from tileorch.backend.llvm_translate import translate_module
from tileorch.diagnostics import parse_module
from tileorch.registry import make_context

MODULE = """builtin.module {{
  llvm.mlir.global internal @smem() {{addr_space = 3 : i32, alignment = 16 : i64}} : !llvm.array<64 x i8>
  llvm.func @use(%a: i32, %b: i64) {{
    llvm.return
  }}
  llvm.func @pair(%a: i32) -> !llvm.struct<(i32, i32)> {{
    %u = llvm.mlir.undef : !llvm.struct<(i32, i32)>
    %s0 = llvm.insertvalue %a, %u[0] : !llvm.struct<(i32, i32)>
    %s1 = llvm.insertvalue %a, %s0[1] : !llvm.struct<(i32, i32)>
    llvm.return %s1 : !llvm.struct<(i32, i32)>
  }}
  llvm.func @k(%p: !llvm.ptr<1>, %n: i32, %x: f32, %h: f16) attributes {{nvvm.kernel}} {{
{body}
  }}
}}
"""

BODIES = {
    "arith": """
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c7 = llvm.mlir.constant(7 : i64) : i64
    %a = llvm.add %n, %c0 : i32
    %b = llvm.mul %a, %n : i32
    %c = llvm.and %b, %a : i32
    %d = llvm.or %c, %b : i32
    %e = llvm.shl %d, %c : i32
    %f = llvm.lshr %e, %d : i32
    %g = llvm.udiv %f, %e : i32
    %r = llvm.urem %g, %f : i32
    %s = llvm.sub %r, %g : i32
    %t = llvm.sdiv %s, %r : i32
    %z = llvm.zext %t : i32 to i64
    %w = llvm.sext %t : i32 to i64
    %m = llvm.xor %z, %w : i64
    %m2 = llvm.ashr %m, %c7 : i64
    %tr = llvm.trunc %m2 : i64 to i16
    %fa = llvm.fadd %x, %x : f32
    %fm = llvm.fmul %fa, %x : f32
    %fs = llvm.fsub %fm, %fa : f32
    %fd = llvm.fdiv %fs, %fm : f32
    %fn = llvm.fneg %fd : f32
    %he = llvm.fpext %h : f16 to f32
    %ht = llvm.fptrunc %fn : f32 to f16
    %hb = llvm.bitcast %ht : f16 to i16
    %q = llvm.icmp "ult" %t, %n : i32
    %q2 = llvm.icmp "eq" %hb, %tr : i16
    %q3 = llvm.fcmp "une" %he, %fn : f32
    %q4 = llvm.fcmp "oge" %he, %fn : f32
    %sel = llvm.select %q, %fd, %he : i1, f32
    %pi = llvm.ptrtoint %p : !llvm.ptr<1> to i64
    llvm.return""",
    "memory": """
    %c1 = llvm.mlir.constant(1 : i64) : i64
    %g = llvm.getelementptr %p[%c1] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
    %g2 = llvm.getelementptr inbounds %p[3] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    %v = llvm.load %g <alignment = 2> : !llvm.ptr<1> -> f16
    %v2 = llvm.load volatile %g2 : !llvm.ptr<1> -> f32
    llvm.store %v, %g <alignment = 2> : f16, !llvm.ptr<1>
    llvm.store volatile %v2, %g2 : f32, !llvm.ptr<1>
    %s = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %sg = llvm.getelementptr %s[%c1] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
    %sv = llvm.load %sg : !llvm.ptr<3> -> i8
    llvm.return""",
    "vectors_calls": """
    %pv = llvm.mlir.poison : vector<2xf16>
    %ps = llvm.mlir.poison : f32
    %u = llvm.mlir.undef : i32
    %zz = llvm.mlir.zero : !llvm.ptr<1>
    %zi = llvm.ptrtoint %zz : !llvm.ptr<1> to i64
    %i0 = llvm.mlir.constant(0 : i32) : i32
    %i1 = llvm.mlir.constant(1 : i32) : i32
    %v0 = llvm.insertelement %h, %pv[%i0 : i32] : vector<2xf16>
    %v1 = llvm.insertelement %h, %v0[%i1 : i32] : vector<2xf16>
    %bc = llvm.bitcast %v1 : vector<2xf16> to i32
    %tid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
    %tid2 = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
    llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%i0) : (i32) -> ()
    %sh = llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%n, %bc, %tid, %tid2) : (i32, i32, i32, i32) -> i32
    %a = llvm.inline_asm has_side_effects "mov.b32 $0, $1; // \\22q\\22", "=r,r" %sh : (i32) -> i32
    %b = llvm.inline_asm "{{ mov.b32 $0, $2; mov.b32 $1, $2; }}", "=r,=r,r" %a : (i32) -> !llvm.struct<(i32, i32)>
    %b1 = llvm.extractvalue %b[1] : !llvm.struct<(i32, i32)>
    llvm.inline_asm has_side_effects "bar.sync 0;", "" : () -> ()
    %f = llvm.fadd %x, %ps : f32
    %w = llvm.add %u, %b1 : i32
    llvm.return""",
    "calls_atomics": """
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %w = llvm.mlir.constant(2 : i64) : i64
    %r = llvm.call @pair(%n) : (i32) -> !llvm.struct<(i32, i32)>
    %r1 = llvm.extractvalue %r[1] : !llvm.struct<(i32, i32)>
    llvm.call @use(%r1, %w) : (i32, i64) -> ()
    %a0 = "llvm.atomicrmw"(%p, %c1) <{bin_op = 1 : i64, ordering = 2 : i64}> : (!llvm.ptr<1>, i32) -> i32
    %a1 = "llvm.atomicrmw"(%p, %a0) <{bin_op = 1 : i64, ordering = 5 : i64, syncscope = "device"}> : (!llvm.ptr<1>, i32) -> i32
    %x1 = "llvm.cmpxchg"(%p, %a1, %c1) <{success_ordering = 4 : i64, failure_ordering = 4 : i64}> : (!llvm.ptr<1>, i32, i32) -> !llvm.struct<(i32, i1)>
    %ok = llvm.extractvalue %x1[1] : !llvm.struct<(i32, i1)>
    llvm.fence syncscope("device") acq_rel
    llvm.fence seq_cst
    %acq = llvm.load %p atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
    llvm.return""",
    "large_structs": """
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %z = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    llvm.br ^bb1(%c0, %z : i32, !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>)
  ^bb1(%i: i32, %acc: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>):
    %w = llvm.inline_asm "mov.b32 $0, $8;", "=f,=f,=f,=f,=f,=f,=f,=f,f" %x : (f32) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %e = llvm.extractvalue %w[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %acc2 = llvm.insertvalue %e, %acc[0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %q = llvm.icmp "slt" %i, %n : i32
    llvm.cond_br %q, ^bb1(%n, %acc2 : i32, !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>), ^bb2
  ^bb2:
    llvm.return""",
    "control_flow": """
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %h0 = llvm.mlir.constant(0.0 : f16) : f16
    %f1 = llvm.mlir.constant(1.5 : f32) : f32
    llvm.br ^bb1(%c0, %h0, %x : i32, f16, f32)
  ^bb1(%i: i32, %acc: f16, %y: f32):
    %q = llvm.icmp "slt" %i, %n : i32
    llvm.cond_br %q, ^bb2, ^bb3(%acc : f16)
  ^bb2:
    %i2 = llvm.add %i, %c1 : i32
    %y2 = llvm.fmul %y, %f1 : f32
    %q2 = llvm.icmp "sgt" %i2, %c1 : i32
    llvm.cond_br %q2, ^bb1(%i2, %h, %y2 : i32, f16, f32), ^bb3(%h0 : f16)
  ^bb3(%out: f16):
    llvm.store %out, %p <alignment = 2> : f16, !llvm.ptr<1>
    llvm.return""",
}


def _both(body: str) -> tuple[str, str, int]:
    module = parse_module(make_context(), MODULE.format(body=body), "m.mlir")
    before = llvm_text.FALLBACKS[0]
    direct = translate_module(module)
    fallbacks = llvm_text.FALLBACKS[0] - before
    original = llvm_text.function_body
    llvm_text.function_body = lambda *args: None
    try:
        llvmlite = translate_module(module)
    finally:
        llvm_text.function_body = original
    return direct, llvmlite, fallbacks


@pytest.mark.parametrize("name", sorted(BODIES))
def test_direct_text_is_llvmlites(name):
    direct, llvmlite, fallbacks = _both(BODIES[name])
    assert fallbacks == 0, "the direct writer left this function to llvmlite"
    assert direct == llvmlite


def test_phi_incomings_follow_the_branches_in_block_order():
    direct, _, _ = _both(BODIES["control_flow"])
    # the loop header's phis: one incoming from the entry block, one from the loop body
    phis = [line.strip() for line in direct.splitlines() if " = phi " in line]
    assert len(phis) == 4  # three arguments of ^bb1, one of ^bb3
    assert phis[0].startswith('%".') and "phi  i32 [0, %\".6\"]" in phis[0] and phis[0].count("[") == 2, phis


@pytest.mark.parametrize("body", [
    "    %c = llvm.mlir.constant(1 : i32) : i32\n    %a = llvm.add %n, %c overflow<nsw> : i32\n    llvm.return",
    "    %a = llvm.fadd %x, %x {fastmathFlags = #llvm.fastmath<fast>} : f32\n    llvm.return",
    "    %c = llvm.mlir.constant(1 : i32) : i32\n    %a = llvm.alloca %c x i32 : (i32) -> !llvm.ptr\n    llvm.return",
])
def test_what_it_does_not_write_goes_to_llvmlite_unchanged(body):
    direct, llvmlite, fallbacks = _both(body)
    assert fallbacks == 1
    assert direct == llvmlite
