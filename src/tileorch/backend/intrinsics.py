"""The LLVM 22 intrinsic names tileorch emits, and the check that rejects any other.

LLVM does not reject an unknown ``llvm.nvvm.*`` name: it becomes an external function
and only ptxas fails, far from the cause.  Every name here was compiled through
llvmlite's NVPTX backend (sm_90a, +ptx86) and assembled by ``ptxas -arch=sm_90a``
(``tests/unit/test_backend.py::test_every_known_intrinsic_assembles`` re-checks it).
"""

from __future__ import annotations

from itertools import product

from xdsl.dialects import llvm
from xdsl.ir import Attribute, Operation

from tileorch.diagnostics import LocatedError

_XYZ = ("x", "y", "z")
SREG32 = (
    *(f"{r}.{d}" for r in ("tid", "ntid", "ctaid", "nctaid") for d in _XYZ),
    *(f"{r}.{d}" for r in ("clusterid", "nclusterid", "cluster.ctaid", "cluster.nctaid") for d in _XYZ),
    "laneid", "warpsize", "warpid", "nwarpid", "smid", "nsmid",
    "cluster.ctarank", "cluster.nctarank",
    *(f"lanemask.{m}" for m in ("eq", "le", "lt", "ge", "gt")),
    "clock", "dynamic_smem_size",
)
SREG64 = ("clock64", "globaltimer")

MBARRIER_SCOPES = ("cta", "cluster")


def _mbarrier_names() -> list[str]:
    names = [
        "llvm.nvvm.mbarrier.init", "llvm.nvvm.mbarrier.init.shared",
        "llvm.nvvm.mbarrier.inval", "llvm.nvvm.mbarrier.inval.shared",
        "llvm.nvvm.mbarrier.arrive",
    ]
    for kind, relaxed, scope, space in product(
        ("arrive", "arrive.expect.tx"), ("", ".relaxed"), MBARRIER_SCOPES, ("cta", "cluster")
    ):
        names.append(f"llvm.nvvm.mbarrier.{kind}{relaxed}.scope.{scope}.space.{space}")
    for scope, space in product(MBARRIER_SCOPES, ("cta", "cluster")):
        names.append(f"llvm.nvvm.mbarrier.expect.tx.scope.{scope}.space.{space}")
    for parity, tl, relaxed, scope in product(("", ".parity"), ("", ".tl"), ("", ".relaxed"), MBARRIER_SCOPES):
        names.append(f"llvm.nvvm.mbarrier.try.wait{parity}{tl}{relaxed}.scope.{scope}.space.cta")
    for parity, relaxed, scope in product(("", ".parity"), ("", ".relaxed"), MBARRIER_SCOPES):
        names.append(f"llvm.nvvm.mbarrier.test.wait{parity}{relaxed}.scope.{scope}.space.cta")
    return names


TMA_AND_PAYLOAD = (
    *(f"llvm.nvvm.cp.async.bulk.tensor.{k}.tile.{d}d" for k in ("g2s", "g2s.cta", "s2g", "prefetch") for d in range(1, 6)),
    *(f"llvm.nvvm.cp.async.bulk.tensor.reduce.{r}.tile.{d}d"
      for r in ("add", "min", "max", "inc", "dec", "and", "or", "xor") for d in range(1, 6)),
    "llvm.nvvm.prefetch.tensormap.p0", "llvm.nvvm.prefetch.tensormap.p101",
    *(f"llvm.nvvm.stmatrix.sync.aligned.m8n8.x{x}{t}.b16.p3" for x in (1, 2, 4) for t in ("", ".trans")),
    "llvm.nvvm.griddepcontrol.wait", "llvm.nvvm.griddepcontrol.launch.dependents",
)
"""TMA tensor copies (g2s.cta needs PTX >= 8.6), tensormap prefetch, stmatrix, PDL (hopper-gemm.md §1)."""

