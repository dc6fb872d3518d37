"""``tileorch-opt`` run in-process (``tileorch.tools.opt.main``) patches nothing of the process.

xDSL's ``xDSLOptMain`` turns its ``--disable-verify`` and ``--syntax-highlight`` into process-wide switches when it
is built: ``Attribute.__post_init__`` replaced by a function that verifies nothing, ``Diagnostic.colored`` set, and
never put back.  Session 39's CI saw the first: after an in-process ``tileorch-opt ... --disable-verify`` (tests/unit/
test_verify_each_pass.py), every attribute and type built later in that process skipped its verifier, so the bytecode
reader took a ``tensor_view`` with a zero stride (tests/unit/test_cuda_tile_bytecode_errors.py) and a library user
calling tileorch after ``tileorch-opt``'s main would have had unverified IR without a word.  Session 40 scoped the
switches to the call (a snapshot, a thread-local flag); since session 41 ``tileorch-opt`` parses both into arguments
of its own and implements them itself (op verification off; a highlighted output), so xDSL never patches a class:
these tests run it in this process and check that nothing was patched, during the call or after it."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import Float32Type
from xdsl.ir import Attribute
from xdsl.utils.diagnostic import Diagnostic
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.cuda_tile import types as T

_MODULE = "builtin.module {\n  func.func @a() {\n    func.return\n  }\n}\n"


def _opt(tmp_path, *args: str) -> int:
    from tileorch.tools import opt

    src = tmp_path / "k.mlir"
    src.write_text(_MODULE)
    try:
        opt.main([str(src), *args])
    except SystemExit as exc:
        return exc.code
    return 0


def _zero_stride_view_is_rejected() -> None:
    with pytest.raises(VerifyException, match="strictly positive constant strides"):
        T.TensorViewType(Float32Type(), [64], [0])


@pytest.mark.parametrize("args, status", [
    (("-p", "canonicalize", "--disable-verify"), 0),
    (("--disable-verify", "-p", "no-such-pass"), 2),  # the pipeline fails to build after the switch was set
    (("--disable-verify", "-p", "canonicalize{"), 2),  # a malformed pipeline
])
def test_disable_verify_does_not_outlive_the_call(tmp_path, capsys, args, status):
    """A type built after ``tileorch-opt --disable-verify`` in the same process is verified (its verifier's error),
    however the call ended."""
    _zero_stride_view_is_rejected()
    before = Attribute.__post_init__
    assert _opt(tmp_path, *args) == status, capsys.readouterr()
    assert Attribute.__post_init__ is before
    _zero_stride_view_is_rejected()


def test_the_bytecode_reader_rejects_a_bad_view_after_tileorch_opt(tmp_path, capsys):
    """Session 39's symptom, through the reader: a ``tensor_view`` with a zero stride is a located bytecode error
    after an in-process ``tileorch-opt --disable-verify``."""
    from tileorch.frontend.cuda_tile_bytecode import BytecodeError, BytecodeReader, _Reader, _Tables

    assert _opt(tmp_path, "--disable-verify") == 0, capsys.readouterr()
    rd = BytecodeReader(b"", "t.tileirbc")
    rd.t = _Tables((13, 3))
    rd.t.types = {0: Float32Type()}
    rd.t.type_offsets = [0]
    data = b"\x0e\x00" + b"\x01" + (64).to_bytes(8, "little") + b"\x01" + (0).to_bytes(8, "little")
    with pytest.raises(BytecodeError, match="strictly positive constant strides"):
        rd._decode_type(_Reader(data, 400), 0)


def test_syntax_highlight_does_not_outlive_the_call(tmp_path, capsys):
    """``--syntax-highlight`` colours that call's output only: a diagnostic printed later in the process is plain."""
    assert Diagnostic.colored is False
    assert _opt(tmp_path, "--syntax-highlight") == 0, capsys.readouterr()
    assert Diagnostic.colored is False


def test_disable_verify_patches_no_class_during_its_call(tmp_path, monkeypatch, capsys):
    """Inside a ``--disable-verify --syntax-highlight`` call (a pass of it), ``Attribute.__post_init__`` is the
    process's own and ``Diagnostic.colored`` unset: no process-wide patch at all (session 40 patched both for the
    call's duration, so a library thread compiling meanwhile depended on a thread-local flag).  Types are verified
    when built, as in mlir-opt (``--disable-verify``: no op verification), in that call and in any other."""
    from xdsl.passes import ModulePass

    from tileorch import registry

    seen: list = []
    own_post_init = Attribute.__post_init__

    class BuildBadView(ModulePass):
        name = "test-build-bad-view"

        def apply(self, ctx, op):
            seen.append((Attribute.__post_init__ is own_post_init, Diagnostic.colored))
            try:
                T.TensorViewType(Float32Type(), [64], [0])
                seen.append("built")
            except VerifyException:
                seen.append("rejected")

    real = registry.pass_factories
    monkeypatch.setattr(registry, "pass_factories", lambda: {**real(), BuildBadView.name: lambda: BuildBadView})
    assert _opt(tmp_path, "-p", BuildBadView.name, "--disable-verify", "--syntax-highlight") == 0, capsys.readouterr()
    assert _opt(tmp_path, "-p", BuildBadView.name) == 0, capsys.readouterr()
    assert seen == [(True, False), "rejected", (True, False), "rejected"]
    _zero_stride_view_is_rejected()


@pytest.mark.parametrize("spelling", ["--disable-verify", "--disable-ver"])
def test_disable_verify_skips_op_verification_in_its_own_run(tmp_path, capsys, spelling):
    """The switch's effect, implemented by tileorch-opt (any spelling argparse takes, an abbreviation included): an
    op that fails its verifier is printed, exit 0; without the switch, a located error, exit 1."""
    src = tmp_path / "bad_op.mlir"
    src.write_text(_BAD_OP)
    from tileorch.tools import opt

    def run(*args):
        try:
            opt.main([str(src), *args])
        except SystemExit as exc:
            return exc.code
        return 0

    assert run(spelling) == 0
    out, err = capsys.readouterr()
    assert "func.return" in out and not err, (out, err)
    assert run() == 1
    out, err = capsys.readouterr()
    assert f"{src}:2:3: error:" in out + err, (out, err)


@pytest.mark.parametrize("args, unverified, highlight", [
    ((), False, False), (("--disable-verify",), True, False), (("--syntax-highlight", "--disable-v"), True, True)])
def test_the_switches_reach_the_run_not_the_classes(tmp_path, args, unverified, highlight):
    """A driver built with the switches (abbreviated too) carries them in xDSL's own argument names for its run
    (xDSL's pass callback reads ``disable_verify``, its printer target ``syntax_highlight``), and building it set
    neither class attribute xDSL's ``__init__`` sets from them (session 40: set, then put back by a snapshot)."""
    from tileorch.tools.opt import TileorchOptMain

    src = tmp_path / "k.mlir"
    src.write_text(_MODULE)
    before = Attribute.__post_init__
    driver = TileorchOptMain(args=[str(src), *args])
    assert (driver.args.disable_verify, driver.args.syntax_highlight) == (unverified, highlight)
    assert Attribute.__post_init__ is before and Diagnostic.colored is False


def test_tileorch_opt_scopes_every_class_attribute_xdsl_s_driver_sets():
    """Every assignment of xDSL's opt driver (and the command-line tool under it) to an attribute of a class it
    imports is a process-wide switch: each must be one that ``tileorch-opt`` scopes to its call
    (``opt.XDSL_SWITCHES``), so that an xDSL upgrade adding another one fails here instead of leaking."""
    import ast
    import inspect

    from xdsl.tools import command_line_tool
    from xdsl import xdsl_opt_main

    from tileorch.tools.opt import XDSL_SWITCHES

    found = set()
    for module in (xdsl_opt_main, command_line_tool):
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) \
                        and isinstance(getattr(module, t.value.id, None), type):
                    found.add(f"{t.value.id}.{t.attr}")
    assert found, "no class attribute assignment found: the scan no longer reads xDSL's driver"
    assert found <= {f"{cls.__name__}.{name}" for cls, name in XDSL_SWITCHES}, found


