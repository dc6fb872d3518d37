"""Fourth user sweep (``tileorch.testing.user_programs4``, issues 20-21: programs acceptance has not
seen): each program exported through the launcher's argument description and cuTile's exporter
(no GPU) and compiled for sm_90a takes the path it should; a program a tensor-core tier refuses
says why at the user's line; no internal error.  The programs whose results the CPU checks on the
tensor cores (test_user_sweep4_emulated.py, asserting their path there) are not compiled again.

Found by this sweep (each failed before its fix): FlashAttention-2's causal loops written by hand
(``range(full)`` then ``range(full, diag_end)``) were refused with an internal warp-count message
(now fused into one loop by tileas-fuse-split-loops; two dot loops that are not one loop's halves
are a located warning); attention without a loop (all keys in one tile) was refused by an
unlocated "left a kernel unlowered" (now located at the dot); B^T from ``ct.permute`` of a 3-D
``(1, tn, tk)`` tile, a batched GEMM with one B for every batch (2-D, or ``[1, K, N]`` at batch 0)
and paged attention (a scalar read of the block table in the key loop feeding the TMA coordinate)
were refused (now on the tensor cores).  Still refused (located; the SIMT path's mma.sync dots
run them): a 16-row query tile, a grouped GEMM over ``Array.slice`` row ranges, a shared A."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import cuda.tile as ct  # noqa: E402

from tileorch.testing import user_programs4  # noqa: E402
from tileorch.testing.user_programs4 import PROGRAMS  # noqa: E402

SOURCE = str(Path(user_programs4.__file__))
# asserted to take the tensor cores (and run) by test_user_sweep4_emulated.py
EMULATED = {"mm_splitk_ranges_atomic", "mm_residual_layernorm", "mm_store_transposed", "mm_k_tail_bias_64",
            "attn_gqa_bshd", "attn_head96_bshd", "attn_causal_finite_mask", "attn_causal_bottom_right",
            "attn_local_window", "attn_bias_bhss", "attn_lse_bshd_out", "attn_q_in_loop", "attn_key_padding_mask",
            "mlp_up_down_tiles", "attn_causal_two_loops", "mm_batched_permute_bt", "attn_vt_layout",
            "attn_causal_bn_wider", "mlp_residual_out", "attn_reverse_keys", "attn_v_other_head", "mm_reverse_k",
            "mm_valid_rows_mask", "mm_broadcast_b_2d", "mm_broadcast_b_unit_batch", "mm_shared_b_batch_scale",
            "attn_paged_kv", "attn_decode_small_tile"}


@ct.kernel
def mm_batched_b_not_turned(A, W, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """W ``[L, N, K]`` tiles ``(1, 64, 64)`` at (batch, n, k) reshaped to 2-D and used as B without a
    transpose (square tiles, so the shapes agree): a program multiplying by W's tiles as they lie."""
    i, j, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, index=(b, i, k), shape=(1, tm, tk)).reshape((tm, tk))
        w = ct.load(W, index=(b, j, k), shape=(1, tn, tk)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, i, j), tile=acc.astype(C.dtype).reshape((1, tm, tn)))


def test_the_sweep_has_its_programs():
    assert len(PROGRAMS) >= 40
    assert EMULATED <= set(PROGRAMS)


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if n not in EMULATED
                                        and (p.path != "simt" or p.error)))
