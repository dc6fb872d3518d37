"""Sixth user sweep (``tileorch.testing.user_programs6``, issues 20-21: programs acceptance has not
seen): each program exported through the launcher's argument description and cuTile's exporter
(no GPU) and compiled for sm_90a takes the path it should; a program a tensor-core tier refuses
says why at the user's line (a remark: no silent slow path); no internal error.  The programs the
CPU runs on the tensor cores (test_user_sweep6_emulated.py) are not compiled again here.

Found by this sweep (each test below failed before its fix):
- a chain's dot peeled before its loop (an attention-sink key tile) was refused as "not supported
  yet in the accumulator's register layout: the epilogue op 'nv_tileas.dot'", a LoRA up
  projection after the K loop as "both dots must be in one loop": now "N dots, this one before /
  after the loop that holds the others" at that dot;
- attention's ragged last key tile written out after the loop (masked there) was refused as "4
  dots in one K loop that do not read the same A tile": tileas-fuse-split-loops now takes such a
  step as the loop's last iteration (the step's own ops under a branch; runs on the chained tier);
- an MLP whose up projection has its own K loop inside the hidden loop was refused with the
  tier's bookkeeping ("a value computed by the warp-specialized loop or its epilogue is used
  outside the agents"): now it names the nested K loop's line and the form the tier takes;
- a 16-row decode tile was refused as "the dot's MMA atom is #nv_tileas.mma.sm80<...>, not a
  WGMMA atom": now also "16 tile rows: a WGMMA takes 64 or 128" (head dim 8: "a reduction extent
  of 8: a WGMMA reduces 16 at a time");
- the Triton tutorial's two-stage causal attention (two loops whose bodies have the same loads and
  dots but different pure ops) was refused as "2 loops with dots one after another": now fused
  into one loop with each stage's pure ops under a branch (runs on the chained tier).

Lifted in session 15 (each on the chained tier, emulated in test_user_sweep6_emulated.py, with a
located remark of what the tier chose): GQA heads packed into a (1, G, BM, D) tile, 8/16/32-row
decode tiles, the attention-sink step before the loop, QK-norm; session 16: 4-row tiles; still
refused, located: learned sink K/V arrays before the loop, a K prologue reducing over the keys."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import math  # noqa: E402

import cuda.tile as ct  # noqa: E402

from tileorch.testing import user_programs6  # noqa: E402
from tileorch.testing.user_programs6 import PROGRAMS  # noqa: E402

SOURCE = str(Path(user_programs6.__file__))
# asserted to take the tensor cores (and run) by test_user_sweep6_emulated.py
EMULATED = {"attn_bhsd_grid3_causal_d128", "attn_decode_split_kv", "attn_const_scale_exp", "attn_dv_below_dqk",
            "attn_k_dmajor", "attn_segment_ids_causal", "attn_prefix_lm", "attn_row_temperature",
            "linear_attn_causal", "attn_bool_mask_tensor", "attn_kv_cache_len", "mm_row_softmax_epilogue",
            "mm_splitk_strided_atomic", "mm_both_order_loads", "mm_batched_strided_batch", "attn_range_step_bn",
            "attn_k_order_load", "attn_bn32", "attn_lse_flat", "attn_causal_greater_equal", "attn_triton_stages",
            "attn_swapped_grid_v_first", "attn_if_last_tile", "attn_m_and_l_out", "attn_cross_peeled_last_tile",
            "attn_triton_stages_bm64_bn128", "attn_peeled_with_lse", "attn_head80_padded", "attn_bm256",
            "attn_gqa_packed_heads", "attn_gqa_packed_heads_bm16", "attn_decode_gqa_rows",
            "attn_decode_gqa_rows_spare_heads", "attn_decode_gqa_rows32", "attn_decode_gqa_rows8",
            "attn_sink_window", "attn_qk_norm", "attn_qk_norm_bm128", "attn_gqa_packed_causal",
            "attn_gqa_packed_heads_g4", "attn_decode_gqa_rows_d128", "attn_sink_window_bm128", "attn_qk_norm_d128",
            "attn_persistent", "attn_decode_gqa_rows4"}


def test_the_sweep_has_its_programs():
    assert len(PROGRAMS) >= 40
    assert EMULATED <= set(PROGRAMS)
    attention = [n for n in PROGRAMS if "attn" in n]
    assert len(attention) >= 20


def _compile(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)


@pytest.mark.parametrize("name", sorted(n for n in PROGRAMS if n not in EMULATED))
def test_program_compiles_on_its_path(name):
    p = PROGRAMS[name]
    prog = _compile(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    assert not [r for r in remarks if "memory token" in r or "outside the agents" in r], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.error:  # the tier's refusal, at the user's line, saying why
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
        assert "mma.sync" in prog.ptx  # the SIMT path's dots on tensor cores
    else:
        assert not refusals, remarks
    if p.path == "gemm":
        assert "wgmma.mma_async" in prog.ptx
    if p.path == "chained":
        assert "wgmma.mma_async" in prog.ptx


def _line_of(kernel, text: str) -> int:
    """The source line of ``kernel`` holding ``text`` (first match)."""
    import inspect

    lines, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


def test_a_step_before_the_loop_reading_its_own_arrays_runs_as_the_first_iteration():
    """``attn_learned_sink_kv``: refused at the step's dot ('this one before the loop that holds the others') until
    session 44; now the chained kernel, the fusion said at the step's dot, the sink arrays read through tensor
    maps of their own (the same form runs emulated against numpy: attnsweep 43's a43_sink_block_dot_before)."""
    p = PROGRAMS["attn_learned_sink_kv"]
    prog = _compile("attn_learned_sink_kv")
    assert prog.kind == "chained", prog.remarks
    line = _line_of(p.kernel, "s = ct.mma(q, ct.transpose(ks)")
    assert any(r.startswith(f"{SOURCE}:{line}:") and "runs as the loop's first iteration" in r
               and "read other arrays than the loop's" in r for r in prog.remarks), prog.remarks
    assert sorted(t["arg"] for t in prog.chained["tmaps"]) == [0, 7, 14, 21, 28], prog.chained["tmaps"]


def test_a_k_loop_nested_in_a_loop_of_dots_is_refused_in_the_users_terms():
    p = PROGRAMS["mlp_nested_k_gelu"]
    prog = _compile("mlp_nested_k_gelu")
    (refusal,) = [r for r in prog.remarks if "refused" in r]
    outer = _line_of(p.kernel, "for hh in range(")
    inner = _line_of(p.kernel, "for k in range(")
    assert refusal.startswith(f"{SOURCE}:{outer}:"), refusal
    assert f"the K loop at line {inner}" in refusal and "[tm, K] tile before the hidden loop" in refusal
    assert "outside the agents" not in refusal


def test_the_materializer_names_the_nested_k_loop_without_a_source_location():
    """:func:`_escaping_why` on IR without file locations: the nested case without a line, the
    other case the generic message."""
    from xdsl.dialects import arith, scf
    from xdsl.dialects.builtin import IndexType
    from xdsl.ir import Block, Region

    from tileorch.transforms.tileas.materialize_schedule import _escaping_why

    def loop(body):
        c = arith.ConstantOp.from_int_and_width(0, IndexType())
        return c, scf.ForOp(c.result, c.result, c.result, [], Region(Block(body, arg_types=[IndexType()])))

    inner_c, inner = loop([scf.YieldOp()])
    _, outer = loop([inner_c, inner, scf.YieldOp()])
    why = _escaping_why(inner, outer.body.block.last_op)
    assert "carries on the result of a K loop nested in it" in why and "at line" not in why
    _, alone = loop([scf.YieldOp()])
    assert "used outside the agents" in _escaping_why(alone, scf.YieldOp())


def _front(name):
    from tileorch.backend.pipeline import parse_pipeline, run_passes
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    ctx = make_context()
    module = load(cutile_bytecode(p.kernel, p.spec), name, ctx)
    run_passes(ctx, module, parse_pipeline("convert-cudatile-to-tileaa{compute_capability=sm_90a}"))
    return module


def test_two_stage_loops_with_different_pure_ops_fuse_into_one():
    """Found by this sweep: the Triton tutorial's two causal stages (the same loads and dots; the
    scale after the max in one, a mask added before it in the other) were left as two loops and the
    kernel refused.  tileas-fuse-split-loops now makes one loop: the loads and dots once, outside
    any branch, each stretch of pure ops in an ``scf.if`` on ``j >= split`` whose branches are the
    two stages' own ops (each exp2 once per branch: nothing computed twice on one side)."""
    from xdsl.dialects import scf

    from tileorch.transforms.tileas.fuse_split_loops import fuse_split_loops

    module = _front("attn_triton_stages")
    loops = [o for o in module.walk() if isinstance(o, scf.ForOp)]
    assert len(loops) == 2
    exps = sum(o.name.endswith("exp2") for o in module.walk())
    assert fuse_split_loops(module) == 1
    module.verify()
    (loop,) = [o for o in module.walk() if isinstance(o, scf.ForOp)]
    body = list(loop.body.block.ops)
    assert [o.name for o in body if o.name in ("nv_tileaa.tiled_load", "nv_tileaa.dot")] == [
        "nv_tileaa.tiled_load", "nv_tileaa.dot", "nv_tileaa.tiled_load", "nv_tileaa.dot"]
    ifs = [o for o in body if isinstance(o, scf.IfOp)]
    assert ifs and all(o.cond is ifs[0].cond for o in ifs)
    assert ifs[0].cond.owner.predicate.value.data == 5  # sge: j >= the second stage's start
    for br in ifs:
        assert not any("load" in o.name or o.name == "nv_tileaa.dot" for o in br.walk())
    then_exps = sum(o.name.endswith("exp2") for br in ifs for o in br.true_region.walk())
    else_exps = sum(o.name.endswith("exp2") for br in ifs for o in br.false_region.walk())
    assert then_exps == else_exps == exps // 2  # p and the rescale factor, once per stage
    assert fuse_split_loops(module) == 0


def test_loops_whose_side_effects_differ_stay_apart():
    """The generalisation pairs side effects one to one: a second loop that loads one more tile is
    left alone (the kernel then refused with its located reason)."""
    from xdsl.dialects import scf

    from tileorch.transforms.tileas.fuse_split_loops import fuse_split_loops

    module = _front("attn_triton_stages")
    l1, l2 = [o for o in module.walk() if isinstance(o, scf.ForOp)]
    load = next(o for o in l1.body.block.ops if o.name == "nv_tileaa.tiled_load")
    l2.body.block.insert_op_before(load.clone(), l2.body.block.first_op)
    assert fuse_split_loops(module) == 0


def test_a_last_step_peeled_after_the_loop_becomes_its_last_iteration():
    """The ragged last key tile written after the loop: one loop over ``[0, whole + 1)`` whose loads
    (the loop's had no padding, the step's pad with zeros) pad, the dots once, the step's mask under
    the branch; the epilogue reads the fused loop's results."""
    from xdsl.dialects import scf

    from tileorch.transforms.tileas.fuse_split_loops import fuse_split_loops

    module = _front("attn_cross_peeled_last_tile")
    assert sum(isinstance(o, scf.ForOp) for o in module.walk()) == 1
    assert sum(o.name == "nv_tileaa.dot" for o in module.walk()) == 4
    assert fuse_split_loops(module) == 1
    module.verify()
    (loop,) = [o for o in module.walk() if isinstance(o, scf.ForOp)]
    assert sum(o.name == "nv_tileaa.dot" for o in module.walk()) == 2
    loads = [o for o in loop.body.block.ops if o.name == "nv_tileaa.tiled_load"]
    assert len(loads) == 2 and all("padding_value" in o.properties for o in loads)
    assert loop.ub.owner.name == "arith.maxsi" and loop.ub.owner.operands[1].owner.name == "arith.addi"  # whole + 1
    (store,) = [o for o in module.walk() if o.name == "nv_tileaa.tiled_store"]
    assert loop.is_ancestor(store) is False


def test_a_peeled_step_that_does_not_fuse_is_left_as_written():
    """The step is wrapped only when the pair fuses: with the step's second dot changed (fast
    accumulation) the module is left as it was (one loop, four dots, the step after it)."""
    from xdsl.dialects import scf
    from xdsl.dialects.builtin import BoolAttr

    from tileorch.transforms.tileas.fuse_split_loops import fuse_split_loops

    module = _front("attn_cross_peeled_last_tile")
    (loop,) = [o for o in module.walk() if isinstance(o, scf.ForOp)]
    after = [o for o in module.walk() if o.name == "nv_tileaa.dot" and not loop.is_ancestor(o)]
    after[-1].properties["matmul_fast_accum"] = BoolAttr.from_bool(True)
    before = str(module)
    assert fuse_split_loops(module) == 0
    module.verify()
    assert str(module) == before


def test_stages_whose_loads_read_stage_values_stay_apart():
    """A load whose tile index one stage computes differently (here ``j + 0`` in the second) would
    need the branch before the load, which the TMA producer cannot replay: the loops stay apart, and
    the partly built fused body leaves no uses behind."""
    from xdsl.dialects import arith, scf

    from tileorch.transforms.tileas.fuse_split_loops import fuse_split_loops

    module = _front("attn_triton_stages")
    l1, l2 = [o for o in module.walk() if isinstance(o, scf.ForOp)]
    body = l2.body.block
    load = next(o for o in body.ops if o.name == "nv_tileaa.tiled_load")
    iv = body.args[0]
    pos = next(i for i, x in enumerate(load.operands) if x is iv)
    zero = arith.ConstantOp.from_int_and_width(0, iv.type)
    plus = arith.AddiOp(iv, zero.result)
    body.insert_op_before(zero, body.first_op)
    body.insert_op_after(plus, zero)
    load.operands = [plus.result if i == pos else x for i, x in enumerate(load.operands)]
    assert fuse_split_loops(module) == 0
    module.verify()
    assert sum(isinstance(o, scf.ForOp) for o in module.walk()) == 2
    # every use of the loops' values is by an op in the module (the discarded body's were dropped)
    for op in module.walk():
        for r in op.results:
            assert all(module.is_ancestor(u.operation) for u in r.uses), op


def _lowered(name, env, monkeypatch):
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    for k, v in env.items():
        monkeypatch.setenv(k, v)
    p = PROGRAMS[name]
    ctx = make_context()
    remarks: list = []
    kind, lowered = lower_program(load(cutile_bytecode(p.kernel, p.spec), name, ctx), ctx, remarks=remarks)
    return kind, lowered, remarks


@pytest.mark.parametrize("name, persistent", [("attn_qk_norm", "0"), ("attn_qk_norm_bm128", "0"),
                                              ("attn_qk_norm_bm128", "1")])
def test_qk_norm_kernel_is_proved(name, persistent, monkeypatch):
    """``tileorch check`` proves the QK-norm kernel with the K prologue in each tile's own iteration
    (``TILEORCH_ATTN_K_AHEAD=0``; the default K-ahead form: the test below): the Q prologue's
    per-warp-group barriers and, per tile, the K prologue's barrier of every consumer thread (named
    barrier 5) between the full barrier's wait and the WGMMAs."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract

    kind, lowered, _ = _lowered(name, {"TILEORCH_ATTN_PERSISTENT": persistent, "TILEORCH_ATTN_K_AHEAD": "0"},
                                monkeypatch)
    assert kind == "chained"
    bars = [o for o in lowered.walk() if o.name == "nvvm.barrier" and len(o.operands) == 2]
    assert len(bars) == 2  # the Q prologue's (3 + wg) and the K prologue's (5)
    (proto,) = extract(lowered)
    result = check(proto)
    assert result.ok, result.violation


@pytest.mark.parametrize("name, persistent", [("attn_qk_norm", "0"), ("attn_qk_norm_bm128", "1")])
def test_the_k_prologue_one_tile_ahead_is_proved(name, persistent, monkeypatch):
    """``TILEORCH_ATTN_K_AHEAD=1`` (q-k norm 198 -> 222 TFLOP/s on an H100, session 32) waits for two full
    barriers in the loop (tile j's and, ahead, tile j+1's).  Session 32's extractor took one and refused the
    kernel ("expected one consumer full-barrier wait in its loop, found 2"), so the switch stayed off; since
    session 33 it reads each wait's tile (analysis/chained_tiles.py) and ``tileorch check`` proves the kernel
    (more cases and seeded bugs: test_kahead_check.py)."""
    from tileorch.analysis.extract import extract
    from tileorch.testing.check_memo import check_once as check

    kind, lowered, _ = _lowered(name, {"TILEORCH_ATTN_PERSISTENT": persistent, "TILEORCH_ATTN_K_AHEAD": "1"},
                                monkeypatch)
    assert kind == "chained"
    loop_waits = max(sum(1 for o in lp.walk() if o.name == "nvvm.mbarrier.try_wait.parity")
                     for lp in lowered.walk() if lp.name == "scf.for"
                     and any(o.name == "nvvm.mbarrier.arrive" for o in lp.walk()))
    assert loop_waits >= 2
    (proto,) = extract(lowered)
    result = check(proto)
    assert result.ok, result.violation


@pytest.mark.parametrize("name, text", [
    ("attn_qk_norm", "q = q.astype(Q.dtype)"),
    ("attn_qk_norm", "k = (k * ct.rsqrt("),
    ("attn_sink_window", "s = ct.mma(q, ct.transpose(k0)"),
    ("attn_decode_gqa_rows", "s = ct.mma(q, ct.transpose(k)"),
    ("attn_gqa_packed_heads", "q = ct.load(Q, index=(b, g, qt, 0)"),
])
def test_lifted_forms_say_what_the_tier_chose_at_the_users_line(name, text):
    prog = _compile(name)
    assert prog.kind == "chained", prog.remarks
    line = f"{SOURCE}:{_line_of(PROGRAMS[name].kernel, text)}:"
    assert any(r.startswith(line) and "remark:" in r for r in prog.remarks), prog.remarks


@ct.kernel
def attn_k_column_norm(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                       D: ct.Constant[int]):
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D)).astype(ct.float32)
        k = (k * ct.rsqrt(ct.sum(k * k, axis=0, keepdims=True) / BN + 1e-6)).astype(K.dtype)  # over the keys
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


def test_a_k_prologue_reducing_over_the_keys_is_refused_at_its_line():
    """A K prologue whose reduction runs along the tile's rows (over the keys, not the head dim) is
    not a rowwise prologue: refused at the reduction's line, the SIMT path runs it."""
    import inspect

    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    kernel = attn_k_column_norm
    spec = [((2, 128, 64), "float16"), ((2, 256, 64), "float16"), ((2, 256, 64), "float16"),
            ((2, 128, 64), "float16"), 0.18, 64, 64, 64]
    prog = compile_once(cutile_bytecode(kernel, spec), "attn_k_column_norm", arch="sm_90a", ptxas=False)
    assert prog.kind == "simt", prog.remarks
    (refusal,) = [r for r in prog.remarks if "refused" in r]
    lines, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    line = first + next(i for i, ln in enumerate(lines) if "axis=0" in ln)
    assert refusal.startswith(f"{Path(__file__)}:{line}:"), refusal
    assert "the first dot's B (K) is computed from its tile by 'nv_tileaa.reduce'" in refusal, refusal
    assert "a reduction other than one along the tile's contiguous dimension" in refusal, refusal
