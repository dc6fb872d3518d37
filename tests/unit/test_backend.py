"""Backend: nvvm/llvm dialect -> LLVM IR -> PTX -> ptxas, and the translator fixes.

Expected PTX spellings come from the PTX ISA and CUTLASS's inline asm
(shared/reference/cutlass-semantics.md §2), not from our own output.
"""

import re
import shutil
import subprocess
import sys

import pytest

from tileorch.backend.compile import CompileError
from tileorch.driver import compile_text
from tileorch.backend.intrinsics import (KNOWN_INTRINSICS, PTX_MATH, SM100A_ONLY, SREG64,
                                        ptx_math_signature)
from tileorch.backend.ptx import llvm_to_ptx
from tileorch.backend.ptxas import run_ptxas

needs_ptxas = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")

SPIN_KERNEL = """
module {
  llvm.mlir.global internal @bars() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<2 x i64>
  func.func @k(%out: !llvm.ptr<1>, %phase: i32) attributes {nvvm.kernel ATTRS} {
    %bar = llvm.mlir.addressof @bars : !llvm.ptr<3>
    %c1 = arith.constant 1 : i32
    %ticks = arith.constant 10000000 : i32
    nvvm.setmaxregister increase 232
    nvvm.mbarrier.init %bar, %c1 : !llvm.ptr<3>, i32
    nvvm.fence.mbarrier.init
    nvvm.barrier
    %s = nvvm.mbarrier.arrive %bar : !llvm.ptr<3> -> i64
    nvvm.mbarrier.try_wait.parity %bar, %phase, %ticks : !llvm.ptr<3>, i32, i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    llvm.store %tid, %out : i32, !llvm.ptr<1>
    func.return
  }
}
"""
LAUNCH_BOUNDS = ", nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32"


@needs_ptxas
def test_spin_loop_kernel_with_launch_bounds_has_no_setmaxnreg_warning():
    r = compile_text(SPIN_KERNEL.replace("ATTRS", LAUNCH_BOUNDS), "spin.mlir")
    ptx = r.ptx
    assert ".visible .entry k(" in ptx
    assert ".maxntid 384, 1, 1" in ptx and ".minnctapersm 1" in ptx
    # the blocking wait is a loop: try_wait with the suspend-time hint, branch back while not done
    loop = ptx[ptx.index("mbarrier.try_wait.parity.shared.b64") - 200 :]
    assert "$L__BB0_" in loop and "bra" in loop
    assert "10000000" in ptx
    assert not any("C7508" in m for m in r.ptxas.messages), r.ptxas.messages


@needs_ptxas
def test_setmaxnreg_without_launch_bounds_is_an_error():
    """Without maxntid+minctasm ptxas ignores setmaxnreg (C7508): compile refuses the kernel."""
    with pytest.raises(CompileError, match="C7508"):
        compile_text(SPIN_KERNEL.replace("ATTRS", ""), "spin.mlir")


def test_cluster_shape_becomes_reqnctapercluster():
    text = SPIN_KERNEL.replace("module {", 'module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {')
    r = compile_text(text.replace("ATTRS", LAUNCH_BOUNDS), "c.mlir", ptxas=False)
    assert ".explicitcluster" in r.ptx and ".reqnctapercluster 2, 2, 1" in r.ptx
    explicit = text.replace("ATTRS", LAUNCH_BOUNDS + ", nvvm.cluster_dim = array<i32: 4, 1, 1>")
    assert ".reqnctapercluster 4, 1, 1" in compile_text(explicit, "c.mlir", ptxas=False).ptx


def test_unknown_intrinsic_is_caught_before_ptxas():
    text = """
llvm.func @k(%bar: !llvm.ptr<3>, %p: i32) attributes {nvvm.kernel} {
  %d = llvm.call_intrinsic "llvm.nvvm.mbarrier.test.wait.parity.shared"(%bar, %p) : (!llvm.ptr<3>, i32) -> i1
  llvm.return
}
"""
    with pytest.raises(CompileError) as info:
        compile_text(text, "bad.mlir")
    (line,) = info.value.lines
    assert line.startswith("bad.mlir:3:3: error: unknown intrinsic 'llvm.nvvm.mbarrier.test.wait.parity.shared'")