def _process_state() -> dict:
    """What a command-line main could leave changed for the rest of a process: xDSL's switches, the collector,
    the environment and this thread's setting overrides, the warning filters, the standard streams, the signal
    handlers, the recursion limit, the working directory."""
    import gc
    import os
    import signal
    import sys
    import warnings

    from tileorch import settings
    from tileorch.tools.opt import XDSL_SWITCHES

    return {"xdsl switches": [vars(cls).get(name) for cls, name in XDSL_SWITCHES],
            "gc": (gc.isenabled(), gc.get_threshold()), "environ": dict(os.environ),
            "overrides": dict(getattr(settings._local, "texts", None) or {}), "warnings": list(warnings.filters),
            "streams": (sys.stdout, sys.stderr, sys.stdin),
            "signals": [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGALRM)],
            "recursion": sys.getrecursionlimit(), "cwd": os.getcwd()}


_BAD_ATTRIBUTE = 'func.func @f() {\n  %0 = "test.op"() {v = 300 : i8} : () -> i32\n  func.return\n}\n'
_BAD_OP = "func.func @f() -> i32 {\n  func.return\n}\n"  # (its op verifier's error: no value returned)


@pytest.mark.parametrize("tool, args, status", [
    ("tileorch", ["check", "{root}/examples/ws_stream_copy.mlir", "--jobs", "1"], 0),
    ("tileorch", ["compile", "{root}/examples/ws_stream_copy.mlir", "--emit=mlir", "-o", "{tmp}/out.mlir"], 0),
    ("tileorch", ["compile", "{tmp}/bad.mlir", "--emit=mlir"], 1),
    ("tileorch-opt", ["{tmp}/bad_op.mlir", "--disable-verify", "--syntax-highlight"], 0),
    ("tileorch-opt", ["{tmp}/bad.mlir", "--allow-unregistered-dialect", "--disable-verify"], 1),
    ("tileorch-opt", ["{tmp}/bad.mlir", "--allow-unregistered-dialect"], 1),
    ("tileorch-opt", ["{tmp}/bad.mlir", "--disable-verify", "-p", "no-such-pass"], 2),
])
def test_a_command_line_main_leaves_the_process_as_it_found_it(tmp_path, capsys, tool, args, status):
    """``tileorch``'s and ``tileorch-opt``'s mains called in a process (the unit tests, the in-process fuzzer, a
    library user) leave nothing of :func:`_process_state` changed, and types built afterwards are verified (an op
    failing its verifier: printed with ``--disable-verify``; an ``i8`` attribute of 300: a located error with or
    without it, attributes being verified when built, as in mlir-opt)."""
    from pathlib import Path

    from tileorch.cli.main import main as tileorch_main
    from tileorch.tools.opt import main as opt_main

    (tmp_path / "bad.mlir").write_text(_BAD_ATTRIBUTE)
    (tmp_path / "bad_op.mlir").write_text(_BAD_OP)
    root = Path(__file__).resolve().parents[2]
    argv = [a.format(root=root, tmp=tmp_path) for a in args]
    before = _process_state()
    try:
        (tileorch_main if tool == "tileorch" else opt_main)(argv)
        code = 0
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    assert code == status, (out, err)
    assert _process_state() == before
    _zero_stride_view_is_rejected()
    if "--disable-verify" in argv and status == 0:
        assert "func.return" in out, out  # (the op that fails its verifier, printed)
    elif "bad.mlir" in argv[0] and status == 1:
        assert "bad.mlir:2:25: error: Integer value 300 is out of range for type i8" in out + err, (out, err)


