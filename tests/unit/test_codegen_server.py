"""tileorch.backend.codegen_server: LLVM code generation children forked by a small server process
instead of by the (large) caller, with the same PTX, the same errors and the same reports of an
LLVM abort, a time limit and a cancelled child as children the caller forks itself; a process
without a live server of its own forks its own child as before."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from tileorch.backend import codegen_server, ptx

IR = 'target triple = "nvptx64-nvidia-cuda"\n\ndefine void @{name}() {{\n  ret void\n}}\n'

ABORTS = """
llvm.func @k(%bar: !llvm.ptr<3>, %p: i32) attributes {nvvm.kernel} {
  %d = nvvm.mbarrier.try_wait %bar, %p {relaxed = true} : !llvm.ptr<3>, i32 -> i1
  llvm.return
}
"""
"""try.wait.parity.relaxed needs PTX 8.6: at 8.0 LLVM aborts ('Cannot select'), as in test_backend."""


@pytest.fixture
def server(monkeypatch):
    """A server of this test's own (the suite's, started by conftest, is put aside meanwhile);
    code generation memo off, so that every call generates code; the server's pid."""
    monkeypatch.setenv("TILEORCH_BACKEND_MEMO", "")
    monkeypatch.setattr(codegen_server, "_SERVER", None)
    monkeypatch.setattr(codegen_server, "_CHILDREN_CPU_S", [0.0])
    assert codegen_server.start() and not codegen_server.start()  # one per process
    served = []
    submit = codegen_server.submit

    def counting_submit(*args):
        child = submit(*args)
        served.append(child)
        return child

    monkeypatch.setattr(codegen_server, "submit", counting_submit)
    pid = codegen_server._SERVER[1]
    yield pid, served
    codegen_server.stop()


def _kernel_ir() -> str:
    from tileorch.driver import compile_text

    text = open(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "ws_pipeline.mlir")).read()
    return compile_text(text, "ws_pipeline.mlir", emit="llvm", ptxas=False).llvm_ir


def test_the_servers_child_writes_the_ptx_of_an_in_process_codegen(server):
    pid, served = server
    llvm_ir = _kernel_ir()
    assert ptx.llvm_to_ptx(llvm_ir, isolate=True) == ptx.llvm_to_ptx(llvm_ir, isolate=False)
    (child,) = served
    assert len(child) == 4 and child[0] != pid
    with pytest.raises(ChildProcessError):  # the server's child, not this process's
        os.waitpid(child[0], os.WNOHANG)
    assert codegen_server.children_cpu_s() > 0  # its CPU reported with its status


def test_an_llvm_abort_in_the_servers_child_is_located_as_in_any_child(server):
    from tileorch.backend.compile import CompileError
    from tileorch.driver import compile_text

    pid, served = server
    with pytest.raises(CompileError) as info:
        compile_text(ABORTS, "old.mlir", ptx_version=80, ptxas=False, isolate=True)
    (line,) = info.value.lines
    assert line.startswith("old.mlir:3:3: error:") and "Cannot select" in line
    assert served and all(child is not None for child in served)
    os.kill(pid, 0)  # the server outlives its aborted child ...
    assert ".func k" in ptx.llvm_to_ptx(IR.format(name="k"), isolate=True)  # ... and serves on


def test_invalid_ir_is_the_childs_tileorch_error(server):
    _, served = server
    with pytest.raises(ptx.BackendError, match="^invalid LLVM IR:"):
        ptx.llvm_to_ptx("define void @k() {\n  ret i32 0\n}\n", isolate=True)
    assert len(served) == 1


def test_requests_from_several_threads_each_get_their_own_ptx(server):
    _, served = server
    results: dict[str, str] = {}

    def one(name: str) -> None:
        results[name] = ptx.llvm_to_ptx(IR.format(name=name), isolate=True)

    threads = [threading.Thread(target=one, args=(f"k{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(served) == 4
    for name, text in results.items():
        assert f".func {name}" in text and all(f".func {o}" not in text for o in results if o != name)


def test_a_child_past_the_time_limit_is_stopped_and_reported(server, monkeypatch):
    pid, served = server
    monkeypatch.setenv(ptx.CODEGEN_TIMEOUT_ENV, "0.000001")
    with pytest.raises(ptx.BackendError, match="did not finish within 1e-06 s and was stopped"):
        ptx.llvm_to_ptx(_kernel_ir(), isolate=True)
    assert len(served) == 1
    with pytest.raises(ProcessLookupError):  # killed, and reaped by the server
        os.kill(served[0][0], 0)


def test_a_cancelled_child_is_stopped_and_the_server_serves_on(server):
    _, served = server

    def fail():
        raise RuntimeError("the module is invalid")

    with pytest.raises(RuntimeError, match="invalid"):
        ptx.llvm_to_ptx(_kernel_ir(), isolate=True, meanwhile=fail)
    with pytest.raises(ProcessLookupError):
        os.kill(served[0][0], 0)
    assert ".func k" in ptx.llvm_to_ptx(IR.format(name="k"), isolate=True)


def test_without_a_server_the_caller_forks_its_own_child(server):
    pid, served = server
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    assert ".func k" in ptx.llvm_to_ptx(IR.format(name="k"), isolate=True)
    assert served == [None] and not codegen_server.running()  # found gone, forgotten
    assert ".func k2" in ptx.llvm_to_ptx(IR.format(name="k2"), isolate=True)
    assert served == [None]  # not asked again


def test_a_server_that_stops_under_its_child_is_an_error_not_a_hang(server):
    pid, _ = server
    child = codegen_server.submit(IR.format(name="k"), "sm_90a", ptx.DEFAULT_PTX_VERSION)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    code, sig, _, err = ptx._fork_finish(child)
    assert (code, sig) == (1, None) and "server stopped before its child finished" in err


def test_a_process_forked_from_the_owner_does_not_use_its_server(server):
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.write(write, b"1" if codegen_server.running() else b"0")
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    assert os.read(read, 1) == b"0" and codegen_server.running()
    os.close(read)


def test_the_suites_processes_run_their_code_generation_through_a_server():
    """tests/conftest.py starts one in every process that runs tests (xdist worker or ``-n 0``)."""
    assert codegen_server.running()
    os.kill(codegen_server._SERVER[1], 0)