def test_llvm_abort_is_isolated_and_located():
    """try.wait.parity.relaxed needs PTX 8.6: at 8.0 LLVM aborts ('Cannot select'); we report it."""
    text = """
llvm.func @k(%bar: !llvm.ptr<3>, %p: i32) attributes {nvvm.kernel} {
  %d = nvvm.mbarrier.try_wait %bar, %p {relaxed = true} : !llvm.ptr<3>, i32 -> i1
  llvm.return
}
"""
    with pytest.raises(CompileError) as info:
        compile_text(text, "old.mlir", ptx_version=80, ptxas=False, isolate=True)
    (line,) = info.value.lines
    assert line.startswith("old.mlir:3:3: error:") and "Cannot select" in line


ABORT_UNDER_FAULTHANDLER = r'''
import faulthandler, os, sys
# as pytest does: the fault handler writes to a copy of the original stderr, not to fd 2
faulthandler.enable(file=os.fdopen(os.dup(2), "w"))
from tileorch.backend.compile import CompileError
from tileorch.driver import compile_text
text = """
llvm.func @k(%bar: !llvm.ptr<3>, %p: i32) attributes {nvvm.kernel} {
  %d = nvvm.mbarrier.try_wait %bar, %p {relaxed = true} : !llvm.ptr<3>, i32 -> i1
  llvm.return
}
"""
try:
    compile_text(text, "old.mlir", ptx_version=80, ptxas=False, isolate=True)
except CompileError as exc:
    print(exc.lines[0])
print("still running:", faulthandler.is_enabled())
'''