TCGEN05_CP_SHAPES = ("128x256b", "4x256b", "128x128b", "64x128b_warpx2_02_13", "64x128b_warpx2_01_23", "32x128b_warpx4")
TCGEN05_LDST_SHAPES = {"16x64b": 128, "16x128b": 64, "16x256b": 32, "32x32b": 128, "16x32bx2": 128}  # shape -> max .num


def _tcgen05_names() -> list[str]:
    names = ["llvm.nvvm.tcgen05.fence.before.thread.sync", "llvm.nvvm.tcgen05.fence.after.thread.sync",
             "llvm.nvvm.tcgen05.wait.ld", "llvm.nvvm.tcgen05.wait.st"]
    for cg in ("cg1", "cg2"):
        names += [f"llvm.nvvm.tcgen05.alloc.{cg}", f"llvm.nvvm.tcgen05.alloc.shared.{cg}",
                  f"llvm.nvvm.tcgen05.dealloc.{cg}", f"llvm.nvvm.tcgen05.relinq.alloc.permit.{cg}",
                  f"llvm.nvvm.tcgen05.shift.down.{cg}",
                  *(f"llvm.nvvm.tcgen05.commit{mc}{sh}.{cg}" for mc in ("", ".mc") for sh in ("", ".shared"))]
        names += [f"llvm.nvvm.tcgen05.cp.{s}{fmt}.{cg}" for s in TCGEN05_CP_SHAPES
                  for fmt in ("", ".b6x16_p32", ".b4x16_p64")]
        names += [f"llvm.nvvm.tcgen05.mma.{a}.disable_output_lane.{cg}" for a in ("shared", "tensor")]
    for shape, top in TCGEN05_LDST_SHAPES.items():
        num = 1
        while num <= top:
            names += [f"llvm.nvvm.tcgen05.{k}.{shape}.x{num}" for k in ("ld", "st")]
            num *= 2
    names += [f"llvm.nvvm.tcgen05.mma.{a}{s}" for a in ("shared", "tensor") for s in ("", ".scale_d")]
    return names


SM100A_ONLY: frozenset[str] = frozenset(_tcgen05_names())
"""The tcgen05 family (TMEM alloc, copy, load/store, UMMA, commit): LLVM 22 selects them only for
sm_100a-class targets (``tests/unit/test_tcgen05_intrinsics.py`` assembles each with
``ptxas -arch=sm_100a``)."""

FP8_CONVERSIONS = tuple(f"llvm.nvvm.{n}" for kind in ("e4m3", "e5m2")
                        for n in (f"ff.to.{kind}x2.rn", f"{kind}x2.to.f16x2.rn"))
"""fp8 <-> f32/f16 pairs (PTX ``cvt.rn.satfinite.e4m3x2.f32``, ``cvt.rn.f16x2.e4m3x2``; sm_89+):
the SIMT lowering's fp8 loads, stores and conversions."""

MMA_SYNC = ("llvm.nvvm.mma.m16n8k16.row.col.f32.f32", "llvm.nvvm.mma.m16n8k16.row.col.bf16",
            "llvm.nvvm.mma.m16n8k8.row.col.tf32",
            *(f"llvm.nvvm.mma.m16n8k32.row.col.{s}" for s in ("s8", "u8", "s8.u8", "u8.s8")),
            *(f"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{n}.b16" for n in (1, 2, 4)))
"""The warp-level ``mma.sync`` intrinsics the SIMT lowering's dots use (f16 -> f32, bf16, tf32, s8/u8)
and the ``ldmatrix`` loads of their fragments."""

