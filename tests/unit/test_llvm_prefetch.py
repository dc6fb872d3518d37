"""``tileorch compile`` loads LLVM in a background thread while it parses and lowers
(``tileorch.backend.ptx.prefetch_llvm``); the thread is joined before LLVM is used, so the
process forks for code generation with no other thread alive."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_prefetch_is_joined_before_llvm_is_used():
    code = textwrap.dedent("""
        import sys, threading
        from tileorch.backend import ptx
        assert "llvmlite.binding" not in sys.modules
        ptx.prefetch_llvm()
        assert ptx._PREFETCH is not None and ptx._PREFETCH.name == "tileorch-llvm-prefetch"
        ptx._init_llvm()
        assert ptx._PREFETCH is None and threading.active_count() == 1
        assert "llvmlite.binding" in sys.modules
        ptx.prefetch_llvm()  # loaded already: no thread
        assert ptx._PREFETCH is None and threading.active_count() == 1
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_cli_compile_prefetches_and_still_writes_ptx(tmp_path):
    from tests.unit.test_lazy_import import PROGRAM  # a small SIMT program

    src = tmp_path / "expk.mlir"
    src.write_text(PROGRAM)
    out = tmp_path / "expk.ptx"
    proc = subprocess.run([sys.executable, "-m", "tileorch", "compile", str(src), "-o", str(out), "--no-ptxas",
                           "--no-cache"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert ".entry" in out.read_text()
