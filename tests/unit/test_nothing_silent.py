"""Session 18's gaps of the invalid-input sweep: an empty module compiles with a located warning
that says there is nothing to compile (CLI and API), and a crash inside a pass is one located
line naming the pass and the op it was working on, exit 1, no traceback (``TILEORCH_TRACEBACK=1``
re-raises it)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from tool_forkserver import forked

NOTHING = "warning: nothing to compile: the module defines no kernel"


def _cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(forked([sys.executable, "-m", "tileorch", *argv]), capture_output=True, text=True)


@pytest.mark.parametrize("text, suffix", [("builtin.module {\n}\n", ".mlir"), ("", ".mlir"),
                                          ("cuda_tile.module @empty {\n}\n", ".mlir"),
                                          ("func.func @helper() {\n  func.return\n}\n", ".mlir")])
def test_cli_warns_that_an_empty_module_has_nothing_to_compile(tmp_path, text, suffix):
    src = tmp_path / f"k{suffix}"
    src.write_text(text)
    done = _cli("compile", str(src), "--no-ptxas", "-o", str(tmp_path / "k.ptx"))
    assert done.returncode == 0, done.stderr
    assert f"{src}:1:1: {NOTHING}" in done.stderr, done.stderr
    assert "UserWarning" not in done.stderr and "Traceback" not in done.stderr


def test_a_module_with_a_kernel_does_not_warn(tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text("func.func @k() attributes {nvvm.kernel} {\n  func.return\n}\n")
    done = _cli("compile", str(src), "--no-ptxas", "-o", str(tmp_path / "k.ptx"))
    assert done.returncode == 0 and "nothing to compile" not in done.stderr, done.stderr


def test_api_warns_and_remarks_for_an_empty_module():
    import tileorch

    with pytest.warns(UserWarning, match="nothing to compile: it defines no kernel"):
        kernel = tileorch.compile("builtin.module {\n}\n", ptxas=False, cache=False)
    assert kernel.entries == [] and any(NOTHING in r for r in kernel.remarks)


# ---------------------------------------------------------------- a crash inside a pass
@dataclass(frozen=True)
class CrashingPass(ModulePass):
    """Stands for an upstream pass with a bug that this input shows: a KeyError while rewriting
    the module's second op."""

    name = "crash-on-second-op"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for op in list(op.body.block.ops)[1:]:  # noqa: B020 - the pattern's ``op``, as rewrite patterns name it
            {}["missing"]


MODULE = """builtin.module {
  func.func @a() {
    func.return
  }
  func.func @b() {
    func.return
  }
}
"""


def test_a_crash_in_the_driver_pipeline_is_located_at_the_op_and_names_the_pass():
    from tileorch.backend import pipeline
    from tileorch.diagnostics import PassCrash, format_exception, parse_module
    from tileorch.registry import make_context

    ctx = make_context()
    module = parse_module(ctx, MODULE, "k.mlir")
    with pytest.raises(PassCrash) as info:
        pipeline.apply_pass(ctx, module, CrashingPass())
    (line,) = format_exception(info.value, module)
    assert line.startswith("k.mlir:5:3: error: internal error in pass 'crash-on-second-op' on 'func.func' "
                           "(KeyError: 'missing')"), line
    assert "TILEORCH_TRACEBACK=1" in line


def test_a_crash_is_raised_as_it_is_with_the_traceback_switch(monkeypatch):
    from tileorch.backend import pipeline
    from tileorch.diagnostics import parse_module
    from tileorch.registry import make_context

    monkeypatch.setenv("TILEORCH_TRACEBACK", "1")
    ctx = make_context()
    with pytest.raises(KeyError):
        pipeline.apply_pass(ctx, parse_module(ctx, MODULE, "k.mlir"), CrashingPass())


def test_tileorch_opt_reports_a_pass_crash_located_with_exit_1(tmp_path, monkeypatch, capsys):
    from tileorch import registry
    from tileorch.tools import opt

    real = registry.pass_factories
    monkeypatch.setattr(registry, "pass_factories", lambda: {**real(), "crash-on-second-op": lambda: CrashingPass})
    src = tmp_path / "k.mlir"
    src.write_text(MODULE)
    with pytest.raises(SystemExit) as status:
        opt.main([str(src), "-p", "crash-on-second-op"])
    err = capsys.readouterr().err
    assert status.value.code == 1, err
    assert f"{src}:5:3: error: internal error in pass 'crash-on-second-op' on 'func.func' (KeyError: 'missing')" \
        in err, err
    assert "Traceback" not in err


def test_an_unhandled_exception_in_a_subcommand_names_the_input_and_exits_70(tmp_path, monkeypatch, capsys):
    """The CLI's last resort (a tileorch bug no subcommand reported): one line naming the input file,
    exit 70, no traceback (was 'tileorch compile: error: internal error ...' without the file)."""
    from tileorch.cli import compile as compile_cmd
    from tileorch.cli.main import main

    def crash(args):
        {}["missing"]

    monkeypatch.setattr(compile_cmd, "run", crash)
    src = tmp_path / "k.mlir"
    src.write_text(MODULE)
    with pytest.raises(SystemExit) as status:
        main(["compile", str(src)])
    err = capsys.readouterr().err
    assert status.value.code == 70, err
    assert err == (f"{src}: error: internal error in tileorch compile (KeyError: 'missing'); "
                   "rerun with TILEORCH_TRACEBACK=1\n"), err