def _ptx_math() -> dict[str, str]:
    table = {
        "fma.rn.f32": "llvm.fma.f32", "fma.rn.f64": "llvm.fma.f64",
        "fma.rn.sat.f32": "llvm.nvvm.fma.rn.sat.f", "mul.rn.f32": "llvm.nvvm.mul.rn.f",
        "abs.f32": "llvm.fabs.f32", "abs.f64": "llvm.fabs.f64",
        "max.f32": "llvm.maxnum.f32", "min.f32": "llvm.minnum.f32",
        "max.NaN.f32": "llvm.maximum.f32", "min.NaN.f32": "llvm.minimum.f32",
        "max.f64": "llvm.maxnum.f64", "min.f64": "llvm.minnum.f64",
        "copysign.f32": "llvm.copysign.f32", "copysign.f64": "llvm.copysign.f64",
        "ex2.approx.ftz.f32": "llvm.nvvm.ex2.approx.ftz.f", "rcp.approx.ftz.f32": "llvm.nvvm.rcp.approx.ftz.f",
        "lg2.approx.f32": "llvm.nvvm.lg2.approx.f", "rsqrt.approx.f32": "llvm.nvvm.rsqrt.approx.f",
        "tanh.approx.f32": "llvm.nvvm.tanh.approx.f32",
        "sin.approx.f32": "llvm.nvvm.sin.approx.f", "cos.approx.f32": "llvm.nvvm.cos.approx.f",
        "rcp.rn.f64": "llvm.nvvm.rcp.rn.d",
        "div.approx.f32": "llvm.nvvm.div.approx.f", "div.approx.ftz.f32": "llvm.nvvm.div.approx.ftz.f",
        "div.full.f32": "llvm.nvvm.div.full", "div.full.ftz.f32": "llvm.nvvm.div.full.ftz",
        "mul.hi.u64": "llvm.nvvm.mulhi.ull",
        "cvt.rz.f32.f64": "llvm.nvvm.d2f.rz",
        "cvt.rz.f32.s32": "llvm.nvvm.i2f.rz", "cvt.rz.f32.u32": "llvm.nvvm.ui2f.rz",
        "cvt.rz.f32.s64": "llvm.nvvm.ll2f.rz", "cvt.rz.f32.u64": "llvm.nvvm.ull2f.rz",
    }
    for width, suffix in ((32, "f"), (64, "d")):
        table[f"sqrt.rn.f{width}"] = f"llvm.nvvm.sqrt.rn.{suffix}"
        for mode in ("rz", "rm", "rp"):
            ftz = ("", ".ftz") if width == 32 else ("",)  # (PTX has no .ftz for f64)
            for f in ftz:
                for op in ("sqrt", "add", "mul", "fma", "div"):
                    table[f"{op}.{mode}{f}.f{width}"] = f"llvm.nvvm.{op}.{mode}{f}.{suffix}"
        for ptx_mode, llvm_name in (("rni", "roundeven"), ("rzi", "trunc"), ("rmi", "floor"), ("rpi", "ceil")):
            table[f"cvt.{ptx_mode}.f{width}.f{width}"] = f"llvm.{llvm_name}.f{width}"
    return table


PTX_MATH: dict[str, str] = _ptx_math()
"""PTX instruction (opcode with its modifiers) -> the LLVM 22 intrinsic that NVPTX selects to exactly that
instruction (same rounding, ftz and NaN behaviour; ``tests/unit/test_backend.py::test_ptx_math_intrinsics_select``
compiles each alone and reads the instruction back): the SIMT path's scalar math (``Emitter.ptx``), formerly inline
assembly.  Generic ``llvm.*`` names where LLVM's own semantics is the instruction's (``llvm.fma`` is one rounding,
``llvm.maxnum`` returns the other operand of a NaN as PTX ``max``, ``llvm.maximum`` propagates NaN as ``max.NaN``);
``llvm.nvvm.*.rn`` where a generic ``fmul`` could be contracted into an ``fma``.  No intrinsic (kept inline
assembly): ``sub.{rz,rm,rp}`` (LLVM 22 has ``add``/``mul``/``fma``/``div`` directed but no ``sub``)."""

PTX_MATH_SWAPPED = frozenset({"copysign.f32", "copysign.f64"})
"""PTX ``copysign d, a, b`` is ``b`` with the sign of ``a``; ``llvm.copysign(mag, sign)`` takes them the other way."""


