"""Two chained dots on the CPU: the cuTile FlashAttention forward and the fused two-GEMM MLP of
``tileorch.testing.attention_programs`` compile through the TileAS tier's chained-dots lowering
(``kind == "chained"``, never the SIMT path) to PTX that ptxas accepts, with both dots on WGMMA
(the second with its A operand in registers), the row reductions as quad shuffles, and the launch
record the host builds its tensor maps from.  Fake device arrays (no GPU); skipped without
cuda-tile.  tests/gpu/test_attention_programs.py runs the same programs on an H200."""

from __future__ import annotations

import importlib.util
import re

import pytest

from tileorch.launchers import cutile as rc
from tileorch.transforms.tileas.chained_dots import overlap_enabled

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")


class Dev:
    """A stand-in device array (``__cuda_array_interface__``, contiguous)."""

    def __init__(self, ptr: int, shape: tuple[int, ...], typestr: str = "<f2"):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": tuple(shape), "typestr": typestr,
                                         "strides": None, "version": 3}


def _compile(kernel, args):
    from tileorch.driver import compile_program

    data = rc.export_bytecode(kernel, rc.describe_arguments(kernel, args))
    return compile_program(data, "<chained test>")


def _compile_once(kernel, args):
    """:func:`_compile` once per distinct input in a test run (``tileorch.testing.compile_memo``): for
    tests that compile through the unpatched compiler (those that patch a compile step call
    :func:`_compile`)."""
    from tileorch.testing.compile_memo import compile_once

    return compile_once(rc.export_bytecode(kernel, rc.describe_arguments(kernel, args)), "<chained test>")


def _arrays(n: int, shape: tuple[int, ...]):
    return tuple(Dev(0x7F0000000000 + (i + 1) * 0x10000000, shape) for i in range(n))


REG_A = re.compile(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\.f16\.f16 \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}")
SMEM_A = re.compile(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\.f16\.f16 \{[^}]*\}, %rd\d+, %rd\d+")


@pytest.mark.parametrize("d,tile_m,tile_n,causal,groups", [(64, 128, 64, False, 4), (128, 128, 128, False, 2),
                                                            (64, 64, 64, True, 1)])
