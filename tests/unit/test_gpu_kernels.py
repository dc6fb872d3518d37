"""The GPU conformance and benchmark kernels compile on the CPU (tileorch -> PTX -> ptxas), and
the lowering bugs the GPU runs exposed stay fixed (checked on the PTX, so CI needs no GPU)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "gpu"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from tileorch.cli.run import compile_mlir  # noqa: E402

SAMPLE = ["pipe_s3_p2_2warp_ws_tx", "pipe_s1_p1_1warpgroup_coop_arrive", "cluster_1x2_s2_g2x1w_sync",
          "seqbar_warpgroup", "named_2w", "bulk_copy", "walk_streamk_c2x1_along_n", "mods_c2x1_p2", "fixup_wg2"]


def _ptxas(ptx: str, tmp_path: Path) -> None:
    if shutil.which("ptxas") is None:
        return
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    proc = subprocess.run(["ptxas", "-arch=sm_90a", str(src), "-o", str(tmp_path / "k.cubin")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("name", SAMPLE)
def test_conformance_kernel_compiles(name, tmp_path):
    from conformance import all_sources

    src = all_sources()[name]
    ptx = compile_mlir(src.mlir, f"{name}.mlir")
    assert f".entry {name}(" in ptx
    _ptxas(ptx, tmp_path)


def test_stream_kernel_compiles_with_bulk_copies(tmp_path):
    from stream_kernel import compile_stream_kernel

    info = compile_stream_kernel(4, 16384, 1)
    ptx = info["ptx"]
    assert "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" in ptx
    assert "ld.shared.v4" in ptx and "st.global.v4" in ptx
    _ptxas(ptx, tmp_path)


ACQUIRE_POLL = re.compile(r"ld(\.global)?\.acquire\.gpu|atom\.global\.add\.u32\s+%r\d+, \[%rd\d+\], 0;")


def test_generic_barrier_waits_spin_in_ptx():
    """Found on the GPU (gbar_* turnstile and grid barrier wrong): the leader's acquire-load spin
    had been dead-code-eliminated (an ``llvm.load ... acquire`` reported only a read effect)."""
    from kernels_barriers import gbar_kernel

    name, text, _ = gbar_kernel("syncthreads")
    ptx = compile_mlir(text, f"{name}.mlir")
    assert len(ACQUIRE_POLL.findall(ptx)) == 2  # wait_eq and wait_less_than


def test_fixup_waits_spin_in_ptx():
    """The fix-up waits poll the lock (the same dead-spin hazard as the generic barrier's)."""
    from kernels_fixup import fixup_kernel

    name, text = fixup_kernel(1)
    assert ACQUIRE_POLL.search(compile_mlir(text, f"{name}.mlir"))


def test_fixup_increment_releases_in_ptx():
    """Found on the GPU (fixup_wg1_256x1024x8192x1_stream_k1_sms24_*: 508 of 8192 elements wrong):
    fixup_increment's `atomicrmw add ... release` reached PTX as a relaxed `atom.global.add.u32`
    (LLVM 22 NVPTX drops the ordering of RMW atomics); CUTLASS's `fence.acq_rel.gpu` must precede it."""
    from kernels_fixup import fixup_kernel

    name, text = fixup_kernel(1)
    lines = [l.strip() for l in compile_mlir(text, f"{name}.mlir").splitlines()]
    # the lock increments (integer adds); relaxed f32 adds of the partials are data, not flags
    adds = [i for i, l in enumerate(lines)
            if l.startswith("atom.") and re.search(r"\.add\.[us]32", l) and not l.endswith(", 0;")]
    assert adds
    for i in adds:
        assert ".release" in lines[i] or any(l.startswith("fence.acq_rel.gpu") for l in lines[max(0, i - 8):i])


REMOTE_ARRIVE = "mbarrier.arrive.shared::cluster"
GROUP_SYNC = re.compile(r"^\s*(bar\.sync\s+(\d+), (\d+)|bar\.warp\.sync\s+-1);", re.M)


@pytest.mark.parametrize("name, syncs", [
    # two groups of 4 warps (threads 128-255, 256-383): bar.sync on ids 8 and 9 (the first two
    # unreserved ids, consumer order) over 128 threads; one-warp groups: bar.warp.sync -1
    ("cluster_1x2_s4_g2x4w", {"bar.sync 8, 128", "bar.sync 9, 128"}),
    ("cluster_2x1_s2_g2x1w", {"bar.warp.sync -1"}),
])
def test_cluster_release_syncs_the_group_before_arriving(name, syncs):
    """Found on the GPU (cluster_1x2_s4_g2x4w_it43: 64-312 of 88128 words wrong in 3 of 4 runs):
    the cluster consumer_release arrives from a few threads per group on behalf of all of them, so
    the group must be synchronised first; every remote arrive follows a group sync (since the
    previous arrive), and those are the only group syncs of the kernel."""
    from conformance import all_sources

    ptx = compile_mlir(all_sources()[name].mlir, f"{name}.mlir")
    segments = ptx.split(REMOTE_ARRIVE)
    assert len(segments) > 1
    for before in segments[:-1]:
        assert GROUP_SYNC.search(before), "a remote arrive with no group sync before it"
    found = {" ".join(m.group(1).replace(",", "").split()) for m in GROUP_SYNC.finditer(ptx)}
    assert found == {s.replace(",", "") for s in syncs}


@pytest.mark.parametrize("name, hand, lowered", [
    # hand-written group syncs 8, 9 (8 + group); the pipeline is pinned at base 8 + groups = 10,
    # so the lowering's release syncs of the two 4-warp groups are 10, 11
    ("cluster_2x1_s4_g2x4w_sync", {8, 9}, {10, 11}),
    # one 4-warp group: hand-written 8, lowering 9
    ("cluster_1x2_s2_g1x4w_sync", {8}, {9}),
    # one-warp groups: the lowering syncs with bar.warp.sync and claims no id
    ("cluster_1x2_s2_g2x1w_sync", {8, 9}, set()),
])
def test_cluster_group_sync_ids_do_not_alias_the_pipelines(name, hand, lowered):
    """The ``_sync`` cluster kernels' hand-written group syncs and the lowering's release syncs use
    disjoint named-barrier ids (the allocator does not see hand-written ``cutlass.named_barrier``
    ids, so the kernel pins ``barrier_id_base`` past them)."""
    from conformance import all_sources

    ptx = compile_mlir(all_sources()[name].mlir, f"{name}.mlir")
    ids = {int(m.group(2)) for m in GROUP_SYNC.finditer(ptx) if m.group(2) is not None}
    assert ids == hand | lowered and not hand & lowered


def test_release_rmw_ordering_is_dropped_by_llvm_nvptx():
    """Why the fence is needed: the same `release` atomicrmw the fix-up lowering emits comes out
    of LLVM 22's NVPTX backend as a plain relaxed `atom` (an acquire load keeps `ld.acquire`)."""
    text = """
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @rel(%p: !llvm.ptr<1>, %v: i32) attributes {nvvm.kernel} {
    %r = llvm.atomicrmw add %p, %v syncscope("device") release : !llvm.ptr<1>, i32
    func.return
  }
}
"""
    ptx = compile_mlir(text, "rel.mlir")
    assert "atom.global.add.u32" in ptx and ".release" not in ptx and "fence" not in ptx


SPIN_IN_IF = """
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @spin_if(%p: !llvm.ptr<1>, %c: i1) attributes {nvvm.kernel} {
    %c0 = arith.constant 0 : i32
    scf.if %c {
      scf.while () : () -> () {
        %v = llvm.load %p atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
        %z = arith.cmpi eq, %v, %c0 : i32
        scf.condition(%z)
      } do {
        %ns = arith.constant 20 : i32
        nvvm.nanosleep %ns
        scf.yield
      }
    }
    func.return
  }
}
"""


def test_while_nested_in_if_compiles():
    """Found with the gbar kernels: compile_module used to verify after convert-scf-while-to-cf,
    while an scf.while nested in scf.if/scf.for had left a multi-block region behind."""
    assert "ld.acquire.gpu" in compile_mlir(SPIN_IN_IF, "spin_if.mlir")


def test_debug_timeout_pipeline_traps_with_a_message():
    """``compile_mlir(..., debug_timeout=N)``: every pipeline wait polls at most N times, then
    prints its barrier (vprintf) and traps (tests/gpu/test_debug_timeout_gpu.py runs it)."""
    from kernels_pipeline import PipelineConfig, pipeline_kernel

    ptx = compile_mlir(pipeline_kernel(PipelineConfig(2, 1, "warp", 1, "ws", "tx")), "p.mlir", debug_timeout=64)
    assert "trap;" in ptx and "vprintf" in ptx
