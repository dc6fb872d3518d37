"""Fifth user sweep (``tileorch.testing.user_programs5``, issues 20-21: programs acceptance has not
seen): each program exported through the launcher's argument description and cuTile's exporter
(no GPU) and compiled for sm_90a takes the path it should; a program a tensor-core tier refuses
says why at the user's line; no internal error.  The programs whose results the CPU checks on the
tensor cores (test_user_sweep5_emulated.py) are not compiled again here.

Found by this sweep: a persistent GEMM in Triton's later grouped raster (``first + (t % w) % size``)
was refused with "a memory token is used by an op TileAS does not know" (tile_order now reads
the form; a persistent loop in an order the tier does not read is refused with what it takes).
Still refused (located; the SIMT path's mma.sync dots run them): a 4-D ``[B, H, M, K]`` batch, an
int8 weight converted in the K loop (mixed-input dot), split-K into a ``[S, M, N]`` workspace
(C batched, A and B not), a grouped GEMM whose group index is read from a table, the attention
backward's dQ (three dots) and dK / dV (four dots) loops."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import cuda.tile as ct  # noqa: E402

from tileorch.testing import user_programs5  # noqa: E402
from tileorch.testing.user_programs5 import PROGRAMS  # noqa: E402

SOURCE = str(Path(user_programs5.__file__))
# asserted to take the tensor cores (and run) by test_user_sweep5_emulated.py
EMULATED = {"mm_k_tiles_scalar", "mm_f16_epilogue_chain", "mm_persistent_grouped", "mm_rowsum_epilogue",
            "attn_head32", "attn_gqa_mul_form", "attn_window_scalar", "attn_alibi_slopes_causal",
            "attn_varlen_table", "attn_bias_shared_batches", "attn_short_kv", "attn_softcap",
            "attn_causal_bool_mul", "attn_hash_dropout", "attn_kv_broadcast_batch", "mm_peeled_first_k",
            "attn_acc_added_after", "attn_matmul_operator", "attn_causal_bm_twice_bn", "mm_tk128",
            "attn_scale_after_max", "attn_3d_tiles", "attn_3d_causal", "mm_4d_heads", "mm_grouped_tile_table",
            "mm_splitk_workspace", "mm_static_iter_k", "mm_weight_only_int8"}


def test_the_sweep_has_its_programs():
    assert len(PROGRAMS) >= 40
    assert EMULATED <= set(PROGRAMS)


@pytest.mark.parametrize("name", sorted(n for n in PROGRAMS if n not in EMULATED))
def test_program_compiles_on_its_path(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    prog = compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    assert not [r for r in remarks if "memory token" in r], remarks  # never the tier's own bookkeeping
    refusals = [r for r in remarks if "refused" in r]
    if p.error:  # the tier's refusal, at the user's line, saying why
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
        assert "mma.sync" in prog.ptx  # the SIMT path's dots on tensor cores
    else:
        assert not refusals, remarks
    if p.path == "gemm":
        assert "wgmma.mma_async" in prog.ptx


@ct.kernel
def mm_persistent_diagonal(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A persistent tile loop in a diagonal order (a bijection the tier does not read)."""
    n_m = ct.cdiv(A.shape[0], tm)
    n_n = ct.cdiv(B.shape[1], tn)
    for t in range(ct.bid(0), n_m * n_n, ct.num_blocks(0)):
        pm = t % n_m
        pn = (t // n_m + pm) % n_n
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(pm, k), shape=(tm, tk)), ct.load(B, index=(k, pn), shape=(tk, tn)), acc)
        ct.store(C, index=(pm, pn), tile=acc.astype(C.dtype))


def test_a_persistent_loop_in_an_unread_order_is_refused_saying_what_the_tier_takes():
    """Found by this sweep: the refusal read 'a memory token is used by an op TileAS does not know';
    now located at the loop with the persistent-loop forms the tier takes."""
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    spec = [((384, 128), "float16"), ((128, 256), "float16"), ((384, 256), "float16"), 128, 128, 64]
    prog = compile_program(cutile_bytecode(mm_persistent_diagonal, spec), "x", arch="sm_90a", ptxas=False)
    assert prog.kind == "simt", prog.remarks
    # the `for t` line (co_firstlineno is the decorator's)
    line = mm_persistent_diagonal._annotated_function.pyfunc.__code__.co_firstlineno + 5
    (refusal,) = [r for r in prog.remarks if "refused" in r]
    assert refusal.startswith(f"{__file__}:{line}:"), refusal
    assert "stored inside a loop around its computation" in refusal and "t // n and t % n" in refusal
    assert "memory token" not in refusal


def test_a_token_read_by_an_unknown_op_names_the_op():
    """The other case of :func:`token_use_error`: not a loop, the op's name in the message."""
    from xdsl.dialects import test

    from tileorch.transforms.tileaa_to_tileas.convert import token_use_error

    user = test.TestOp(result_types=[])
    assert "'test.op', an op TileAS does not order" in str(token_use_error(user))
