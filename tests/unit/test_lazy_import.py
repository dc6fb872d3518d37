"""``tileorch.lazy_import``: a module imported on first attribute read; the SIMT route of a
compile does not import the TileAS tier's dialect, the mma.sync payload ops nor xDSL's math
dialect nor the print lowering nor the tile-program front door (a fresh process compiling an exp), a program with a math op (floor) imports the math
dialect and compiles it; ``convert-blackwell-cluster-emitters`` on a module without Blackwell
ops does not import their dialects (cute_nvgpu, nvvm.tcgen05); ``import tileorch`` imports no compiler and no heavy
library (xDSL, llvmlite, torch, numpy, sympy, matplotlib, hypothesis, iree); a cache hit in a new
process imports neither the compiler nor ``dataclasses``/``pathlib``/``hashlib``; a compile of
cuTile bytecode defines the cuda_tile op classes (and nvvm special registers) it uses, not all; a GEMM
through the TileAS tier does not import the chained-dots lowering, and its compile does not import the SIMT
lowering (the package `tileaa_to_simt` imports nothing itself)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from tileorch.lazy_import import lazy_module


def test_lazy_module_imports_on_first_read_and_sees_patches(monkeypatch):
    import json

    lazy = lazy_module("json")
    assert "not" not in repr(lazy) and "imported" not in repr(lazy)
    assert lazy.dumps([1]) == "[1]"
    assert "(imported)" in repr(lazy)
    monkeypatch.setattr(json, "dumps", lambda x: "patched")
    assert lazy.dumps([1]) == "patched"


PROGRAM = """cuda_tile.module @m {
  entry @expk(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %n: tile<i32>) {
    %tok = make_token : token
    %tvx = make_tensor_view %x, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %tvy = make_tensor_view %y, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %px = make_partition_view %tvx : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %py = make_partition_view %tvy : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %t, %t1 = load_view_tko weak %px[%bx] token = %tok : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %e = exp %t : tile<128xf32>
    %t3 = store_view_tko weak %e, %py[%bx] : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  }
}
"""


def test_simt_compile_does_not_import_the_tier_dialect_mma_payload_print_lowering_or_cuda_runtime(tmp_path):
    src = tmp_path / "expk.mlir"
    src.write_text(PROGRAM)
    code = textwrap.dedent(f"""
        import sys
        from tileorch.api import compile
        kernel = compile({str(src)!r}, ptxas=False, cache=False)
        assert "ex2.approx" in kernel.ptx, kernel.ptx[:200]
        print(sorted(m for m in sys.modules if m.endswith(("nv_tileas_tile", "nvvm_payload", "xdsl.dialects.math",
                                                           ".prints", ".print_plan", ".print_format"))
                     or m.startswith("tileorch.runtime") or m in ("hashlib", "tileorch.frontend.tile")))
        # (no CUDA runtime; no OpenSSL hashlib; no print lowering for a kernel without prints; not the Python
        # tile-program front door)
        # hashlib: PTX entries from backend.ptx_names, the backend memo's hashlib only when the memo is on)
        floor = {str(src.with_name("floork.mlir"))!r}
        with open(floor, "w") as f:
            f.write(open({str(src)!r}).read().replace("%e = exp %t", "%e = floor %t"))
        kernel = compile(floor, ptxas=False, cache=False)
        assert "cvt.rmi.f32.f32" in kernel.ptx, kernel.ptx
        print("xdsl.dialects.math" in sys.modules)
    """)
    env = {k: v for k, v in os.environ.items() if k != "TILEORCH_BACKEND_MEMO"}  # a user's compile: no test memo
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-2:] == ["[]", "True"], proc.stdout + proc.stderr


HEAVY = ("xdsl", "llvmlite", "torch", "numpy", "sympy", "matplotlib", "hypothesis", "iree", "cuda")
"""Top-level packages ``import tileorch`` must not import (a cache hit in a new process pays for
what the import loads)."""


def test_import_tileorch_imports_no_compiler_and_blackwell_emitters_only_for_blackwell_ops():
    code = textwrap.dedent(f"""
        import sys
        import tileorch
        print(sorted({{m.split(".")[0] for m in sys.modules}} & set({HEAVY!r})))
        from xdsl.dialects import arith
        from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32
        from tileorch.registry import make_context
        from tileorch.transforms.blackwell_cluster_emitters import ConvertBlackwellClusterEmitters
        module = ModuleOp([arith.ConstantOp(IntegerAttr(1, i32))])  # an sm_90a module: no Blackwell op
        ConvertBlackwellClusterEmitters().apply(make_context(), module)
        print(sorted(m for m in sys.modules if m.endswith(("cute_nvgpu", "nvvm_tcgen05"))))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-2:] == ["[]", "[]"], proc.stdout + proc.stderr


