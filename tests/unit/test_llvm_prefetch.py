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


def _python(code: str, memo: str = "") -> subprocess.CompletedProcess:
    """``code`` in a fresh Python, with the backend memo in ``memo`` ("": off)."""
    import os

    env = {**os.environ, "TILEORCH_BACKEND_MEMO": memo}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300,
                          env=env)


def test_cli_compile_generates_code_in_a_preforked_child_and_never_loads_llvm(tmp_path):
    """``tileorch compile`` forks its code generation child at its start (``prefork_codegen``):
    the process itself never imports llvmlite, and writes the PTX ``tileorch.compile`` makes."""
    from tests.unit.test_lazy_import import PROGRAM

    src = tmp_path / "expk.mlir"
    src.write_text(PROGRAM)
    out = tmp_path / "expk.ptx"
    for memo in ("", str(tmp_path / "memo"), str(tmp_path / "memo")):  # off; on, a miss; on, a hit
        proc = _python(f"""
            import atexit, runpy, sys
            atexit.register(lambda: print("llvmlite loaded:", "llvmlite.binding" in sys.modules, file=sys.stderr))
            sys.argv = ["tileorch", "compile", {str(src)!r}, "-o", {str(out)!r}, "--no-ptxas", "--no-cache"]
            runpy.run_module("tileorch", run_name="__main__")
        """, memo)
        assert proc.returncode == 0, proc.stderr
        assert "llvmlite loaded: False" in proc.stderr  # the memo's key does not load it either
    in_process = _python(f"""
        import tileorch
        print(tileorch.compile({str(src)!r}, None, cache=False, ptxas=False, isolate=True).ptx, end="")
    """)
    assert in_process.returncode == 0, in_process.stderr
    assert ".entry expk" in out.read_text() and out.read_text() == in_process.stdout


def test_a_preforked_child_nobody_asks_exits_quietly_holding_no_output():
    proc = _python("""
        import os, sys
        from tileorch.backend import ptx
        assert ptx.prefork_codegen() and not ptx.prefork_codegen()  # one child at a time
        pid, request, out, err = ptx._PREFORKED
        import time
        deadline = time.monotonic() + 60
        while os.readlink(f"/proc/{pid}/fd/1") != os.devnull and time.monotonic() < deadline:
            time.sleep(0.01)  # the child redirects it first thing
        assert os.readlink(f"/proc/{pid}/fd/1") == os.devnull
        os.close(request)  # as this process's exit would
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status), os.read(out, 100), os.read(err, 100))
        assert "llvmlite.binding" not in sys.modules
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "b''", "b''"]


def test_an_llvm_error_in_the_preforked_child_is_reported_as_in_any_child():
    proc = _python("""
        from tileorch.backend import ptx
        assert ptx.prefork_codegen()
        try:
            ptx.llvm_to_ptx("define void @k() {\\n  ret i32 0\\n}\\n", "sm_90a", 86, isolate=True)
        except ptx.BackendError as exc:
            print("BackendError:", exc)
        assert ptx._PREFORKED is None  # the waiting child did the work
        good = ptx.llvm_to_ptx("define void @k() {\\n  ret void\\n}\\n", "sm_90a", 86, isolate=True)
        print(".visible .func k" in good or ".func k" in good)
    """)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("BackendError: invalid LLVM IR:") and lines[1] == "True", proc.stdout


def test_an_in_process_compile_main_leaves_no_waiting_child(tmp_path):
    """``tileorch compile``'s main run in a process that goes on (a library user, the suite's in-process CLI
    tests) with a compile that fails before code generation: its preforked code generation child is let go
    (session 40's CI: the record stayed, and a later fork of the process, a compile child, waited forever on a
    child not its own; the process's own next code generation was handed to it)."""
    bad = tmp_path / "bad.mlir"
    bad.write_text("builtin.module {\n  frob.nicate\n}\n")
    proc = _python(f"""
        import os
        from tileorch.backend import ptx
        from tileorch.cli.main import main
        try:
            main(["compile", {str(bad)!r}, "-o", {str(tmp_path / 'x.ptx')!r}])
            status = 0
        except SystemExit as exc:
            status = exc.code
        print("status", status, "waiting", ptx._PREFORKED)
        pid = os.fork()
        if pid == 0:  # a forked child inherits no record of it either
            os._exit(0 if ptx._PREFORKED is None else 1)
        print("child", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["status", "1", "waiting", "None", "child", "0"], proc.stdout + proc.stderr
