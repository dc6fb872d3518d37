"""CUTLASS-dialect inputs sweep 34 found still accepted (session 42): each is refused at the offending op's line with
a non-zero exit and no traceback, and the valid form stays accepted.

* the SM100 Stream-K cluster fix-up's ``smem(...)`` buffer smaller than the CTA's partial tile: ``tileorch compile``
  refused it since sweep 34, ``tileorch check`` proved it (:mod:`tileorch.analysis.fixup_buffer`, one rule for both);
* the 2-CTA tcgen05 example's MMA barrier initialised for one CTA (``cta_group = 1``) while a ``cta_group::2``
  commit arrives on it, and the commit's multicast mask naming CTA 0 only while both CTAs wait on the barrier
  (``check_commit_barriers`` of convert-blackwell-cluster-emitters), the kernel's ``nvvm.cluster_dim`` made 4 (legal:
  the kernel's value takes precedence, but the constant mask then misses CTAs 2 and 3), and the dealloc on the pair
  leader's branch only (``check_frees_on_every_path``): all compiled."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")

from cutlass_sweep_checks import located, run_cli, write_input  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
STREAMK = (EXAMPLES / "streamk_sm100a.mlir").read_text()
TCGEN05 = (EXAMPLES / "tcgen05_sm100a.mlir").read_text()

TCGEN05_EDITS = {
    # name: (text replaced, its replacement, words of the error, text of the line it names)
    "the_mma_barrier_initialised_for_one_cta": (
        "cute_nvgpu.arch.mbarrier_init %mma_bar {cta_group = 2", "cute_nvgpu.arch.mbarrier_init %mma_bar {cta_group = 1",
        "this mbarrier is initialised for one CTA (cta_group = 1", "cute_nvgpu.arch.mbarrier_init %mma_bar"),
    "the_commit_mask_names_cta_0_only": (
        "%pair = arith.constant 3 : i16", "%pair = arith.constant 1 : i16",
        "CTA 1 would wait forever", "nvvm.tcgen05.commit %mma_bar"),
    # nvvm.cluster_dim takes precedence over the module's cluster_shape (legal: FileCheck commit_barriers.mlir), but
    # this kernel's constant mask 0b11 is written for a 2-CTA cluster: the pair of CTAs 2 and 3 never gets its arrival
    "a_4_cta_kernel_cluster_with_the_2_cta_mask": (
        "nvvm.cluster_dim = array<i32: 2, 1, 1>", "nvvm.cluster_dim = array<i32: 4, 1, 1>",
        "CTA 2, 3 would wait forever", "nvvm.tcgen05.commit %mma_bar"),
    # the dealloc moved under the pair leader's test: warp 0 of the peer CTA allocated and never frees
    "the_dealloc_on_the_leaders_branch_only": (
        "    scf.if %warp0 {\n      nvvm.tcgen05.dealloc", "    scf.if %leader {\n      nvvm.tcgen05.dealloc",
        "tensor memory allocated here is not freed on every path", "nvvm.tcgen05.alloc %slot"),
}


@pytest.mark.parametrize("name", sorted(TCGEN05_EDITS))
def test_compile_refuses_a_broken_2cta_kernel_at_its_line(name, tmp_path, capsys):
    import os

    old, new, words, line_text = TCGEN05_EDITS[name]
    text = TCGEN05.replace(old, new)
    assert text != TCGEN05
    path = write_input(tmp_path, text)
    code, said = run_cli(["compile", str(path), "--arch", "sm_100a", "--no-ptxas", "--no-cache", "-o", os.devnull],
                         capsys)
    line, message = located(path, said, text)
    assert code != 0 and words in message and line_text in line, (line, said)
    assert "Traceback" not in said and "internal error" not in said, said


def test_check_refuses_a_cluster_buffer_smaller_than_the_partial_tile(tmp_path, capsys):
    text = STREAMK.replace("!llvm.array<4096 x i8>", "!llvm.array<4064 x i8>")
    assert text != STREAMK
    path = write_input(tmp_path, text)
    code, said = run_cli(["check", str(path)], capsys)
    line, message = located(path, said, text)
    # 128 threads x vector<8xf32> = 128 * 8 * 4 bytes (the example's own comment: "128 threads x 8 f32")
    assert code != 0 and "the smem(...) buffer holds 4064 bytes, but this CTA's partial tile is 4096 bytes" in message
    assert "%fixed = cutlass.tile_scheduler.fixup" in line and "Traceback" not in said, said


def test_check_and_compile_agree_on_a_buffer_of_exactly_the_partial_tile(tmp_path, capsys):
    """The example's buffer is exactly 128 x 8 x 4 bytes: proved (test_user_sweep34_cutlass checks the unedited file);
    a larger buffer stays accepted by both commands."""
    text = STREAMK.replace("!llvm.array<4096 x i8>", "!llvm.array<8192 x i8>")
    path = write_input(tmp_path, text)
    code, said = run_cli(["check", str(path)], capsys)
    assert code == 0 and "OK: all properties hold" in said, said



def _types():
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import VectorType, f16, f32, i64

    # (accumulator type, bytes of one thread's partial)
    return [(f32, 4), (VectorType(f32, [8]), 32), (VectorType(f16, [4]), 8), (VectorType(i64, [2]), 16),
            (llvm.LLVMStructType.from_type_list([f32, f32]), 8)]


@pytest.mark.parametrize("groups", [1, 2, 3])
def test_partial_tile_bytes_counts_128_threads_of_each_warp_group(groups):
    """groups * 128 threads * one thread's bytes, written out per type (not taken from the lowering)."""
    from tileorch.analysis.fixup_buffer import partial_tile_bytes

    for typ, per_thread in _types():
        assert partial_tile_bytes(typ, groups) == groups * 128 * per_thread, typ


def test_partial_tile_bytes_is_none_for_what_the_fixup_refuses():
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import VectorType, f16, f32, i64

    for typ in (VectorType(f16, [3]), VectorType(f32, [2, 2]), llvm.LLVMStructType.from_type_list([f32, i64])):
        assert partial_tile_bytes_of(typ) is None, typ


def partial_tile_bytes_of(typ):
    from tileorch.analysis.fixup_buffer import partial_tile_bytes

    return partial_tile_bytes(typ, 1)