RELAUNCH_FORBIDDEN = ("dataclasses", "inspect", "pathlib", "hashlib", "tempfile", "xdsl", "llvmlite",
                      "tileorch.backend.ptx", "tileorch.dataclass_code", "tileorch.gc_deferral", "tileorch.driver",
                      "re", "enum", "json", "contextlib", "functools", "collections", "importlib.util", "warnings")
"""What a cache hit in a new process must not import (issue 22: a relaunch under 100 ms; each of
these is milliseconds of a relaunch's import; ``re``/``enum``/``json`` (the record is read by
``_json``'s scanner), ``contextlib``/``functools``/``collections`` (the timing scopes are classes)
and ``importlib.util``/``warnings`` (session 32: 59 -> 23 M instructions of a relaunch beyond
``python -c pass``, ``benchmarks/relaunch_instructions.py``))."""


def test_a_cache_hit_in_a_new_process_imports_almost_nothing(tmp_path):
    """``tileorch.compile`` of a stored program in a fresh process reads the entry without the
    compiler, ``dataclasses``/``inspect``, ``pathlib`` or OpenSSL's ``hashlib`` (the entry is
    stored here by hand under the key the call computes: no compile is needed to test it)."""
    code = textwrap.dedent(f"""
        import os, sys
        os.environ["TILEORCH_CACHE_DIR"] = {str(tmp_path / "cache")!r}
        os.environ.pop("TILEORCH_CACHE", None)
        from tileorch import api
        from tileorch.backend.target_versions import DEFAULT_PTX_VERSION
        text = "module {{}}"
        key = api.cache_key(text, "sm_90a", DEFAULT_PTX_VERSION, False, "", None)
        if sys.argv[1] == "store":
            api._store(api.Kernel(".version 8.6\\n.visible .entry k()\\n{{ ret; }}\\n", b"", "sm_90a", ["k"], key=key))
        else:
            k = api.compile(text, ptxas=False)
            assert k.from_cache and k.entries == ["k"] and k.key == key, k
            print(sorted(m for m in {RELAUNCH_FORBIDDEN!r} if m in sys.modules))
    """)
    subprocess.run([sys.executable, "-c", code, "store"], check=True, timeout=120)
    proc = subprocess.run([sys.executable, "-c", code, "hit"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr


def test_the_caches_json_reader_is_json_loads():
    """``cache.loads`` (the record of a relaunch's hit, read without the ``json`` package) gives what
    ``json.loads`` gives, and raises its ``ValueError`` where it raises."""
    import json

    import pytest

    from tileorch import cache

    record = {"kind": "kernel", "entries": ["k", "k2"], "remarks": ["remark: \u00e9 \"q\" \\ \n"], "n": -12,
              "f": 2.5e-3, "t": True, "z": None, "d": {"kernel.ptx": "ab" * 32}, "nested": [[], {}, [1, [2]]]}
    for text in (json.dumps(record), json.dumps(record, indent=1) + "\n", " [1, 2] ", '"x"', "3", "NaN",
                 json.dumps(record).encode(), "\ufeff" + json.dumps(record)):
        try:
            expected = json.loads(text)
        except ValueError as exc:
            with pytest.raises(type(exc)):
                cache.loads(text)
            continue
        got = cache.loads(text)
        assert got == expected or (got != got and expected != expected), text  # (NaN != NaN)
    for bad in ("", "{", '{"a": 1} x', "[1,]", b"\xff", '{"a": 1}{}'):
        with pytest.raises(ValueError):
            json.loads(bad)
        with pytest.raises(ValueError):
            cache.loads(bad)


def test_path_detection_is_the_regular_expressions():
    """``api._looks_like_path`` (no ``re`` on a relaunch's path) decides as its regular expression
    ``[\\w.~/\\\\:+-]+`` with a ``/`` or a ``.`` did, for any one-line text of no existing file."""
    import re

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from tileorch import api

    def by_re(text: str) -> bool:
        t = text.strip()
        return (t.lower().endswith(api.SOURCE_SUFFIXES) or os.path.exists(text)
                or (re.fullmatch(r"[\w.~/\\:+-]+", t) is not None and ("/" in t or "." in t.lstrip("."))))

    alphabet = st.sampled_from(list("aZ09_.~/\\:+-  \t!@#$%^&*()[]{}<>,;'\"=|`?") + ["\u00e9", "\u0663", "\u00b2",
                                                                                      "\u2167", "\u0301", "\u4e00"])

    @settings(max_examples=400, deadline=None)
    @given(st.lists(alphabet, max_size=12).map("".join))
    def check(text):
        text = "/nonexistent-s32/" + text if text.startswith("/") else text
        assert api._looks_like_path(text) == by_re(text), repr(text)

    check()
    for text in ("k.txt", "kernels/k.mlir", "module {}", "", "  ", ".hidden", "a\u0301b/c", "x\u00b2.y", "a-b"):
        assert api._looks_like_path(text) == by_re(text), repr(text)


def test_the_caches_sha256_is_hashlibs():
    import hashlib

    from tileorch import cache

    for data in (b"", b"abc", bytes(range(256)) * 1000):
        assert cache.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()


def test_cuda_tile_op_classes_are_defined_for_the_ops_a_program_has(tmp_path):
    """Compiling cuTile bytecode in a fresh process defines the cuda_tile op classes of the ops
    the program has (the bytecode reader asks by op name; convert-cudatile-to-tileaa and its
    warnings dispatch by op name) and the 12 structural ones the dialect's own code names, not
    all 105; of nvvm's 40 special registers, those the SIMT kernel reads.  The textual parser's
    dialect (``CudaTile``, ``nvvm.OPS``) still has every op."""
    from tileorch.diagnostics import parse_module
    from tileorch.frontend.cuda_tile_bytecode_writer import write_bytecode
    from tileorch.registry import make_context

    path = tmp_path / "expk.tileirbc"
    path.write_bytes(write_bytecode(parse_module(make_context(), PROGRAM, "expk.mlir")))
    code = textwrap.dedent(f"""
        import tileorch
        from tileorch.dialects import nvvm
        from tileorch.dialects.cuda_tile import ops as ct
        kernel = tileorch.compile({str(path)!r}, None, cache=False, ptxas=False, isolate=True)
        assert "ex2.approx" in kernel.ptx, kernel.ptx[:200]
        print(" ".join(sorted(ct.defined_ops())))
        print(len(nvvm.SPECIAL_REGISTERS.defined()))
        from tileorch.dialects.cuda_tile import CudaTile
        print(len(list(CudaTile.operations)), len(ct.defined_ops()), len(nvvm.OPS) - len(nvvm.SPECIAL_REGISTERS.defined()))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    defined, registers, whole = proc.stdout.strip().splitlines()[-3:]
    structural = {"ModuleOp", "EntryOp", "TestFuncOp", "GlobalOp", "ReturnOp", "YieldOp", "ContinueOp", "ForOp",
                  "LoopOp", "IfOp", "ReduceOp", "ScanOp"}
    program = {"MakeTokenOp", "MakeTensorViewOp", "MakePartitionViewOp", "GetTileBlockIdOp", "LoadViewTkoOp",
               "ExpOp", "StoreViewTkoOp"}
    assert structural | program <= set(defined.split()) <= structural | program | {"ConstantOp"}, defined
    assert 1 <= int(registers) <= 8, registers
    ops, all_defined, other_nvvm = map(int, whole.split())
    assert ops == all_defined == 105 and other_nvvm > 30, whole


def test_cuda_tile_op_names_and_classes_agree():
    """``ops.op_name``/``op_class`` (the lazy definitions' index) match every class's ``name``."""
    from tileorch.dialects.cuda_tile import OPS
    from tileorch.dialects.cuda_tile import ops as ct

    assert len(OPS) == len(ct.OP_NAMES) == 105
    for cls in OPS:
        assert ct.op_name(cls.__name__) == cls.name and ct.op_class(cls.name) is cls is getattr(ct, cls.__name__)


def test_a_gemm_through_the_tier_does_not_import_the_chained_lowering_nor_the_bytecode_reader():
    """``convert-nv-tileas-to-cutlass`` asks :mod:`~tileorch.transforms.tileas.chained_detect`
    whether a dot kernel chains; the chained-dots lowering (``chained_dots``, ~4,000 lines, and the
    modules only it uses) is imported for a kernel that does, not for a GEMM (``tileorch gemm``'s
    tier, no backend); nor is the cuTile bytecode reader, which the driver's frontend imports when
    a program is read."""
    code = textwrap.dedent("""
        import sys
        from tileorch.driver import compile_module  # noqa: F401  (compile_gemm's first import)
        from tileorch.launchers.gemm import default_config
        from tileorch.launchers.gemm_program import lower_gemm
        module = lower_gemm(default_config(256, 256, 256, "bf16", "bf16", "k", "auto", 132))
        print(sorted(m for m in sys.modules if m.startswith(("tileorch.transforms.tileas.", "tileorch.frontend."))
                     and m.rsplit(".", 1)[1] in ("chained_dots", "q_registers", "row_division", "stagger_consumers",
                                                 "cuda_tile_bytecode")))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", proc.stdout


def test_importing_the_cutile_launcher_asks_no_signatures():
    """``import tileorch.cutile`` (a fresh process's first launch imports it) makes no ``inspect.signature``
    call: each of its dataclasses has a docstring of its own, which ``dataclasses`` would otherwise write from the
    signature (issue 22: the relaunch's import)."""
    code = textwrap.dedent("""
        import inspect
        asked = []
        signature = inspect.signature
        inspect.signature = lambda obj, *a, **k: asked.append(getattr(obj, "__qualname__", obj)) or signature(obj, *a, **k)
        import tileorch.cutile
        print(asked)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr


def test_simt_compile_without_f64_trig_does_not_import_its_constant_tables(tmp_path):
    """A SIMT compile of a program without an f64 sin/cos/tan/atan2 (cuTile's softmax bytecode) imports neither
    ``tileaa_to_simt.f64_trig`` nor its constant tables (``f64_constants``: ``fractions``, ``decimal``); an f64
    ``sin`` imports them when it is lowered and compiles (issue 22: ~2 ms of a cold SIMT compile)."""
    softmax = os.path.join(os.path.dirname(__file__), "cutile_bytecode", "softmax.tileirbc")
    sin64 = tmp_path / "sin64.mlir"
    sin64.write_text(PROGRAM.replace("f32", "f64").replace("%e = exp %t", "%e = sin %t"))
    code = textwrap.dedent(f"""
        import sys
        import tileorch
        MODULES = ("tileorch.transforms.tileaa_to_simt.f64_trig", "tileorch.transforms.tileaa_to_simt.f64_constants",
                   "fractions", "decimal")
        kernel = tileorch.compile(open({softmax!r}, "rb").read(), None, cache=False, ptxas=False, isolate=True)
        assert "SIMT" in " ".join(kernel.remarks) and ".entry" in kernel.ptx, kernel.remarks
        print(sorted(m for m in MODULES if m in sys.modules))
        kernel = tileorch.compile({str(sin64)!r}, None, cache=False, ptxas=False, isolate=True)
        assert ".f64" in kernel.ptx, kernel.ptx[:300]
        print(sorted(m for m in MODULES if m in sys.modules))
    """)
    env = {k: v for k, v in os.environ.items() if k != "TILEORCH_BACKEND_MEMO"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-2:] == [
        "[]", "['decimal', 'fractions', 'tileorch.transforms.tileaa_to_simt.f64_constants', "
              "'tileorch.transforms.tileaa_to_simt.f64_trig']"], proc.stdout


def test_a_gemm_compile_does_not_define_the_simt_lowering():
    """A GEMM through the TileAS tier and the backend's lowering (``tileorch gemm --compile``'s
    compile, to LLVM IR here; then ``examples/tile_gemm.mlir`` through the driver's tile-program route) reads
    the SIMT package's ``emit`` (the tier's ``Emitter``) and ``mma`` (the driver asks it whether an f32 dot
    takes the tier) and not the SIMT lowering (``convert-nv-tileaa-to-simt``, ``tileaa_to_simt/convert.py``,
    nor the ~25 modules it imports): the package imports nothing itself (issue 22: defining them was ~4% of
    the instructions of a cold GEMM compile's tier import); a name of the lowering read from the package still
    finds it, and a submodule's name the submodule."""
    code = textwrap.dedent("""
        import sys
        from tileorch.driver import compile_module
        from tileorch.launchers.gemm import default_config
        from tileorch.launchers.gemm_program import lower_gemm
        module = lower_gemm(default_config(256, 256, 256, "bf16", "bf16", "k", "auto", 132))
        result = compile_module(module, emit="llvm", kind="gemm")
        assert "define " in result.llvm_ir and "wgmma" in result.llvm_ir, result.llvm_ir[:300]
        import tileorch  # a tile program's GEMM through the driver's route (as cuTile's GEMM bytecode takes)
        kernel = tileorch.compile(TILE_GEMM, None, cache=False, ptxas=False)
        assert "wgmma" in kernel.ptx and "TileAS tier" in " ".join(kernel.remarks), kernel.remarks
        import tileorch.transforms.tileaa_to_simt as simt
        print(sorted(m for m in sys.modules if m.startswith("tileorch.transforms.tileaa_to_simt.")))
        print("ConvertNvTileaaToSimt" in vars(simt))
        from tileorch.transforms.tileaa_to_simt import ELEMENTWISE, ConvertNvTileaaToSimt, f64_constants
        from tileorch.transforms.tileaa_to_simt.convert import ConvertNvTileaaToSimt as C
        print(C is ConvertNvTileaaToSimt is simt.ConvertNvTileaaToSimt,
              ELEMENTWISE is sys.modules["tileorch.transforms.tileaa_to_simt.convert"].ELEMENTWISE, f64_constants.__name__)
    """)
    tile_gemm = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "tile_gemm.mlir")
    code = f"TILE_GEMM = {os.path.abspath(tile_gemm)!r}\n" + code
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    lines = proc.stdout.strip().splitlines()
    assert lines[:2] == ["['tileorch.transforms.tileaa_to_simt.emit', 'tileorch.transforms.tileaa_to_simt.f64_math', "
                         "'tileorch.transforms.tileaa_to_simt.mma']", "False"], proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert lines[2:] == ["True True tileorch.transforms.tileaa_to_simt.f64_constants"], proc.stdout


def test_a_gemm_compile_defines_the_op_classes_it_builds_only():
    """A GEMM through the TileAS tier and the backend's lowering (``tileorch gemm --compile``'s compile, to LLVM IR
    here) makes the IRDL definitions of the op classes it builds and leaves the others' to their first use
    (:mod:`tileorch.dialects.lazy_ops`; issue 22: ~216 of the 388 classes the compile imports, 3.5% of the
    instructions of ``tileorch gemm --compile``):
    the tile IR's casts, concatenation and slices (``nv_tileaa.tile_ops``) and the llvm dialect's floating-point
    remainder among them."""
    code = textwrap.dedent("""
        from tileorch.driver import compile_module
        from tileorch.launchers.gemm import default_config
        from tileorch.launchers.gemm_program import lower_gemm
        module = lower_gemm(default_config(256, 256, 256, "bf16", "bf16", "k", "auto", 132))
        result = compile_module(module, emit="llvm", kind="gemm")
        assert "wgmma" in result.llvm_ir, result.llvm_ir[:300]
        from tileorch.dialects import lazy_ops
        from tileorch.dialects.nv_tileaa import tile_ops
        from tileorch.dialects.cutlass.pipeline import PipelineCreateOp
        from xdsl.dialects import llvm
        pending = lazy_ops.pending()
        print(len(pending) > 150, all(lazy_ops.pending(op) for op in tile_ops.TILE_OPS), lazy_ops.pending(llvm.FRemOp),
              lazy_ops.pending(PipelineCreateOp), lazy_ops.pending(llvm.ReturnOp))
        assert lazy_ops.define_all() == []
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True", "True", "False", "False"], proc.stdout