def test_program_compiles_on_its_path(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    prog = compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.error:  # the tier's refusal, at the user's line, saying why
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
        assert "mma.sync" in prog.ptx  # the SIMT path's dots on tensor cores
    else:
        assert not refusals, remarks
    if p.path == "gemm":
        assert "wgmma.mma_async" in prog.ptx


def test_two_dot_loops_that_are_not_one_loops_halves_stay_apart():
    """tileas-fuse-split-loops on attn_two_loops_state_between (O rescaled between the loops: an op
    reading the first loop's results) leaves both loops, and its check names the second."""
    from xdsl.dialects import scf

    from tileorch.backend.pipeline import parse_pipeline, run_passes
    from tileorch.diagnostics import LocatedError
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode
    from tileorch.transforms.tileas.fuse_split_loops import check_one_dot_loop, fuse_split_loops

    p = PROGRAMS["attn_two_loops_state_between"]
    ctx = make_context()
    module = load(cutile_bytecode(p.kernel, p.spec), "x", ctx)
    run_passes(ctx, module, parse_pipeline("convert-cudatile-to-tileaa{compute_capability=sm_90a}"))
    assert fuse_split_loops(module) == 0
    assert len([o for o in module.walk() if isinstance(o, scf.ForOp)]) == 2
    with pytest.raises(LocatedError, match="2 loops with dots one after another"):
        check_one_dot_loop(module)


def test_hand_split_causal_loops_fuse_over_the_union_of_the_ranges():
    """attn_causal_two_loops: ``range(0, X)`` then ``range(X, n)`` become one loop over
    ``[minsi(0, X), maxsi(X, n))`` whose masked ops sit in an ``scf.if`` on ``j >= X``; one dot pair left."""
    from xdsl.dialects import arith, scf

    from tileorch.backend.pipeline import parse_pipeline, run_passes
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode
    from tileorch.transforms.tileas.fuse_split_loops import fuse_split_loops

    p = PROGRAMS["attn_causal_two_loops"]
    ctx = make_context()
    module = load(cutile_bytecode(p.kernel, p.spec), "x", ctx)
    run_passes(ctx, module, parse_pipeline("convert-cudatile-to-tileaa{compute_capability=sm_90a}"))
    l1, l2 = [o for o in module.walk() if isinstance(o, scf.ForOp)]
    x, n = l1.ub, l2.ub  # (the constant lower bound 0 may be merged with an equal one)
    assert fuse_split_loops(module) == 1
    module.verify()
    (loop,) = [o for o in module.walk() if isinstance(o, scf.ForOp)]
    assert isinstance(loop.lb.owner, arith.MinSIOp) and loop.lb.owner.operands[1] is x
    zero = loop.lb.owner.operands[0].owner
    assert isinstance(zero, arith.ConstantOp) and zero.value.value.data == 0
    assert isinstance(loop.ub.owner, arith.MaxSIOp) and list(loop.ub.owner.operands) == [x, n]
    (branch,) = [o for o in loop.body.block.ops if isinstance(o, scf.IfOp)]
    assert branch.cond.owner.predicate.value.data == 5 and branch.cond.owner.operands[1] is x  # sge: j >= X
    assert sum(o.name == "nv_tileaa.dot" for o in module.walk()) == 2
    assert not any("load" in o.name for o in branch.walk())


def test_fused_loops_are_a_remark():
    """The fusion is a path decision: the compile says so (and the kernel is the chained one)."""
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS["attn_causal_two_loops"]
    prog = compile_once(cutile_bytecode(p.kernel, p.spec), "attn_causal_two_loops", arch="sm_90a", ptxas=False)
    assert prog.kind == "chained", prog.remarks
    assert any("2 dot loops over consecutive ranges" in r and "tileas-fuse-split-loops" in r for r in prog.remarks)


def test_a_batched_b_tile_without_a_permute_is_not_read_as_b_transposed():
    """The unit-dimension transpose check (``_unit_dim_transpose``) must not take a reshape alone for
    a transpose: the tier refuses this B at (program id 1, k) with the located reason."""
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    spec = [((2, 128, 128), "float16"), ((2, 128, 128), "float16"), ((2, 128, 128), "float16"), 64, 64, 64]
    prog = compile_program(cutile_bytecode(mm_batched_b_not_turned, spec), "x", arch="sm_90a", ptxas=False)
    assert prog.kind == "simt", prog.remarks
    assert any("reaches the dot without a transpose" in r for r in prog.remarks), prog.remarks


@ct.kernel
def mm_batched_shared_a(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """One 2-D A times batched B: the shared operand is A, not B (the kernel shares only B)."""
    i, j, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        w = ct.load(B, index=(b, k, j), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), w, acc)
    ct.store(C, index=(b, i, j), tile=acc.astype(C.dtype).reshape((1, tm, tn)))


def test_a_shared_by_every_batch_takes_the_gemm_tier():
    """A 2-D A beside batched B and C: refused until session 15 (only B could be shared); now the
    batched kernel reads A as one matrix for every batch (its flat batch index 0, as split-K into a
    workspace reads its 2-D A and B: test_user_sweep5_emulated), the batch the launch grid's z."""
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    spec = [((128, 128), "float16"), ((3, 128, 256), "float16"), ((3, 128, 256), "float16"), 128, 128, 64]
    prog = compile_program(cutile_bytecode(mm_batched_shared_a, spec), "x", arch="sm_90a", ptxas=False)
    assert prog.kind == "gemm", prog.remarks
    assert prog.gemm_config.batched and prog.gemm_config.grid_l, prog.remarks
    assert any("a 2-D A or B is one matrix that every batch reads" in r for r in prog.remarks), prog.remarks


@ct.kernel
def mm_gathered_k_tiles_with_a_store(A, B, Perm, Seen, C, tm: ct.Constant[int], tn: ct.Constant[int],
                                     tk: ct.Constant[int]):
    """K tiles visited in the order of ``Perm`` (a scalar read feeding both loads' K index) while
    the loop also writes (``Seen[k] = 1``): the producer may not replay a read that runs ahead of
    the loop's writes."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        kk = ct.gather(Perm, k)
        acc = ct.mma(ct.load(A, index=(i, kk), shape=(tm, tk)), ct.load(B, index=(kk, j), shape=(tk, tn)), acc)
        ct.scatter(Seen, k, 1)
    ct.store(C, index=(i, j), tile=acc)


def test_a_scalar_read_in_a_loop_that_writes_is_not_replayed():
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    spec = [((128, 256), "float16"), ((256, 128), "float16"), ((4,), "int32"), ((4,), "int32"),
            ((128, 128), "float32"), 128, 128, 64]
    prog = compile_program(cutile_bytecode(mm_gathered_k_tiles_with_a_store, spec), "x", arch="sm_90a", ptxas=False)
    assert prog.kind == "simt", prog.remarks
    assert any("which the producer agent cannot replay" in r and r.startswith(__file__) for r in prog.remarks), \
        prog.remarks
