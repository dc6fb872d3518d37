"""Programmatic dependent launch (``TILEORCH_PDL=1``, transforms/gdc_insertion.py, issue 20's per-launch cost):
the chained attention kernel compiled with ``griddepcontrol.wait`` before every global access on each path and
``griddepcontrol.launch_dependents`` at its entry, its program marked ``pdl`` (the launchers' cue for the launch
attribute), a located remark, the check failing where the wait is moved after the producer's first TMA load,
and the PTX emulator's run bit-identical to the kernel without PDL (the emulator runs one grid: the ops are
no-ops there).  The global-access classifier on its own.  Needs cuda-tile for the kernel's tests."""

from __future__ import annotations

import importlib.util

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
needs_cutile = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

CFG = (200, 64, 128, 128, False)  # two 128-row instances of one head, two key tiles each (the last one ragged)


@pytest.mark.parametrize("asm,found", [
    ("ld.global.nc.u32 $0, [$1];", "ld.global.nc.u32"),
    ("{\\0A.reg .pred p;\\0Asetp.ne.b32 p, $1, 0;\\0A@p st.global.b32 [$0], $1;\\0A}", "st.global.b32"),
    ("ld.u32 $0, [$1];", "ld.u32"),  # generic: may be global
    ("atom.add.u32 $0, [$1], 1;", "atom.add.u32"),
    ("red.global.add.u32 [$0], 1;", "red.global.add.u32"),
    ("cp.async.ca.shared.global [$0], [$1], 16;", "cp.async.ca.shared.global"),
    ("ld.shared.u32 $0, [$1];", None), ("st.shared.v2.f32 [$0], {$1, $2};", None),
    ("ld.param.u32 $0, [$1];", None), ("max.f32 $0, $1, $2;", None), ("fma.rn.f32 $0, $1, $2, $3;", None),
    ("mov.b64 $0, {$1, $2};", None), ("stmatrix.sync.aligned.m8n8.x4.shared.b16 [$0], {$1, $2, $3, $4};", None),
    ("wgmma.fence.sync.aligned;", None), ("shfl.sync.bfly.b32 $0, $1, 1, 31, -1;", None),
])
def test_inline_asm_global_access(asm, found):
    from tileorch.analysis.gdc_wait import _asm_access

    assert _asm_access(asm) == found


def _compile_with(monkeypatch, pdl: str, spy=None):
    from test_chained_emulated import _compile

    monkeypatch.setenv("TILEORCH_PDL", pdl)
    if spy is not None:
        import tileorch.backend.pipeline as pipeline

        real = pipeline.apply_pass

        def apply(ctx, module, p):
            real(ctx, module, p)
            spy(p, module)

        monkeypatch.setattr(pipeline, "apply_pass", apply)
    return _compile(*CFG, once=False)


@needs_cutile
def test_attention_with_pdl_is_checked_marked_and_bit_identical_emulated(monkeypatch):
    import numpy as np
    from test_chained_emulated import _compile, _emulate

    from tileorch.analysis.gdc_wait import is_wait, kernels, unwaited
    from tileorch.diagnostics import LocatedError
    from tileorch.transforms.gdc_insertion import VerifyGdcWait

    moved = []

    def move_the_producers_wait(p, module):
        """On a copy of the kernel after the insertion: the wait of the branch holding the first TMA load
        moved after that load; the check reports the load."""
        if p.name != "nvvm-auto-gdc-insertion":
            return
        (kernel,) = kernels(module)
        assert unwaited(kernel) == []
        copy = module.clone()
        load = next(o for o in copy.walk() if o.name == "nvvm.cp.async.bulk.tensor.shared.cluster.global")
        block, wait = load.parent_block(), None
        while wait is None:  # the wait in the load's block or the nearest enclosing one (before the loop)
            wait = next((o for o in block.ops if is_wait(o)), None)
            block = block.parent_op().parent_block() if wait is None else block
        wait.detach()
        load.parent_block().insert_op_after(wait, load)
        with pytest.raises(LocatedError, match="'nvvm.cp.async.bulk.tensor.shared.cluster.global' reached before "
                                               "griddepcontrol.wait on some path of kernel"):
            VerifyGdcWait().apply(None, copy)
        moved.append(load)

    on = _compile_with(monkeypatch, "1", move_the_producers_wait)
    assert moved, "the insertion pass did not run"
    monkeypatch.setenv("TILEORCH_PDL", "0")
    off = _compile(*CFG)  # (compiled once in a test run: test_one_tensormap_prefetch_per_map too)
    assert on.pdl and not off.pdl
    assert "griddepcontrol" not in off.ptx
    assert on.ptx.count("griddepcontrol.launch_dependents;") == 1
    body = on.ptx[on.ptx.index(".entry"):]
    assert body.index("griddepcontrol.launch_dependents;") < body.index("bar.sync")
    # each role waits after its setmaxnreg, before its first global access (TMA load; the epilogue's stores)
    assert body.index("setmaxnreg.dec") < body.index("griddepcontrol.wait;") < body.index("cp.async.bulk.tensor")
    first_store = body.index("st.global")
    inc = body.index("setmaxnreg.inc")
    assert inc < body.index("griddepcontrol.wait;", inc) < first_store
    assert any("compiled for programmatic dependent launch (TILEORCH_PDL=1)" in r and ": remark: " in r
               for r in on.remarks), on.remarks
    out_on, ref, errors = _emulate(on, *CFG, ctas_persistent=2)
    assert not errors, errors[:4]
    assert not np.isnan(out_on).any(), "unwritten outputs"
    np.testing.assert_allclose(out_on, ref, atol=2e-3, rtol=1e-2)
    out_off, _, errors = _emulate(off, *CFG, ctas_persistent=2)
    assert not errors, errors[:4]
    assert np.array_equal(out_on.view(np.uint32), out_off.view(np.uint32))


