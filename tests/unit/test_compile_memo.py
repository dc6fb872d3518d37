"""``tileorch.testing.compile_memo``: ``lowered_program`` / ``lower_once`` give the record the
driver's ``compile_program`` gives (path, remarks, GEMM configuration) without running the back
end, and ``lower_once`` keeps it apart from ``compile_once``'s whole compiles.  Needs cuda-tile."""

from __future__ import annotations

import importlib.util

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")


def _bytecode(name: str) -> bytes:
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs3 import PROGRAMS

    return cutile_bytecode(PROGRAMS[name].kernel, PROGRAMS[name].spec)


def _no_back_end(monkeypatch) -> None:
    """Any back-end step now fails the test."""
    import tileorch.backend.compile as backend

    def refuse(*args, **kwargs):
        raise AssertionError("the back end ran")

    monkeypatch.setattr(backend, "compile_lowered", refuse)


@pytest.mark.parametrize("name", ["mm_tiled_view", "softmax_custom_reduce"])
def test_lowered_program_is_compile_programs_record_without_the_back_end(name, monkeypatch):
    from tileorch import driver
    from tileorch.driver import compile_program
    from tileorch.testing.compile_memo import lowered_program

    step = driver.compile_module
    full = compile_program(_bytecode(name), name, ptxas=False)
    assert full.ptx  # the back end ran there
    _no_back_end(monkeypatch)
    with pytest.raises(AssertionError, match="the back end ran"):
        compile_program(_bytecode(name), name, ptxas=False)
    low = lowered_program(_bytecode(name), name)
    assert (low.kind, low.kernel, low.threads, low.gemm_args) == (full.kind, full.kernel, full.threads, full.gemm_args)
    assert low.gemm_config == full.gemm_config and low.remarks == full.remarks
    assert low.ptx == "" and low.cubin is None
    assert driver.compile_module is step  # the driver's back-end step is its own again afterwards


def test_lower_once_is_kept_apart_from_compile_once(monkeypatch, tmp_path):
    from tileorch.testing import compile_memo

    monkeypatch.setenv(compile_memo.MEMO_ENV, str(tmp_path))
    monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
    data = _bytecode("mm_tiled_view")
    low = compile_memo.lower_once(data, "mm_tiled_view", arch="sm_90a")
    assert low.kind == "gemm" and low.ptx == ""
    assert len(list(tmp_path.glob("*.pickle"))) == 1
    # a whole compile of the same input is not answered by the lowering's entry
    full = compile_memo.compile_once(data, "mm_tiled_view", arch="sm_90a", ptxas=False)
    assert "wgmma.mma_async" in full.ptx
    assert len(list(tmp_path.glob("*.pickle"))) == 2
    # the second call reads the stored entry (this process's, then the directory's): no back end, no lowering
    _no_back_end(monkeypatch)
    import tileorch.driver as driver

    monkeypatch.setattr(driver, "lower_program", lambda *a, **k: pytest.fail("lowered again"))
    assert compile_memo.lower_once(data, "mm_tiled_view", arch="sm_90a").gemm_config == low.gemm_config
    monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
    assert compile_memo.lower_once(data, "mm_tiled_view", arch="sm_90a").remarks == low.remarks


def test_the_memo_key_is_the_compile_not_its_spelling():
    """Options left at ``compile_program``'s defaults and options given as those defaults are one
    compile (one key); another value, name or input is another."""
    from tileorch.testing.compile_memo import memo_key

    data = b"\x7fTileIR"
    same = [memo_key(data, "k", {"ptxas": False}),
            memo_key(data, "k", {"arch": "sm_90a", "ptxas": False}),
            memo_key(data, "k", {"ptxas": False, "arch": "sm_90a", "schedule": "persistent", "config": ""})]
    assert len(set(same)) == 1
    assert memo_key(data, "k", {}) == memo_key(data, "k", {"ptxas": True})
    others = [memo_key(data, "k", {"ptxas": True}), memo_key(data, "k", {"ptxas": False, "arch": "sm_100a"}),
              memo_key(data, "k", {"ptxas": False, "schedule": "simt"}), memo_key(data, "k2", {"ptxas": False}),
              memo_key(data + b"\0", "k", {"ptxas": False}),
              memo_key(data, "k", {"ptxas": False, "back end": "none"})]
    assert len(set(others + same[:1])) == len(others) + 1


def _kernel_text(module) -> str:
    from xdsl.dialects import func

    (fn,) = [op for op in module.walk() if isinstance(op, func.FuncOp) and "nvvm.kernel" in op.attributes]
    return str(fn)


