"""The back end never waits without end (session 18): a ptxas run and an LLVM code generation child
that do not finish within their limit (``TILEORCH_PTXAS_TIMEOUT``, ``TILEORCH_CODEGEN_TIMEOUT``,
300 s by default) are stopped and reported as an error naming the limit and the variable."""

from __future__ import annotations

import os
import time

import pytest

from tileorch.backend import ptx, ptxas
from tileorch.backend.ptx import BackendError

pytestmark = pytest.mark.skipif(os.name == "nt", reason="uses a shell-script stand-in for ptxas and fork")


def test_time_limits_from_the_environment(monkeypatch):
    monkeypatch.delenv("TILEORCH_PTXAS_TIMEOUT", raising=False)
    monkeypatch.delenv("TILEORCH_CODEGEN_TIMEOUT", raising=False)
    assert ptxas.ptxas_timeout() == 300.0 and ptx.codegen_timeout() == 300.0
    for text, seconds in (("2.5", 2.5), ("0", None), ("none", None), (" 7 ", 7.0)):
        monkeypatch.setenv("TILEORCH_PTXAS_TIMEOUT", text)
        monkeypatch.setenv("TILEORCH_CODEGEN_TIMEOUT", text)
        assert ptxas.ptxas_timeout() == seconds and ptx.codegen_timeout() == seconds, text
    for bad in ("abc", "-1", "inf", "nan"):
        monkeypatch.setenv("TILEORCH_PTXAS_TIMEOUT", bad)
        with pytest.raises(BackendError, match=rf"TILEORCH_PTXAS_TIMEOUT='{bad}' is not a number of seconds"):
            ptxas.ptxas_timeout()


def test_a_hung_ptxas_is_stopped_with_an_error(tmp_path, monkeypatch):
    exe = tmp_path / "bin" / "ptxas"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\nexec sleep 600\n")
    exe.chmod(0o755)
    monkeypatch.setenv("TILEORCH_PTXAS", str(exe))
    monkeypatch.setenv("TILEORCH_PTXAS_TIMEOUT", "0.5")
    with pytest.raises(ptxas.PtxasUnavailable, match=r"ptxas .*/bin/ptxas did not finish within 0\.5 s and was "
                                                     r"stopped .*TILEORCH_PTXAS_TIMEOUT sets the limit"):
        ptxas.run_ptxas("// ptx\n", "sm_90a")


LLVM_IR = """target triple = "nvptx64-nvidia-cuda"
define void @k() {
  ret void
}
"""


def test_a_hung_code_generation_child_is_stopped_with_an_error(monkeypatch):
    """The forked child runs ``ptx.codegen`` (the parent's, as it was at the fork): one that never
    returns is killed after the limit and the compile raises instead of waiting."""
    from tileorch.backend import codegen_server, memo

    monkeypatch.setattr(memo, "directory", lambda: None)  # no memo hit: the child runs
    monkeypatch.setattr(ptx, "codegen", lambda *args: time.sleep(600))
    # a child forked from this process (the suite's code generation server, forked before the patch, would
    # run the real codegen: its own limit is tested in test_codegen_server.py)
    monkeypatch.setattr(codegen_server, "running", lambda: False)
    monkeypatch.setenv("TILEORCH_CODEGEN_TIMEOUT", "0.5")
    with pytest.raises(BackendError, match=r"LLVM code generation \(a forked child\) did not finish within 0\.5 s "
                                           r"and was stopped \(TILEORCH_CODEGEN_TIMEOUT sets the limit"):
        ptx.llvm_to_ptx(LLVM_IR, "sm_90a", isolate=True)
    monkeypatch.undo()
    assert ".func k()" in ptx.llvm_to_ptx(LLVM_IR, "sm_90a", isolate=True)  # the same input, not hung


def test_a_hung_code_generation_subprocess_is_stopped_with_an_error(monkeypatch):
    """Where the process cannot fork, code generation runs in ``python -m tileorch.backend.ptx``;
    the same limit stops it."""
    import subprocess

    real = subprocess.run

    def hung(cmd, **kw):
        assert cmd[1:3] == ["-m", "tileorch.backend.ptx"], cmd
        return real(["sleep", "600"], **{k: v for k, v in kw.items() if k != "input"})

    monkeypatch.setattr(subprocess, "run", hung)
    monkeypatch.setenv("TILEORCH_CODEGEN_TIMEOUT", "0.5")
    with pytest.raises(BackendError, match=r"LLVM code generation \(a subprocess\) did not finish within 0\.5 s"):
        ptx._isolated_codegen(LLVM_IR, "sm_90a", ptx.DEFAULT_PTX_VERSION)
