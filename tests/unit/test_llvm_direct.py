"""``tileorch.backend.llvm_direct``: a code generation child calls llvmlite's library without
importing ``llvmlite.binding``; the PTX and the messages of rejected IR are llvmlite's own.

Each case runs in a fresh interpreter: whether ``llvmlite.binding`` is loaded is what decides
the path, and the test process itself may have loaded it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

KERNEL = """\
define void @k(ptr addrspace(1) %p, float %x, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp slt i32 %t, %n
  br i1 %c, label %body, label %done
body:
  %i = zext i32 %t to i64
  %q = getelementptr float, ptr addrspace(1) %p, i64 %i
  %v = load float, ptr addrspace(1) %q, align 4
  %s = fmul float %v, %x
  %e = call float @llvm.exp2.f32(float %s)
  store float %e, ptr addrspace(1) %q, align 4
  br label %done
done:
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare float @llvm.exp2.f32(float)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
"""

NSW_KERNEL = KERNEL.replace("zext i32 %t to i64", "sext i32 %t to i64").replace(
    "%c = icmp slt i32 %t, %n", "%t1 = add nsw i32 %t, 1\n  %c = icmp slt i32 %t1, %n")
"""With a poison-generating flag: compiled with LLVM's poison-reuse guard on (the option the
direct path sets the same way)."""

UNPARSABLE = "define void @k( {\n"
UNVERIFIABLE = "define i32 @f() {\nentry:\n  ret void\n}\n"


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)


def _last_json(proc: subprocess.CompletedProcess):
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("ir", [KERNEL, NSW_KERNEL], ids=["flag_free", "nsw"])
@pytest.mark.parametrize("ptx_version", [80, 86])
def test_direct_codegen_writes_llvmlite_ptx(ir, ptx_version):
    proc = _python(f"""
        import json, sys
        from tileorch.backend import ptx
        direct = ptx._init_llvm(direct=True)
        assert direct is not None and direct is ptx._DIRECT
        assert "llvmlite.binding" not in sys.modules  # the library only, not llvmlite's modules
        ours = ptx.codegen({ir!r}, "sm_90a", {ptx_version})
        ptx._DIRECT = None
        ptx._POISON_GUARD = None  # llvmlite.binding sets the option again itself
        theirs = ptx.codegen({ir!r}, "sm_90a", {ptx_version})  # llvmlite.binding (direct not asked)
        assert "llvmlite.binding" in sys.modules
        print(json.dumps([ours, theirs]))
    """)
    ours, theirs = _last_json(proc)
    assert ".entry k" in ours and ours == theirs


@pytest.mark.parametrize("ir", [UNPARSABLE, UNVERIFIABLE], ids=["parse", "verify"])
def test_rejected_ir_gives_llvmlites_message(ir):
    proc = _python(f"""
        import json
        from tileorch.backend import llvm_direct, ptx
        lib = llvm_direct.load()
        try:
            lib.parse_verified({ir!r})
            ours = None
        except RuntimeError as exc:
            ours = str(exc)
        import llvmlite.binding as llvm
        try:
            llvm.parse_assembly({ir!r}).verify()
            theirs = None
        except RuntimeError as exc:
            theirs = str(exc)
        ptx._DIRECT = lib
        try:
            ptx.codegen({ir!r}, "sm_90a", 80)
            backend = None
        except ptx.BackendError as exc:
            backend = str(exc)
        print(json.dumps([ours, theirs, backend]))
    """)
    ours, theirs, backend = _last_json(proc)
    assert theirs and ours == theirs
    assert backend == f"invalid LLVM IR: {theirs.strip()}"


def test_an_unknown_llvmlite_version_falls_back_to_llvmlite_binding():
    proc = _python("""
        import json, sys
        import llvmlite
        llvmlite.__version__ = "0.0.0"
        from tileorch.backend import llvm_direct, ptx
        assert llvm_direct.library_path() is None and llvm_direct.load() is None
        llvm = ptx._init_llvm(direct=True)
        print(json.dumps([ptx._DIRECT is None, llvm is sys.modules.get("llvmlite.binding")]))
    """)
    assert _last_json(proc) == [True, True]


def test_codegen_subprocess_never_imports_llvmlite_binding():
    """``python -m tileorch.backend.ptx`` (the code generation subprocess where fork is missing)
    writes the same PTX through the library alone."""
    code = textwrap.dedent("""
        import atexit, runpy, sys
        atexit.register(lambda: print("binding loaded:", "llvmlite.binding" in sys.modules, file=sys.stderr))
        sys.argv = ["ptx", "sm_90a", "80"]
        runpy.run_module("tileorch.backend.ptx", run_name="__main__")
    """)
    proc = subprocess.run([sys.executable, "-c", code], input=KERNEL, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "binding loaded: False" in proc.stderr
    theirs = _python(f"""
        from tileorch.backend import ptx
        print(ptx.codegen({KERNEL!r}, "sm_90a", 80), end="")
    """)
    assert theirs.returncode == 0, theirs.stderr
    assert ".entry k" in proc.stdout and proc.stdout == theirs.stdout


def test_a_parent_that_forks_for_code_generation_loads_the_library_only():
    """``llvm_to_ptx(isolate=True)`` (``tileorch.cutile.launch``'s compile) initialises LLVM in the
    parent before it forks: the library, not ``llvmlite.binding``; the children and a later code
    generation in process write llvmlite's PTX."""
    proc = _python(f"""
        import json, sys
        from tileorch.backend import ptx
        isolated = ptx.llvm_to_ptx({KERNEL!r}, "sm_90a", 80, isolate=True)
        loaded = "llvmlite.binding" in sys.modules
        in_process = ptx.llvm_to_ptx({NSW_KERNEL!r}, "sm_90a", 80, isolate=False)
        ptx._DIRECT = None
        ptx._POISON_GUARD = None
        theirs = [ptx.codegen(ir, "sm_90a", 80) for ir in ({KERNEL!r}, {NSW_KERNEL!r})]
        print(json.dumps([loaded, [isolated, in_process] == theirs]))
    """)
    assert _last_json(proc) == [False, True]