def test_compile_once_seeing_lowered_shows_the_lowering_of_the_compile_it_stores(monkeypatch, tmp_path):
    """The compile that fills the memo shows the module ``lower_program`` makes of the input (the
    SIMT interpreter's input) before the back end runs on it; the program is the one
    ``compile_once`` reads back under the same key; a memo hit shows nothing."""
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing import compile_memo

    monkeypatch.setenv(compile_memo.MEMO_ENV, str(tmp_path))
    monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
    name = "softmax_custom_reduce"
    data = _bytecode(name)
    seen = []
    program, shown = compile_memo.compile_once_seeing_lowered(data, name, lambda m: seen.append(_kernel_text(m)),
                                                              arch="sm_90a", ptxas=False)
    assert shown and program.kind == "simt" and ".entry" in program.ptx  # the back end ran after
    ctx = make_context()
    kind, own = lower_program(load(data, name, ctx), ctx, "sm_90a", "persistent")
    assert kind == "simt" and seen == [_kernel_text(own)]  # the SIMT level, not the back end's LLVM dialect
    assert len(list(tmp_path.glob("*.pickle"))) == 2  # the compile and its lowering's record (lower_once's entry)
    _no_back_end(monkeypatch)
    import tileorch.driver as driver

    monkeypatch.setattr(driver, "lower_program", lambda *a, **k: pytest.fail("lowered again"))
    again = compile_memo.compile_once(data, name, arch="sm_90a", ptxas=False)
    assert (again.kind, again.ptx, again.remarks) == (program.kind, program.ptx, program.remarks)
    hit, shown = compile_memo.compile_once_seeing_lowered(data, name, lambda m: pytest.fail("shown again"),
                                                          arch="sm_90a", ptxas=False)
    assert not shown and hit.ptx == program.ptx


def test_compile_once_seeing_lowered_failures(monkeypatch, tmp_path):
    """``see``'s exception propagates; a back end that raises after ``see`` ran gives (None, True);
    nothing is stored either way, and the driver's back-end step is its own again."""
    import tileorch.backend.compile as backend
    from tileorch import driver
    from tileorch.testing import compile_memo

    monkeypatch.setenv(compile_memo.MEMO_ENV, str(tmp_path))
    monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
    step = driver.compile_module
    name = "softmax_custom_reduce"
    data = _bytecode(name)

    def wrong(module):
        raise AssertionError("the interpreter's result differs")

    with pytest.raises(AssertionError, match="differs"):
        compile_memo.compile_once_seeing_lowered(data, name, wrong, arch="sm_90a", ptxas=False)

    def broken(*args, **kwargs):
        raise backend.CompileError(["stand-in back-end error"])

    monkeypatch.setattr(backend, "compile_lowered", broken)
    shown = compile_memo.compile_once_seeing_lowered(data, name, lambda m: None, arch="sm_90a", ptxas=False)
    assert shown == (None, True)
    assert not list(tmp_path.glob("*.pickle")) and not compile_memo._PROGRAMS
    assert driver.compile_module is step


def test_compile_once_deriving_lowers_once_and_keeps_what_it_derived(monkeypatch, tmp_path):
    """A miss: one compile, ``derive`` on its lowering (the driver's ``lower_program`` once), both stored.  The
    next call (this process's memo, then only the directory's) neither lowers nor compiles.  A program compiled
    before without the derived value (``compile_once``) is lowered again once, without the back end."""
    import tileorch.driver as driver
    from tileorch.analysis.explore import without_ir
    from tileorch.analysis.extract import extract
    from tileorch.testing import compile_memo

    monkeypatch.setenv(compile_memo.MEMO_ENV, str(tmp_path))
    monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
    data, name = _bytecode("mm_tiled_view"), "mm_tiled_view"
    lowered, real = [], driver.lower_program

    def counting(*args, **kwargs):
        lowered.append(name)
        return real(*args, **kwargs)

    def pipelines(module):
        return [proto.pipelines for proto in without_ir(extract(module))]  # picklable: no IR references

    monkeypatch.setattr(driver, "lower_program", counting)
    program, derived = compile_memo.compile_once_deriving(data, name, pipelines, "pipes", ptxas=False)
    assert program.kind == "gemm" and "wgmma.mma_async" in program.ptx and lowered == [name]
    assert derived and all(ring and ring[0].stages >= 2 for ring in derived), derived
    assert len(list(tmp_path.glob("*.pickle"))) == 3  # the compile, its lowering's record and the derived value
    _no_back_end(monkeypatch)
    for memo in ({"kept": True}, {}):  # this process's memo, then the directory's
        if not memo:
            monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
        again = compile_memo.compile_once_deriving(data, name, pytest.fail, "pipes", ptxas=False)
        assert again[0].ptx == program.ptx and again[1] == derived and lowered == [name]
    # another tag over the stored compile: lowered once more, the back end not run (it now fails the test)
    other = compile_memo.compile_once_deriving(data, name, pipelines, "pipes again", ptxas=False)
    assert other[0].ptx == program.ptx and other[1] == derived and lowered == [name, name]