@needs_cutile
def test_one_tensormap_prefetch_per_map(monkeypatch):
    """Each tensor map (a kernel parameter) prefetched once, in parameter space (LLVM 22 turned the generic
    prefetch of a byval parameter into two: ``prefetch.param.tensormap`` and ``prefetch.tensormap``)."""
    from test_chained_emulated import _compile

    monkeypatch.setenv("TILEORCH_PDL", "0")
    p = _compile(*CFG)
    maps = len(p.chained["tmaps"])
    assert p.ptx.count("prefetch.param.tensormap") == maps == 3
    assert "prefetch.tensormap" not in p.ptx


def test_the_pipeline_runs_the_insertion_only_with_the_setting(monkeypatch):
    """``TILEORCH_PDL=1`` puts ``nvvm-auto-gdc-insertion`` right before the std lowering (the tier's and the SIMT
    path's pipelines); unset (the default) or ``0``: not at all."""
    from xdsl.dialects.builtin import ModuleOp

    from tileorch.backend.pipeline import PDL_PASS, STD_LOWERING, lowering_pipeline

    module = ModuleOp([])
    for simt in (False, True):
        monkeypatch.delenv("TILEORCH_PDL", raising=False)
        assert PDL_PASS not in lowering_pipeline(module, simt)
        monkeypatch.setenv("TILEORCH_PDL", "0")
        assert PDL_PASS not in lowering_pipeline(module, simt)
        monkeypatch.setenv("TILEORCH_PDL", "1")
        names = lowering_pipeline(module, simt)
        assert names[names.index(PDL_PASS) + 1] == STD_LOWERING[0]


def test_tileorch_gemm_kernel_carries_pdl_through_the_cache(monkeypatch, tmp_path):
    """``tileorch.gemm``'s compile (``compile_gemm``) says whether its cubin waits (``TILEORCH_PDL=1``), also when
    read back from the disk cache (the entry's record); PDL off: not (its own cache key: a codegen setting)."""
    from tileorch.backend import ptxas

    if not ptxas.ptxas_available():
        pytest.skip("no ptxas")
    from tileorch.kernels.gemm.config import GemmConfig
    from tileorch.launchers.gemm_host import compile_gemm

    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TILEORCH_CACHE", "1")
    cfg = GemmConfig(tile_n=128).check()
    monkeypatch.setenv("TILEORCH_PDL", "1")
    fresh = compile_gemm(cfg)
    again = compile_gemm(cfg)
    assert fresh.pdl and again.pdl and "cache" in again.seconds and again.cubin == fresh.cubin
    monkeypatch.setenv("TILEORCH_PDL", "0")
    off = compile_gemm(cfg)
    assert not off.pdl and "cache" not in off.seconds and off.cubin != fresh.cubin


def test_cutile_program_carries_pdl_through_the_disk_cache(monkeypatch, tmp_path):
    """Review (session 38): a cuTile program read back from the disk cache kept no ``pdl``, so a relaunch in a new
    process launched a waiting cubin without PDL.  The record now carries it (both ways)."""
    from types import SimpleNamespace

    from tileorch.launchers import cutile_programs as rc

    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TILEORCH_CACHE", "1")
    for pdl in (True, False):
        prog = SimpleNamespace(kind="chained", ptx="// ptx", cubin=b"\x7fELF", kernel="k", threads=384,
                               gemm_config=None, gemm_args=None, seconds=0.1, pdl=pdl)
        rc._write_cached(f"pdl-{pdl}", prog)
        back = rc._read_cached(f"pdl-{pdl}")
        assert back is not None and back.pdl is pdl


def test_api_kernel_launches_its_waiting_kernels_with_pdl(monkeypatch, tmp_path):
    """``tileorch.compile(...).launch`` (session 38 noticed: it never set the attribute, so a kernel compiled with
    the wait ran serialized): ``Kernel.pdl`` names the kernels compiled for PDL, also when read back from the disk
    cache, and ``launch`` marks exactly those for the launch attribute; ``TILEORCH_PDL=0``: none."""
    from types import SimpleNamespace

    import tileorch
    import tileorch.runtime
    from test_api import CUDA_TILE_COUNT

    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TILEORCH_PDL", "1")
    fresh = tileorch.compile(CUDA_TILE_COUNT, ptxas=False, cache=True)
    again = tileorch.compile(CUDA_TILE_COUNT, ptxas=False, cache=True)
    assert fresh.pdl == ["count"] and "griddepcontrol.wait" in fresh.ptx
    assert again.from_cache and again.pdl == ["count"]
    monkeypatch.setenv("TILEORCH_PDL", "0")
    off = tileorch.compile(CUDA_TILE_COUNT, ptxas=False, cache=True)
    assert off.pdl == [] and not off.from_cache and "griddepcontrol" not in off.ptx

    launched = []
    monkeypatch.setattr(tileorch.runtime, "launch", lambda kernel, *a, **k: launched.append(kernel.pdl))
    for compiled in (again, off):
        stub = SimpleNamespace(pdl=None)
        monkeypatch.setattr(compiled, "_module", SimpleNamespace(kernel=lambda name, stub=stub: stub))
        compiled.launch(1, 1, 1, 5)
    assert launched == [True, False]