def test_attention_compiles_to_two_wgmma_dots(d, tile_m, tile_n, causal, groups):
    from tileorch.testing.attention_programs import attention_fwd

    args = _arrays(4, (4, 1000, d)) + (0.18, 1000, tile_m, tile_n, d, causal)
    p = _compile_once(attention_fwd, args)
    assert p.kind == "chained", p.remarks
    assert p.cubin is not None, "ptxas did not accept the PTX"
    # tile_m / 64 consumer warp groups and one producer warp group; four row groups over 256 rows where S, P and O
    # fit their 112 registers (TILEORCH_ATTN_ROW_GROUPS=auto, the default: d64 with 64-wide key tiles, non-causal)
    assert p.threads == 128 * groups + 128 and p.chained["threads"] == 128 * groups + 128
    # S = Q K^T: d/16 shared-memory WGMMAs of n = tile_n; O += P V: tile_n/16 register-A WGMMAs of n = d;
    # each twice: the consumer loop overlaps tile j-1's P V with tile j's Q K^T (tile 0's Q K^T before
    # the loop, the last tile's P V after it)
    copies = 2 if p.chained["pipelined"] else 1
    assert [int(n) for n in SMEM_A.findall(p.ptx)] == [tile_n] * (d // 16) * copies
    assert [int(n) for n in REG_A.findall(p.ptx)] == [d] * (tile_n // 16) * copies
    assert p.ptx.count("wgmma.wait_group.sync.aligned \t1;") == copies - 1
    # the softmax: 2 reductions x 2 rows x (xor 1, xor 2) per copy (tile 0, the loop; the loop twice
    # when its masks hold on whole tiles in the interior iterations: mask_bounds.py)
    softmax_copies = copies + (1 if p.chained["interior_masks"] else 0)
    assert p.chained["interior_masks"] == (2 if causal else 1)  # keys past the sequence (and after the query)
    assert p.ptx.count("shfl.sync.bfly.b32") == 8 * softmax_copies
    assert "cvt.rn.f16x2.f32" in p.ptx and "ex2.approx.ftz.f32" in p.ptx
    assert p.ptx.count("cp.async.bulk.tensor.3d") >= 3 * (d // 64)  # Q once, K and V per stage
    # the host's tensor maps: Q, K and V base pointers (entry parameters 0, 7, 14), box rows
    assert [t["arg"] for t in p.chained["tmaps"]] == [0, 7, 14]
    # (the Q box of four row groups: their four 64-row slices, 256 rows)
    assert [t["rows"] for t in p.chained["tmaps"]] == [64 * groups if groups == 4 else tile_m, tile_n, tile_n]
    assert p.chained["smem"] <= 227 * 1024


SPILLS = re.compile(r"ptxas: \S+: (\d+) registers, (\d+) spills")


@pytest.mark.parametrize("tile_m,tile_n,causal,dtype", [(128, 64, False, "float16"), (128, 128, True, "bfloat16"),
                                                        (64, 64, True, "float16")])
def test_head_dim_256_compiles_without_spills(tile_m, tile_n, causal, dtype):
    """Head dim 256: the O accumulator alone is 128 registers per thread.  Two stages of 128-row K/V
    tiles do not fit shared memory next to Q, so 128x128 tiles run on a one-stage ring (a loop of
    chained dots may, ``materialize_schedule.chains_dots``); ptxas keeps everything in registers."""
    import dataclasses

    from tileorch.driver import compile_program
    from tileorch.testing.attention_programs import attention_fwd

    args = _arrays(4, (4, 1000, 256)) + (0.18, 1000, tile_m, tile_n, 256, causal)
    described = [dataclasses.replace(a, dtype=dtype) if i < 4 else a
                 for i, a in enumerate(rc.describe_arguments(attention_fwd, args))]
    p = compile_program(rc.export_bytecode(attention_fwd, described), "<d256>")
    assert p.kind == "chained", p.remarks
    assert p.cubin is not None, "ptxas did not accept the PTX"
    assert p.chained["d"] == p.chained["dv"] == 256 and p.chained["smem"] <= 227 * 1024
    # as many K/V stages as shared memory holds beside Q (at most 4)
    assert p.chained["stages"] == {(128, 64): 2, (128, 128): 1, (64, 64): 3}[(tile_m, tile_n)]
    usage = [SPILLS.search(r) for r in p.remarks]
    usage = [(int(m.group(1)), int(m.group(2))) for m in usage if m]
    # consumer warp groups run at setmaxnreg 240: 128x128 tiles (S 64 + O 128 registers) with the
    # causal branch spill a few bytes there (the one-stage shape; 128x64 is the d256 default)
    spilled = [int(m.group(1)) for m in map(re.compile(r"spilled registers of \S+: (\d+) B stores").search, p.remarks) if m]
    # bytes a shape may spill: 128x128 causal (above); 64x64 causal since session 27, whose divisions defined
    # for a zero divisor (defined_integer_llvm: a select per runtime division) cost a 4-byte spill (ptxas 13.0)
    allowed = {(128, 128, True): 64, (64, 64, True): 16}.get((tile_m, tile_n, causal))
    if allowed is not None:
        assert all(b <= allowed for b in spilled), p.remarks
    else:
        assert usage and all(regs <= 255 and spills == 0 for regs, spills in usage) and not spilled, p.remarks
    wg = "bf16" if dtype == "bfloat16" else "f16"
    # O += P V: n = 256 register-A WGMMAs (twice when pipelined: in the loop and for the last tile;
    # 128x128 tiles need too many registers for that: S, two P tiles and O)
    assert p.chained["pipelined"] == (overlap_enabled() and tile_n == 64)
    copies = 2 if p.chained["pipelined"] else 1
    assert p.ptx.count(f"m64n256k16.f32.{wg}.{wg}") == tile_n // 16 * copies


def test_fused_mlp_compiles_to_two_wgmma_dots():
    """A GEMM followed by a second GEMM on its activated result (both B operands N-major)."""
    from tileorch.testing.attention_programs import mlp_chain

    x, w1, w2, y = Dev(0x7F0000000000, (1000, 64)), Dev(0x7F0010000000, (64, 512)), Dev(0x7F0020000000, (512, 128)), \
        Dev(0x7F0030000000, (1000, 128))
    p = _compile_once(mlp_chain, (x, w1, w2, y, 128, 64, 64, 128))
    assert p.kind == "chained", p.remarks
    assert p.cubin is not None
    copies = 2 if p.chained["pipelined"] else 1
    assert len(SMEM_A.findall(p.ptx)) == 4 * copies and [int(n) for n in REG_A.findall(p.ptx)] == [128] * 4 * copies
    assert "shfl.sync" not in p.ptx  # no reductions in this program
    assert [t["rank"] for t in p.chained["tmaps"]] == [2, 2, 2]


def _branchy_args(d: int, tile_m: int, tile_n: int, causal: bool, even: bool, group: int = 1):
    arrays = tuple(Dev(0x7F0000000000 + (i + 1) * 0x10000000, (2, 4 // (group if 0 < i < 3 else 1), 1024, d))
                   for i in range(4))
    return arrays + (0.125, 0, d, 4, tile_m, tile_n, group, causal, even)


def _front(kernel, args):
    from tileorch.backend.pipeline import parse_pipeline, run_passes
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context

    ctx = make_context()
    module = load(rc.export_bytecode(kernel, rc.describe_arguments(kernel, args)), "<branchy>", ctx)
    run_passes(ctx, module, parse_pipeline("convert-cudatile-to-tileaa{compute_capability=sm_90a}"))
    return ctx, module


@pytest.mark.parametrize("causal,even", [(True, False), (False, False), (True, True)])
def test_split_mask_loops_fuse_back_into_one_loop(causal, even):
    """cuTile splits the samples' ``if ... and j >= mask_start: mask`` loop into an unmasked and a
    masked loop; tileas-fuse-split-loops makes them one loop over the whole range with the mask in
    an ``scf.if`` on ``j >= max(lb, mask_start)``, everything else (loads, dots) shared."""
    from xdsl.dialects import scf

    from tileorch.testing.attention_programs import attention_fwd_branchy
    from tileorch.transforms.tileas.fuse_split_loops import fuse_split_loops

    ctx, module = _front(attention_fwd_branchy, _branchy_args(64, 128, 128, causal, even))
    loops = [o for o in module.walk() if isinstance(o, scf.ForOp)]
    assert len(loops) == 2
    dots = sum(o.name == "nv_tileaa.dot" for o in module.walk())
    assert fuse_split_loops(module) == 1
    module.verify()
    (loop,) = [o for o in module.walk() if isinstance(o, scf.ForOp)]
    assert loop.lb is loops[0].lb and loop.ub is loops[1].ub
    ifs = [o for o in loop.body.block.ops if isinstance(o, scf.IfOp)]
    assert len(ifs) == 1 and ifs[0].cond.owner.predicate.value.data == 5  # sge: j >= max(lb, mask_start)
    assert ifs[0].cond.owner.operands[1] is loops[1].lb
    assert sum(o.name == "nv_tileaa.dot" for o in module.walk()) == dots // 2
    assert not any("load" in o.name for o in ifs[0].walk())
    assert fuse_split_loops(module) == 0  # nothing left to fuse


def test_split_loops_with_different_side_effects_stay_apart():
    """A second loop that is not the first plus pure ops (here: its body is changed to load one more
    tile) is left alone."""
    from xdsl.dialects import scf

    from tileorch.testing.attention_programs import attention_fwd_branchy
    from tileorch.transforms.tileas.fuse_split_loops import fuse_split_loops

    ctx, module = _front(attention_fwd_branchy, _branchy_args(64, 128, 128, True, False))
    l1, l2 = [o for o in module.walk() if isinstance(o, scf.ForOp)]
    load = next(o for o in l1.body.block.ops if o.name == "nv_tileaa.tiled_load")
    l2.body.block.insert_op_before(load.clone(), l2.body.block.first_op)
    assert fuse_split_loops(module) == 0


@pytest.mark.parametrize("d,tile_m,tile_n,causal,even,group", [(64, 128, 128, True, False, 1),
                                                               (128, 128, 128, False, False, 2),
                                                               (128, 64, 64, True, True, 1)])
def test_sample_style_attention_takes_the_tensor_cores(d, tile_m, tile_n, causal, even, group):
    """The FlashAttention forward as NVIDIA's cuTile samples write it (4-D arrays, grouped KV heads,
    K through a transposing view order, padding modes, the mask in a branch inside the loop)
    compiles on the chained-dots path: the mask becomes one branch around the fragment's math."""
    from tileorch.testing.attention_programs import attention_fwd_branchy

    p = _compile_once(attention_fwd_branchy, _branchy_args(d, tile_m, tile_n, causal, even, group))
    assert p.kind == "chained", p.remarks
    assert p.cubin is not None
    copies = 2 if p.chained["pipelined"] else 1
    assert [int(n) for n in SMEM_A.findall(p.ptx)] == [tile_n] * (d // 16) * copies
    assert [int(n) for n in REG_A.findall(p.ptx)] == [d] * (tile_n // 16) * copies
    assert [t["rank"] for t in p.chained["tmaps"]] == [4, 4, 4]
    assert [t["rows"] for t in p.chained["tmaps"]] == [tile_m, tile_n, tile_n]  # K stored [tn, d] (view order)
    usage = [SPILLS.search(r) for r in p.remarks]
    assert all(int(m.group(2)) == 0 for m in usage if m), p.remarks


def test_exp2_fma_share_default_rule(monkeypatch):
    """The FMA-pipe share of the softmax's exp2 defaults to one column group in 16 where the two
    dots' reduction extents sum to 128 or less (the MUFU-bound 64-wide head), off above (128-wide
    heads), and ``TILEORCH_ATTN_EXP2_FMA`` overrides either way; the compile says so in a remark."""
    from tileorch.testing.attention_programs import attention_fwd
    from tileorch.transforms.tileas.chained_dots import EXP2_FMA_ENV, exp2_fma_period

    monkeypatch.delenv(EXP2_FMA_ENV, raising=False)
    assert exp2_fma_period(64, 64) == 16 and exp2_fma_period(32, 96) == 16
    assert exp2_fma_period(128, 128) == 0 and exp2_fma_period(64, 128) == 0 and exp2_fma_period() == 0
    monkeypatch.setenv(EXP2_FMA_ENV, "4")
    assert exp2_fma_period(128, 128) == 4
    monkeypatch.setenv(EXP2_FMA_ENV, "0")
    assert exp2_fma_period(64, 64) == 0
    monkeypatch.delenv(EXP2_FMA_ENV)
    d64 = _compile_once(attention_fwd, _arrays(4, (2, 512, 64)) + (0.18, 512, 128, 128, 64, False))
    assert d64.chained["exp2_fma"] == {"period": 16, "default": True}
    assert any("exp2 column group in 16" in r for r in d64.remarks), d64.remarks
    d128 = _compile_once(attention_fwd, _arrays(4, (2, 512, 128)) + (0.18, 512, 128, 128, 128, False))
    assert "exp2_fma" not in d128.chained and not any("exp2 column group" in r for r in d128.remarks)
    # the same d64 kernel with the switch off: every exp2 of the loop on the MUFU again
    monkeypatch.setenv(EXP2_FMA_ENV, "0")
    off = _compile_once(attention_fwd, _arrays(4, (2, 512, 64)) + (0.18, 512, 128, 128, 64, False))
    assert off.ptx.count("ex2.approx") > d64.ptx.count("ex2.approx")
