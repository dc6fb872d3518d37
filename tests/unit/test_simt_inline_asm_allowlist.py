"""The SIMT path's PTX holds inline assembly only where LLVM 22 has no intrinsic (architecture rule; issue 22).

Its scalar math (``fma.rn``, ``abs``, ``max.NaN``, ``ex2.approx.ftz``, directed ``add.rz`` / ``sqrt.rm`` ..., f64
``fma`` / ``copysign`` / ``cvt.rzi``) is emitted as LLVM intrinsics (``tileorch.backend.intrinsics.PTX_MATH``),
which NVPTX selects to the same instructions; what stays inline assembly is read off the PTX between its
``// begin inline asm`` / ``// end inline asm`` markers and must be one of :data:`ALLOWED`, each with the reason
no intrinsic serves.  The programs: softmax, layernorm (bf16), rmsnorm, a division by a scalar, exp / log /
trig / hyperbolic / pow / atan2 / floor in f32, the same and a remainder in f64, directed rounding in f32 and f64.
"""

from __future__ import annotations

import os
import re

import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

from tileorch.testing import memory_programs as mp  # noqa: E402
from tileorch.testing.noticed32_programs import directed_modes, directed_ops, divide_by_scalar  # noqa: E402
from tileorch.testing.user_programs import float_math  # noqa: E402

ALLOWED = {
    "predicated global load": re.compile(r"ld\.global(\.v[24])?\.b(16|32|64) mov\.b(16|32|64) setp\.ne\.b32"),
    "predicated global store": re.compile(r"setp\.ne\.b32 st\.global(\.v[24])?\.b(16|32|64)"),
    "f32 to bf16 (llvm.nvvm.f2bf16.* return a bfloat, a type tileorch's LLVM IR does not carry)":
        re.compile(r"cvt\.r[nz]\.bf16\.f32"),
    "f32 to f16 toward zero (no LLVM 22 intrinsic)": re.compile(r"cvt\.rz\.f16\.f32"),
    "directed subtraction (LLVM 22 has add / mul / fma / div .rz/.rm/.rp, no sub)": re.compile(r"sub\.r[zmp]\.f(32|64)"),
}
"""Reason -> the sorted distinct opcodes of an allowed inline-assembly block (a predicated access: ``setp`` of its
predicate, ``mov`` of the fill, ``@p ld`` / ``@p st``: no intrinsic issues a global access under a predicate)."""


def _blocks(ptx: str) -> list[str]:
    """Each inline-assembly block of ``ptx`` as its sorted distinct opcodes (a predicate guard ``@p`` dropped)."""
    out = []
    for body in re.findall(r"// begin inline asm\n(.*?)// end inline asm", ptx, re.S):
        ops = set()
        for stmt in re.split(r"[;\n]", body):
            words = stmt.strip().strip("{}").split()
            if words and not words[0].startswith(".reg"):
                ops.add(words[1] if words[0].startswith("@") and len(words) > 1 else words[0])
        out.append(" ".join(sorted(ops)))
    return out


@ct.kernel
def f32_math(x, y, z, n: ct.Constant[int]):
    """exp (full and approx), log, sin / cos / tan, tanh, sinh / cosh, rsqrt, max / min of one f32 tile."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    u = ct.load(y, index=(i,), shape=(n,))
    a = ct.exp(t) + ct.exp(u, rounding_mode=ct.RoundingMode.APPROX) + ct.log(ct.abs(u) + 1.0) + ct.sin(t) * ct.cos(u)
    b = ct.tan(t * 0.25) + ct.tanh(u) + ct.sinh(t) - ct.cosh(u * 0.5) + ct.rsqrt(ct.abs(t) + 1.0)
    ct.store(z, index=(i,), tile=ct.maximum(a, b) + ct.minimum(a, t))


@ct.kernel
def f64_math(x, y, z, n: ct.Constant[int]):
    """exp, log, sin, tanh, atan2, pow, sqrt, floor, abs and a remainder of one f64 tile."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    u = ct.load(y, index=(i,), shape=(n,))
    a = ct.exp(t) + ct.log(ct.abs(u) + 1.0) + ct.sin(t) + ct.tanh(u) + ct.atan2(t, u)
    b = ct.pow(ct.abs(t) + 0.5, u) + ct.sqrt(ct.abs(u)) + ct.floor(t) + t % (ct.abs(u) + 1.0)
    ct.store(z, index=(i,), tile=ct.maximum(a, b))


N = 4096
PROGRAMS = {
    "softmax_f16": (mp.softmax, [((64, 1000), "float16"), ((64, 1000), "float16"), 1024],
                    ["ex2.approx.ftz.f32", "fma.rn.sat.f32"]),
    "layernorm_bf16": (mp.layernorm, [((64, 1000), "bfloat16"), ((1000,), "bfloat16"), ((1000,), "bfloat16"),
                                      ((64, 1000), "bfloat16"), 1024], ["cvt.rn.bf16.f32"]),
    "rmsnorm_f32": (mp.rmsnorm, [((64, 1000), "float32"), ((1000,), "float32"), ((64, 1000), "float32"), 1024],
                    ["rsqrt.approx.f32"]),
    "divide_by_scalar": (divide_by_scalar, [((N,), "float32"), ((N,), "float32"), 3.0, 256],
                         ["rcp.approx.ftz.f32", "mul.rn.f32", "max.NaN.f32", "abs.f32"]),
    "float_math": (float_math, [((N,), "float32")] * 3 + [256],
                   ["lg2.approx.f32", "cvt.rmi.f32.f32", "cvt.rpi.f32.f32", "sqrt.rn.f32",
                    "max.f32", "min.f32"]),
    "f32_math": (f32_math, [((N,), "float32")] * 3 + [256],
                 ["sin.approx.f32", "cos.approx.f32", "cvt.rni.f32.f32", "rcp.approx.ftz.f32", "copysign.f32"]),
    "f64_math": (f64_math, [((N,), "float64")] * 3 + [128],
                 ["fma.rn.f64", "cvt.rzi.f64.f64", "sqrt.rn.f64", "abs.f64", "copysign.f64", "cvt.rmi.f64.f64"]),
    "directed_f32": (directed_ops, [((N,), "float32")] * 5 + [128], ["add.rz.f32", "sub.rm.f32", "mul.rp.f32"]),
    "directed_f64": (directed_modes, [((N,), "float64")] * 5 + [128], ["mul.rz.f64", "mul.rm.f64", "mul.rp.f64"]),
}
"""name -> (kernel, arguments, PTX instructions its lowering emits: the math each program exercises)."""
CI = {"softmax_f16", "divide_by_scalar", "f32_math", "f64_math", "directed_f32"}
"""The programs CI compiles (about a second each); all of them with ``TILEORCH_EMULATE_ALL=1``."""


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_simt_inline_assembly_only_where_llvm_has_no_intrinsic(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    if name not in CI and not os.environ.get("TILEORCH_EMULATE_ALL"):
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 runs it")
    kernel, spec, instructions = PROGRAMS[name]
    program = compile_once(cutile_bytecode(kernel, spec), f"asm_allowlist_{name}", arch="sm_90a", ptxas=False)
    assert program.kind == "simt", name
    opcodes = set(re.findall(r"^\s+(?:@%?\w+\s+)?([a-z][\w.]*)", program.ptx, re.M))
    assert not [i for i in instructions if i not in opcodes], name
    blocks = _blocks(program.ptx)
    stray = sorted({b for b in blocks if not any(r.fullmatch(b) for r in ALLOWED.values())})
    assert not stray, f"{name}: inline assembly with an LLVM 22 intrinsic: {stray}"
