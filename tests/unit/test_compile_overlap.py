"""Cold-compile shortcuts that must not change what is compiled (issue 22): the lowered module
verified while LLVM generates code in a forked child, the SIMT route's pipeline without the
cutlass passes, ptxas found without reading package metadata."""

from __future__ import annotations

import os

import pytest

from tileorch.backend import pipeline, ptx, ptxas

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