def test_the_python_api_leaves_the_process_as_it_found_it(tmp_path):
    """``tileorch.compile`` to PTX (the driver, LLVM's code generation) leaves nothing of :func:`_process_state`
    changed, and a type built afterwards is verified."""
    from pathlib import Path

    import tileorch

    before = _process_state()
    kernel = tileorch.compile(Path(__file__).resolve().parents[2] / "examples" / "ws_stream_copy.mlir", None,
                              cache=False, ptxas=False)
    assert ".entry" in kernel.ptx
    assert _process_state() == before
    _zero_stride_view_is_rejected()


def test_a_driver_built_before_another_call_ran_still_verifies(tmp_path, monkeypatch, capsys):
    """A ``tileorch-opt`` driver built (without ``--disable-verify``) before another thread's ``--disable-verify``
    call started, and run while that call runs, verifies the types its pass builds (and so does that call: types
    are verified when built)."""
    import threading

    from xdsl.passes import ModulePass

    from tileorch import registry
    from tileorch.tools.opt import TileorchOptMain

    inside, done, seen = threading.Event(), threading.Event(), {}

    class BuildAndWait(ModulePass):
        name = "test-build-and-wait"

        def apply(self, ctx, op):
            try:
                T.TensorViewType(Float32Type(), [64], [0])
                seen[threading.current_thread().name] = "built"
            except VerifyException:
                seen[threading.current_thread().name] = "rejected"
            if threading.current_thread() is not threading.main_thread():
                inside.set()
                done.wait(30)

    real = registry.pass_factories
    monkeypatch.setattr(registry, "pass_factories", lambda: {**real(), BuildAndWait.name: lambda: BuildAndWait})
    src = tmp_path / "k.mlir"
    src.write_text(_MODULE)
    verifying = TileorchOptMain(args=[str(src), "-p", BuildAndWait.name])
    worker = threading.Thread(target=lambda: _opt(tmp_path, "-p", BuildAndWait.name, "--disable-verify"),
                              name="unverified")
    worker.start()
    try:
        assert inside.wait(30), capsys.readouterr()
        verifying.run()
    finally:
        done.set()
        worker.join(30)
    assert seen == {"unverified": "rejected", threading.main_thread().name: "rejected"}, capsys.readouterr()
