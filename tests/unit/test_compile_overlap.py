"""Cold-compile shortcuts that must not change what is compiled (issue 22): the lowered module
verified while LLVM generates code in a forked child, the SIMT route's pipeline without the
cutlass passes, ptxas found without reading package metadata, ptxas run on the PTX while the
module is still being verified."""

from __future__ import annotations

import os

import pytest

from tileorch.backend import memo, pipeline, ptx, ptxas

IR = 'target triple = "nvptx64-nvidia-cuda"\n\ndefine void @k() {\n  ret void\n}\n'


def _no_child_left() -> bool:
    try:
        return os.waitpid(-1, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return True


def test_meanwhile_runs_once_and_changes_no_ptx():
    calls = []
    plain = ptx.llvm_to_ptx(IR, isolate=True)
    overlapped = ptx.llvm_to_ptx(IR, isolate=True, meanwhile=lambda: calls.append(1))
    assert overlapped == plain and ".entry" not in plain and "k" in plain
    assert calls == [1]
    assert ptx.llvm_to_ptx(IR, isolate=False, meanwhile=lambda: calls.append(2)) == plain
    assert calls == [1, 2]


def test_meanwhile_error_stops_the_child_and_propagates():
    def fail():
        raise RuntimeError("the module is invalid")

    with pytest.raises(RuntimeError, match="invalid"):
        ptx.llvm_to_ptx(IR, isolate=True, meanwhile=fail)
    assert _no_child_left()


def _module(text: str):
    from tileorch.backend.compile import parse_text
    from tileorch.registry import make_context

    return parse_text(make_context(), text)


SIMT = "builtin.module {\n  func.func @f() {\n    func.return\n  }\n}\n"


def test_simt_programs_skip_the_cutlass_passes_only_without_cutlass_ops():
    plain = _module(SIMT)
    assert pipeline.lowering_pipeline(plain, simt_program=True) == pipeline.STD_LOWERING
    assert pipeline.lowering_pipeline(plain) == pipeline.PIPELINE  # any other module: the whole pipeline
    from tileorch.dialects.cutlass.named_barrier import NamedBarrierArriveOp

    with_cutlass = _module(SIMT)
    func = next(op for op in with_cutlass.walk() if op.name == "func.func")
    func.body.block.insert_op_before(NamedBarrierArriveOp.create(), func.body.block.first_op)  # never verified here
    assert pipeline.has_cutlass_ops(with_cutlass)
    assert pipeline.lowering_pipeline(with_cutlass, simt_program=True) == pipeline.PIPELINE


def test_wheel_ptxas_needs_no_package_metadata(monkeypatch):
    import importlib.metadata as md

    expected = ptxas.wheel_ptxas()
    if expected is None or os.sep + "nvidia" + os.sep not in expected:
        pytest.skip("no nvidia-cuda-nvcc wheel installed")

    def no_metadata(name):
        raise AssertionError("importlib.metadata read")

    monkeypatch.setattr(md, "files", no_metadata)
    assert ptxas.wheel_ptxas() == expected


@pytest.mark.parametrize("isolate", [True, False])
def test_the_lowered_module_is_verified_once_and_its_error_reported(monkeypatch, isolate):
    from tileorch.backend import compile as backend
    from tileorch.diagnostics import CompileError
    from tileorch.driver import compile_text

    monkeypatch.delenv(backend.VERIFY_EACH_PASS_ENV, raising=False)  # the suite verifies after every pass
    stages = []
    real = backend.verify_located

    def verify(module):
        stages.append(len(stages))
        return real(module)

    monkeypatch.setattr(backend, "verify_located", verify)
    result = compile_text(SIMT, emit="ptx", ptxas=False, isolate=isolate)
    assert result.ptx and len(stages) == 2  # the input, then the lowered module (during codegen if isolated)
    monkeypatch.setattr(backend, "verify_located", lambda module: ["<input>:1:1: error: broken"])
    with pytest.raises(CompileError) as info:
        compile_text(SIMT, emit="ptx", ptxas=False, isolate=isolate)
    assert info.value.lines == ["<input>:1:1: error: broken"]  # the input's verification fails first
    calls = []
    monkeypatch.setattr(backend, "verify_located",
                        lambda module: (calls.append(1), [] if len(calls) == 1 else ["<input>:1:1: error: bad"])[1])
    with pytest.raises(CompileError) as info:
        compile_text(SIMT, emit="ptx", ptxas=False, isolate=isolate)
    assert info.value.lines == ["<input>:1:1: error: bad (after reconcile-unrealized-casts)"]
    assert _no_child_left()


def test_ptxas_runs_on_the_childs_ptx_while_the_caller_verifies(monkeypatch):
    """start_codegen: ``then`` gets the child's PTX (the same as the sequential path's) on the
    helper thread while the caller still works; its result and errors come back to the caller."""
    import threading

    monkeypatch.delenv(memo.ENV, raising=False)  # the suite's memo answers codegen: the sequential path
    started = ptx.start_codegen(IR, "sm_90a", ptx.DEFAULT_PTX_VERSION, len)
    assert started is not None and started.then_result() == len(started.ptx())
    monkeypatch.setenv(memo.ENV, "/nonexistent-memo")
    assert ptx.start_codegen(IR, "sm_90a", ptx.DEFAULT_PTX_VERSION, len) is None
    monkeypatch.delenv(memo.ENV)
    assert _no_child_left()

    plain = ptx.llvm_to_ptx(IR, isolate=True)
    seen, release = [], threading.Event()

    def then(text):
        seen.append((text, threading.current_thread() is threading.main_thread()))
        release.set()
        return len(text)

    pending = ptx.start_codegen(IR, "sm_90a", ptx.DEFAULT_PTX_VERSION, then)
    assert pending is not None
    assert release.wait(60)  # ran before the caller asked for anything: overlapped with the caller's work
    assert pending.ptx() == plain and pending.then_result() == len(plain)
    assert seen == [(plain, False)]
    assert _no_child_left()

    def fail(text):
        raise ptx.BackendError("ptxas rejected the PTX")

    pending = ptx.start_codegen(IR, "sm_90a", ptx.DEFAULT_PTX_VERSION, fail)
    assert pending.ptx() == plain  # code generation succeeded: its PTX, then the error of then
    with pytest.raises(ptx.BackendError, match="ptxas rejected"):
        pending.then_result()
    assert _no_child_left()


def test_codegen_error_comes_before_then_and_then_does_not_run(monkeypatch):
    monkeypatch.delenv(memo.ENV, raising=False)
    ran = []
    pending = ptx.start_codegen("this is not LLVM IR\n", "sm_90a", ptx.DEFAULT_PTX_VERSION, ran.append)
    with pytest.raises(ptx.BackendError, match="invalid LLVM IR"):
        pending.ptx()
    assert ran == [] and _no_child_left()


def test_compile_with_ptxas_overlaps_it_and_reports_the_same_result(monkeypatch):
    """The backend's overlapped path (isolated, ptxas on, one verification) returns what the
    sequential one returns, ptxas timed as the part the verification did not hide; a verification
    error still comes first, after the child and ptxas finished."""
    from tileorch.backend import compile as backend
    from tileorch.diagnostics import CompileError
    from tileorch.driver import compile_text

    if not ptxas.ptxas_available():
        pytest.skip("no ptxas")
    monkeypatch.delenv(backend.VERIFY_EACH_PASS_ENV, raising=False)
    monkeypatch.delenv(memo.ENV, raising=False)
    overlapped = compile_text(SIMT, emit="ptx", ptxas=True, isolate=True)
    sequential = compile_text(SIMT, emit="ptx", ptxas=True, isolate=False)
    assert overlapped.ptx == sequential.ptx
    assert overlapped.ptxas.cubin == sequential.ptxas.cubin and overlapped.ptxas.info == sequential.ptxas.info
    assert "codegen/verify" in overlapped.timings and "ptxas" in overlapped.timings
    calls = []
    monkeypatch.setattr(backend, "verify_located",
                        lambda module: (calls.append(1), [] if len(calls) == 1 else ["<input>:1:1: error: bad"])[1])
    with pytest.raises(CompileError) as info:
        compile_text(SIMT, emit="ptx", ptxas=True, isolate=True)
    assert info.value.lines == ["<input>:1:1: error: bad (after reconcile-unrealized-casts)"]
    assert _no_child_left()


def test_ptxas_imports_are_made_while_the_child_generates_code(monkeypatch):
    """A ptxas run imports ``subprocess`` and ``tempfile`` (5-10 ms of a fresh process): the overlapped
    path makes them (:func:`ptxas.prepare_run`) on the caller's thread before it verifies, while the
    child generates code, not on the helper thread once the PTX is there (the critical path)."""
    import subprocess
    import sys
    import threading

    from tileorch.backend import compile as backend
    from tileorch.driver import compile_text

    monkeypatch.delenv(backend.VERIFY_EACH_PASS_ENV, raising=False)
    monkeypatch.delenv(memo.ENV, raising=False)
    events = []
    main = threading.main_thread()
    monkeypatch.setattr(backend, "prepare_run", lambda: events.append(("prepare", threading.current_thread() is main)))
    monkeypatch.setattr(backend, "verify_located", lambda module: events.append(("verify", True)) or [])
    monkeypatch.setattr(backend, "run_ptxas",
                        lambda text, arch: events.append(("ptxas", False)) or ptxas.PtxasResult(1, [], b"x", []))
    compile_text(SIMT, emit="ptx", ptxas=True, isolate=True)
    names = [name for name, _ in events]
    last_verify = len(names) - 1 - names[::-1].index("verify")  # the lowered module's (after the input's)
    assert ("prepare", True) in events and names.index("prepare") < last_verify
    # not ``prepare`` before ``ptxas``: on a loaded machine the child can deliver its PTX (and the
    # helper thread run ptxas) before the caller's thread reaches prepare_run; ptxas imports what
    # it needs itself, so the order is the overlap's best case, not a guarantee
    assert "ptxas" in names and _no_child_left()
    code = ("import sys; from tileorch.backend.ptxas import prepare_run; prepare_run(); "
            "print(all(m in sys.modules for m in ('subprocess', 'tempfile')))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120).stdout.strip() == "True"


def test_ptxas_starts_on_the_whole_ptx_before_the_child_is_reaped(monkeypatch):
    """The child writes :data:`ptx.PTX_END` after the whole PTX: ``then`` (ptxas) runs as soon as it is
    read, while the child exits (the teardown of its LLVM comes before its pipes' end and its status),
    and the child is reaped after ``then``, never left behind; no reader sees the marker."""
    monkeypatch.delenv(memo.ENV, raising=False)
    order = []
    wait = ptx._wait_child
    monkeypatch.setattr(ptx, "_wait_child", lambda child: order.append("reaped") or wait(child))
    pending = ptx.start_codegen(IR, "sm_90a", ptx.DEFAULT_PTX_VERSION, lambda text: order.append("then") or len(text))
    assert pending is not None and pending.then_result() == len(pending.ptx())
    assert order == ["then", "reaped"] and _no_child_left()
    plain = ptx.llvm_to_ptx(IR, isolate=True)
    assert pending.ptx() == plain and "\0" not in plain and _no_child_left()