def test_lower_once_deriving_lowers_once_without_the_back_end(monkeypatch, tmp_path):
    """A miss: one lowering (the driver's ``lower_program``), no back end, ``derive`` on that lowering; what it
    derived is what ``compile_once_deriving`` derives from the whole compile's lowering.  The next call (this
    process's memo, then only the directory's) neither lowers nor derives."""
    import tileorch.driver as driver
    from tileorch.analysis.explore import without_ir
    from tileorch.analysis.extract import extract
    from tileorch.testing import compile_memo

    monkeypatch.setenv(compile_memo.MEMO_ENV, str(tmp_path))
    monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
    data, name = _bytecode("mm_tiled_view"), "mm_tiled_view"
    lowered, real = [], driver.lower_program

    def counting(*args, **kwargs):
        lowered.append(name)
        return real(*args, **kwargs)

    def pipelines(module):
        return [proto.pipelines for proto in without_ir(extract(module))]  # picklable: no IR references

    whole = compile_memo.compile_once_deriving(data, name, pipelines, "pipes", ptxas=False)
    monkeypatch.setattr(driver, "lower_program", counting)
    _no_back_end(monkeypatch)
    program, derived = compile_memo.lower_once_deriving(data, name, pipelines, "pipes")
    assert program.kind == whole[0].kind == "gemm" and program.ptx == "" and lowered == [name]
    assert derived == whole[1] and derived and all(ring and ring[0].stages >= 2 for ring in derived), derived
    for memo in ({"kept": True}, {}):  # this process's memo, then the directory's
        if not memo:
            monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
        again = compile_memo.lower_once_deriving(data, name, pytest.fail, "pipes")
        assert again[0].kind == "gemm" and again[1] == derived and lowered == [name]


def _record(program) -> dict:
    """A program's fields but the ones a lowering's record takes from the clock."""
    import dataclasses

    return {f.name: getattr(program, f.name) for f in dataclasses.fields(program)
            if f.name not in ("seconds", "timings", "tier_output")}


@pytest.mark.parametrize("name", ["mm_tiled_view", "softmax_custom_reduce"])
def test_a_compile_fills_lower_once_with_lowered_programs_record(name, monkeypatch, tmp_path):
    """``compile_once``'s compile stores ``lower_once``'s entry of the same input: the record ``lowered_program``
    makes (every field but the clock's; timings of the lowering only), so ``lower_once`` lowers nothing after it
    (this process's memo, then the directory's).  ``lower_once_compiled`` compiles first: one lowering for both."""
    import tileorch.driver as driver
    from tileorch.testing import compile_memo

    data = _bytecode(name)
    alone = compile_memo.lowered_program(data, name, arch="sm_90a")
    monkeypatch.setenv(compile_memo.MEMO_ENV, str(tmp_path))
    monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
    lowered, real = [], driver.lower_program

    def counting(*args, **kwargs):
        lowered.append(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(driver, "lower_program", counting)
    full = compile_memo.compile_once(data, name, arch="sm_90a", ptxas=False)
    assert full.ptx and lowered == [name]
    for memo in ({"kept": True}, {}):  # this process's memo, then the directory's
        if not memo:
            monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
        low = compile_memo.lower_once(data, name, arch="sm_90a")
        assert lowered == [name], "lowered again"
        assert _record(low) == _record(alone)
        assert low.ptx == "" and low.cubin is None and low.remarks == alone.remarks
        assert not any(k.startswith(("lower/", "llvm", "ptxas", "codegen", "translate")) for k in low.timings), \
            low.timings
    # the other order: lower_once_compiled compiles (one lowering), compile_once then reads the memo
    monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
    for stored in tmp_path.glob("*.pickle"):
        stored.unlink()
    lowered.clear()
    low = compile_memo.lower_once_compiled(data, name, arch="sm_90a")
    again = compile_memo.compile_once(data, name, arch="sm_90a", ptxas=False)
    assert lowered == [name] and _record(low) == _record(alone) and again.ptx == full.ptx


def test_a_compile_the_back_end_ran_twice_for_leaves_lower_once_its_own(monkeypatch, tmp_path):
    """Where the driver compiled the program again under another switch (a spill-aware retry: its back end ran
    twice), the program returned is not the first lowering's: ``lower_once``'s entry is not filled from it, and
    ``lower_once_compiled`` lowers the program alone (the record ``lowered_program`` makes)."""
    import tileorch.driver as driver
    from tileorch.testing import compile_memo

    name = "mm_tiled_view"
    data = _bytecode(name)
    alone = compile_memo.lowered_program(data, name, arch="sm_90a")
    monkeypatch.setenv(compile_memo.MEMO_ENV, str(tmp_path))
    monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
    real = driver._compile_program

    def twice(data, name, arch, schedule, ptxas, config, start, codegen=True, assembled=None):
        real(data, name, arch, schedule, ptxas, config, start, codegen, assembled)  # as a retry: a second compile
        return real(data, name, arch, schedule, ptxas, config, start, codegen, assembled)

    monkeypatch.setattr(driver, "_compile_program", twice)
    full = compile_memo.compile_once(data, name, arch="sm_90a", ptxas=False)
    assert full.ptx and len(list(tmp_path.glob("*.pickle"))) == 1  # the compile only
    low = compile_memo.lower_once_compiled(data, name, arch="sm_90a")
    assert _record(low) == _record(alone) and len(list(tmp_path.glob("*.pickle"))) == 2