def ptx_math_signature(opcode: str) -> tuple[str, list[str]]:
    """(result type, operand types) of the PTX instruction ``opcode`` of :data:`PTX_MATH`, as LLVM IR type names."""
    names = {"f32": "float", "f64": "double", "s32": "i32", "u32": "i32", "s64": "i64", "u64": "i64"}
    parts = opcode.split(".")
    if parts[0] == "cvt":
        return names[parts[-2]], [names[parts[-1]]]
    typ = names[parts[-1]]
    arity = {"fma": 3, "add": 2, "mul": 2, "div": 2, "max": 2, "min": 2, "copysign": 2}.get(parts[0], 1)
    return typ, [typ] * arity


KNOWN_INTRINSICS: frozenset[str] = frozenset(
    [
        *(f"llvm.nvvm.read.ptx.sreg.{r}" for r in SREG32 + SREG64),
        *_mbarrier_names(),
        "llvm.nvvm.fence.mbarrier_init.release.cluster",
        *(f"llvm.nvvm.fence.proxy.{k}" for k in ("alias", "async", "async.global", "async.shared_cta", "async.shared_cluster")),
        *(f"llvm.nvvm.barrier.cluster.{k}{a}" for k in ("arrive", "arrive.relaxed", "wait") for a in ("", ".aligned")),
        "llvm.nvvm.barrier.cta.sync.aligned.count",
        "llvm.nvvm.barrier.cta.sync.aligned.all",
        "llvm.nvvm.barrier.cta.arrive.aligned.count",
        "llvm.nvvm.barrier.cta.sync.count",
        "llvm.nvvm.barrier.cta.sync.all",
        "llvm.nvvm.barrier.cta.arrive.count",
        "llvm.nvvm.bar.warp.sync",
        "llvm.nvvm.elect.sync",
        "llvm.nvvm.mapa", "llvm.nvvm.mapa.shared.cluster",
        "llvm.nvvm.cp.async.bulk.commit.group",
        "llvm.nvvm.cp.async.bulk.wait.group", "llvm.nvvm.cp.async.bulk.wait.group.read",
        "llvm.nvvm.cp.async.bulk.global.to.shared.cluster",
        "llvm.nvvm.wgmma.fence.sync.aligned",
        "llvm.nvvm.wgmma.commit_group.sync.aligned",
        "llvm.nvvm.wgmma.wait_group.sync.aligned",
        "llvm.nvvm.setmaxnreg.inc.sync.aligned.u32", "llvm.nvvm.setmaxnreg.dec.sync.aligned.u32",
        "llvm.nvvm.nanosleep",
        *TMA_AND_PAYLOAD,
        *SM100A_ONLY,
        "llvm.nvvm.shfl.sync.idx.i32", "llvm.nvvm.shfl.sync.bfly.i32", "llvm.nvvm.shfl.sync.up.i32",
        "llvm.nvvm.shfl.sync.down.i32",
        *FP8_CONVERSIONS,
        "llvm.nvvm.f2tf32.rn",
        *PTX_MATH.values(),
        *MMA_SYNC,
        "llvm.nvvm.exit",
        "llvm.debugtrap",
        "llvm.trap",
    ]
)


def check_known_intrinsics(module: Operation) -> list[Attribute]:
    """Raise a located error at the first ``llvm.call_intrinsic`` whose name is not known; else
    return the struct result types of the intrinsic calls (LLVM accepts only literal struct types
    in an intrinsic's signature: the translation must not name them)."""
    structs: list[Attribute] = []
    for op in module.walk():
        if isinstance(op, llvm.CallIntrinsicOp):
            if op.intrin.data not in KNOWN_INTRINSICS:
                raise LocatedError(
                    op,
                    f"unknown intrinsic '{op.intrin.data}' (not in tileorch's LLVM 22 intrinsic table; "
                    "ptxas would reject it as an undefined .extern .func)",
                )
            if op.ress is not None and isinstance(op.ress.type, llvm.LLVMStructType):
                structs.append(op.ress.type)
    return structs