def test_llvm_abort_in_the_child_leaks_nothing_to_stderr():
    """The forked child that aborts keeps its output: no faulthandler 'Fatal Python error:
    Aborted' and Python stack from the child reaches the parent's stderr (it escaped pytest's
    capture), the parent still gets the located error and keeps its own fault handler."""
    proc = subprocess.run([sys.executable, "-c", ABORT_UNDER_FAULTHANDLER], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Fatal Python error" not in proc.stderr and "Current thread" not in proc.stderr, proc.stderr
    assert proc.stderr.strip() == ""
    located, still = proc.stdout.splitlines()
    assert located.startswith("old.mlir:3:3: error:") and "Cannot select" in located
    assert still == "still running: True"


def _payload_args(short: str, p3: str, p7: str) -> list[str]:
    """Arguments of the TMA / stmatrix / tensormap-prefetch intrinsics (LLVM 22 signatures)."""
    if short == "prefetch.tensormap.p101":  # a byval kernel parameter's map in parameter space
        return ["ptr addrspace(101) %param"]
    if short.startswith("prefetch.tensormap."):
        return ["ptr %gen"]
    if short.startswith("stmatrix."):
        count = int(short.split(".x")[1][0])
        return [p3] + ["i32 0"] * count
    dims = int(short.rsplit(".", 1)[1].removesuffix("d"))
    coords = ["i32 0"] * dims
    kind = short.removeprefix("cp.async.bulk.tensor.")
    if kind.startswith("g2s.cta."):
        return [p3, p3, "ptr %gen", *coords, "i64 0", "i1 0"]
    if kind.startswith("g2s."):
        return [p7, p3, "ptr %gen", *coords, "i16 0", "i64 0", "i1 0", "i1 0", "i32 0"]
    if kind.startswith("prefetch."):
        return ["ptr %gen", *coords, "i64 0", "i1 0"]
    return [p3, "ptr %gen", *coords, "i64 0", "i1 0"]  # s2g, reduce


_PTX_MATH_OF = {name: opcode for opcode, name in PTX_MATH.items()}


def _signature(name: str) -> tuple[str, list[str]]:
    """(return type, argument list) of a known intrinsic, from its LLVM definition."""
    math = _PTX_MATH_OF.get(name)
    if math is not None:  # a scalar math instruction's intrinsic: constants of its operand types
        ret, types = ptx_math_signature(math)
        return ret, [{"float": "float 1.5", "double": "double 1.5", "i32": "i32 %n", "i64": "i64 %st"}[t]
                     for t in types]
    short = name.removeprefix("llvm.nvvm.")
    if short.startswith("read.ptx.sreg."):
        return ("i64" if short.removeprefix("read.ptx.sreg.") in SREG64 else "i32"), []
    p3, p7 = "ptr addrspace(3) @bar", "ptr addrspace(7) %remote"
    if short.startswith("mbarrier."):
        rest = short.removeprefix("mbarrier.")
        if rest in ("init", "inval", "arrive"):
            return ("i64" if rest == "arrive" else "void"), ["ptr %gen"] + (["i32 1"] if rest == "init" else [])
        if rest in ("init.shared", "inval.shared"):
            return "void", [p3] + (["i32 1"] if rest == "init.shared" else [])
        cluster = rest.endswith("space.cluster")
        addr = p7 if cluster else p3
        if rest.startswith(("arrive", "expect.tx")):
            ret = "void" if cluster or rest.startswith("expect.tx") else "i64"
            return ret, [addr, "i32 1"]
        state = "i32 %n" if ".parity" in rest else "i64 %st"
        return "i1", [addr, state] + (["i32 100"] if ".tl" in rest else [])
    if short.startswith(("cp.async.bulk.tensor.", "stmatrix.", "prefetch.tensormap.")):
        return "void", _payload_args(short, p3, p7)
    table = {
        "barrier.cta.sync.aligned.count": ("void", ["i32 1", "i32 128"]),
        "barrier.cta.arrive.aligned.count": ("void", ["i32 1", "i32 128"]),
        "barrier.cta.sync.aligned.all": ("void", ["i32 0"]),
        "barrier.cta.sync.count": ("void", ["i32 1", "i32 128"]),
        "barrier.cta.arrive.count": ("void", ["i32 1", "i32 128"]),
        "barrier.cta.sync.all": ("void", ["i32 0"]),
        "bar.warp.sync": ("void", ["i32 -1"]),
        "elect.sync": ("{i32, i1}", ["i32 -1"]),
        "mapa": ("ptr", ["ptr %gen", "i32 1"]),
        "mapa.shared.cluster": ("ptr addrspace(7)", [p3, "i32 1"]),
        "cp.async.bulk.wait.group": ("void", ["i32 0"]),
        "cp.async.bulk.wait.group.read": ("void", ["i32 0"]),
        "cp.async.bulk.global.to.shared.cluster": (
            "void", [p7, p3, "ptr addrspace(1) %src", "i32 128", "i16 0", "i64 0", "i1 0", "i1 0"]),
        "wgmma.wait_group.sync.aligned": ("void", ["i64 0"]),
        "setmaxnreg.inc.sync.aligned.u32": ("void", ["i32 232"]),
        "setmaxnreg.dec.sync.aligned.u32": ("void", ["i32 40"]),
        "nanosleep": ("void", ["i32 100"]),
        "shfl.sync.idx.i32": ("i32", ["i32 -1", "i32 %n", "i32 0", "i32 31"]),
        "shfl.sync.bfly.i32": ("i32", ["i32 -1", "i32 %n", "i32 1", "i32 31"]),
        "shfl.sync.up.i32": ("i32", ["i32 -1", "i32 %n", "i32 1", "i32 0"]),
        "shfl.sync.down.i32": ("i32", ["i32 -1", "i32 %n", "i32 1", "i32 31"]),
        **{f"ff.to.{k}x2.rn": ("i16", ["float 1.0", "float 2.0"]) for k in ("e4m3", "e5m2")},
        **{f"{k}x2.to.f16x2.rn": ("<2 x half>", ["i16 7"]) for k in ("e4m3", "e5m2")},
        "f2tf32.rn": ("i32", ["float 1.0"]),
        # warp-level mma.sync (A, B, C fragments) and ldmatrix (x1, x2, x4 words from shared memory)
        "mma.m16n8k16.row.col.f32.f32": ("{float, float, float, float}",
                                         ["<2 x half> zeroinitializer"] * 6 + ["float 0.0"] * 4),
        **{f"mma.m{k}.row.col.{t}": ("{float, float, float, float}", ["i32 0"] * 6 + ["float 0.0"] * 4)
           for k, t in (("16n8k16", "bf16"), ("16n8k8", "tf32"))},
        **{f"mma.m16n8k32.row.col.{t}": ("{i32, i32, i32, i32}", ["i32 0"] * 10)
           for t in ("s8", "u8", "s8.u8", "u8.s8")},
        "ldmatrix.sync.aligned.m8n8.x1.b16": ("i32", [p3]),
        "ldmatrix.sync.aligned.m8n8.x2.b16": ("{i32, i32}", [p3]),
        "ldmatrix.sync.aligned.m8n8.x4.b16": ("{i32, i32, i32, i32}", [p3]),
    }
    return table.get(short, ("void", []))


@needs_ptxas
def test_every_known_intrinsic_assembles():
    """Each name in the table is a real LLVM 22 intrinsic that ptxas accepts for sm_90a."""
    decls, calls = [], []
    for i, name in enumerate(sorted(KNOWN_INTRINSICS - SM100A_ONLY)):  # sm_100a names: test_tcgen05_intrinsics.py
        ret, args = _signature(name)
        types = ", ".join(a.rsplit(" ", 1)[0] for a in args)
        decls.append(f'declare {ret} @"{name}"({types})')
        result = "" if ret == "void" else f"%r{i} = "
        calls.append(f'  {result}call {ret} @"{name}"({", ".join(args)})')
    ir = "\n".join([
        'target triple = "nvptx64-nvidia-cuda"',
        "@bar = internal addrspace(3) global i64 undef, align 8",
        *decls,
        "define ptx_kernel void @k(ptr addrspace(7) %remote, ptr addrspace(1) %src, i32 %n, i64 %st,",
        '                           ptr byval([128 x i8]) align 64 "nvvm.grid_constant" %tmap) {',
        "  %gen = addrspacecast ptr addrspace(3) @bar to ptr",
        "  %param = addrspacecast ptr %tmap to ptr addrspace(101)",
        *calls,
        "  ret void",
        "}",
    ])
    ptx = llvm_to_ptx(ir, "sm_90a", 86, isolate=True)
    assert ".extern" not in ptx
    run_ptxas(ptx, "sm_90a", allow_ignored_setmaxnreg=True)


def test_ptx_math_intrinsics_select_their_instruction():
    """Each intrinsic of PTX_MATH (the SIMT path's scalar math, formerly inline assembly) compiles, alone in a
    function of its operands, to exactly the PTX instruction it stands for: the same opcode, rounding, ftz and
    NaN modifiers (``max.NaN.f32``, ``cvt.rzi.f32.f32``, ``fma.rn.sat.f32``...), and nothing else."""
    decls, funcs, order = [], [], sorted(PTX_MATH.items())
    for i, (opcode, name) in enumerate(order):
        ret, types = ptx_math_signature(opcode)
        params = ", ".join(f"{t} %a{j}" for j, t in enumerate(types))
        decls.append(f'declare {ret} @"{name}"({", ".join(types)})')
        funcs += [f"define {ret} @m{i}({params}) {{", f'  %r = call {ret} @"{name}"({params})', f"  ret {ret} %r", "}"]
    ptx = llvm_to_ptx("\n".join(['target triple = "nvptx64-nvidia-cuda"', *sorted(set(decls)), *funcs]), "sm_90a", 86,
                      isolate=False)
    bodies = {}
    for chunk in ptx.split(".func")[1:]:
        name = re.match(r"\s*(?:\([^)]*\)\s*)?(\w+)", chunk).group(1)
        lines = [line.strip() for line in chunk.split("{", 1)[1].split("\n")]
        bodies[name] = [line.split()[0] for line in lines if line and not line.startswith(
            ("ld.param", "st.param", "ret", ".reg", "}", "//", "{", ".visible"))]
    for i, (opcode, name) in enumerate(order):
        assert bodies[f"m{i}"] == [opcode], (name, bodies[f"m{i}"])


def test_translator_fixes_address_spaces_atomics_and_volatile():
    text = """
llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i32>
llvm.mlir.global internal @flag() {addr_space = 3 : i32, alignment = 8 : i64} : i64
llvm.func @k(%g: !llvm.ptr<1>, %i: i32, %v: i32) attributes {nvvm.kernel} {
  %s = llvm.mlir.addressof @smem : !llvm.ptr<3>
  %e = llvm.getelementptr %s[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
  llvm.store %v, %e : i32, !llvm.ptr<3>
  %f = llvm.mlir.addressof @flag : !llvm.ptr<3>
  llvm.store %v, %f : i32, !llvm.ptr<3>
  %gen = llvm.addrspacecast %s : !llvm.ptr<3> to !llvm.ptr
  %x = llvm.load %gen : !llvm.ptr -> i32
  %a = llvm.atomicrmw add %g, %x syncscope("device") monotonic : !llvm.ptr<1>, i32
  %c = llvm.cmpxchg %g, %a, %v syncscope("device") acq_rel monotonic : !llvm.ptr<1>, i32
  llvm.fence syncscope("device") acq_rel
  %l = llvm.load %g atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  llvm.store volatile %l, %g : i32, !llvm.ptr<1>
  llvm.return
}
"""
    r = compile_text(text, "t.mlir", ptxas=shutil.which("ptxas") is not None)
    assert "addrspace(3)" in r.llvm_ir and "bitcast" not in r.llvm_ir
    assert "align 16" in r.llvm_ir
    ptx = r.ptx
    assert ".shared .align 16 .b8 smem[256];" in ptx
    assert "st.shared.b32" in ptx  # GEP kept the shared address space
    assert "addrspacecast ptr addrspace(3)" in r.llvm_ir
    assert "ld.shared.b32" in ptx or "cvta.shared.u64" in ptx  # the addrspacecast kept the space
    assert "atom.relaxed.gpu.global.add.u32" in ptx or "atom.global.add.u32" in ptx
    assert "cas.b32" in ptx
    assert "fence.acq_rel.gpu;" in ptx
    assert "ld.acquire.gpu.global.b32" in ptx
    assert "st.volatile.global.b32" in ptx


def test_cli_compile_reports_located_errors_without_traceback(tmp_path):
    src = tmp_path / "bad.mlir"
    src.write_text("llvm.func @k() {\n  nvvm.setmaxregister increase 300\n  llvm.return\n}\n")
    proc = subprocess.run(
        [sys.executable, "-c", "from tileorch.cli.main import main; main()", "compile", str(src)], capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        f"{src}:2:3: error: setmaxregister count must be a multiple of 8 in [24, 256], got 300"
    )
    assert "Traceback" not in proc.stderr


def test_emit_llvm_marks_kernels():
    r = compile_text(SPIN_KERNEL.replace("ATTRS", LAUNCH_BOUNDS), "s.mlir", emit="llvm")
    assert 'define ptx_kernel void @"k"' in r.llvm_ir
    assert '"nvvm.maxntid"="384,1,1"' in r.llvm_ir and '"nvvm.minctasm"="1"' in r.llvm_ir
    assert r.ptx == ""


def test_unknown_extra_pass_is_an_error():
    with pytest.raises(CompileError) as info:
        compile_text(SPIN_KERNEL.replace("ATTRS", ""), "s.mlir", extra_pipeline="no-such-pass", emit="mlir")
    assert "no-such-pass" in info.value.lines[0]


def test_ptxas_resources_are_parsed_per_function_and_spills_are_warnings():
    """``ptxas -v`` lines (as ptxas 13 prints them) become registers/spills/stack/smem per function;
    a function that spills gets one warning line naming it and the bytes."""
    from tileorch.backend.ptxas import PtxasResult

    lines = [
        "ptxas info    : 0 bytes gmem",
        "ptxas info    : Compiling entry function 'k_spills' for 'sm_90a'",
        "ptxas info    : Function properties for k_spills",
        "    1104 bytes stack frame, 1100 bytes spill stores, 1096 bytes spill loads",
        "ptxas info    : Used 255 registers, used 1 barriers, 1024 bytes smem, 920 bytes cmem[0]",
        "ptxas info    : Compiling entry function 'k_clean' for 'sm_90a'",
        "ptxas info    : Function properties for k_clean",
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
        "ptxas info    : Used 40 registers, used 0 barriers, 392 bytes cmem[0]",
    ]
    r = PtxasResult(0, lines)
    assert r.resources == {
        "k_spills": {"stack": 1104, "spill_stores": 1100, "spill_loads": 1096, "registers": 255, "smem": 1024},
        "k_clean": {"stack": 0, "spill_stores": 0, "spill_loads": 0, "registers": 40},
    }
    assert r.spill_warnings() == ["warning: ptxas spilled registers of k_spills: 1100 B stores, 1096 B loads "
                                  "(255 registers)"]
    assert r.summary() == ("k_spills: 255 registers, 1100 B spill stores + 1096 B spill loads, 1104 B stack; "
                           "k_clean: 40 registers, 0 spills, 0 B stack")


def test_compiled_gemm_reports_registers_and_no_spills():
    from pathlib import Path

    from tileorch.driver import compile_text
    from tileorch.backend.ptxas import ptxas_available

    if not ptxas_available():
        pytest.skip("no ptxas (pip install nvidia-cuda-nvcc)")

    path = Path(__file__).resolve().parents[2] / "examples" / "gemm_sm90.mlir"
    r = compile_text(path.read_text(), str(path))
    (name, res), = [(k, v) for k, v in r.ptxas.resources.items() if "registers" in v]
    assert name.startswith("gemm_bf16_bf16_bk_128x256x64") and 100 < res["registers"] <= 255
    assert res["spill_stores"] == res["spill_loads"] == 0 and r.ptxas.spill_warnings() == []
