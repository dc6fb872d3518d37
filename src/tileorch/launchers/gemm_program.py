"""``tileorch.gemm``'s kernel as a tile program: one GEMM code path through the TileAS tier.

:func:`gemm_program` writes the tile program a cuTile user would write for a configuration (one
``128 x tile_n`` tile of C per program, a K loop of TMA tile loads and one dot, the accumulator
cast to the output type and stored; A and B read in the storage order the configuration names,
permuted before the dot when stored transposed).  :func:`lower_gemm` runs that program through the
tier (``tileas-tier`` then ``convert-nv-tileas-to-cutlass`` with the configuration's schedule and
tile/pipeline/cluster/register choices as overrides) and checks that the tier's kernel is the one
asked for: a mismatch is an error naming the fields, never another kernel.

Contract: the returned module is the cutlass-level kernel module ``tileorch.backend.compile``
lowers to PTX; its kernel function is named ``cfg.name`` and takes the GEMM host's parameters
(``tileorch.launchers.gemm_host.GemmKernel``).
"""

from __future__ import annotations

from dataclasses import fields, replace

from tileorch.kernels.gemm.config import GemmConfig, GemmConfigError, override_string

_PROGRAM_DTYPES = {"f16": "f16", "bf16": "bf16", "f32": "f32", "tf32": "f32", "e4m3": "e4m3", "e5m2": "e5m2"}
"""Configuration element types -> the tile program's array element types (tf32 runs on f32 arrays)."""


def gemm_program(cfg: GemmConfig):
    """The tile program (:class:`tileorch.frontend.tile.TileProgram`) whose tier kernel is ``cfg``
    (``transpose_b`` aside: that is the launcher's copy of an N-major B, not the kernel's)."""
    from xdsl.dialects.builtin import DenseArrayBase, TensorType, i64

    from tileorch.dialects import nv_tileaa as aa
    from tileorch.frontend.tile import TileProgram

    element = _PROGRAM_DTYPES.get(cfg.dtype)
    if element is None or getattr(cfg, "dtype_b", cfg.dtype) != cfg.dtype:
        raise GemmConfigError(f"no tile program for {cfg.name}: tileorch.gemm writes f16/bf16/fp8/tf32 programs")
    tm, tn, tk = cfg.tile_m, cfg.tile_n, cfg.tile_k
    rank = 3 if cfg.batched else 2
    p = TileProgram("gemm", num_ctas=cfg.cluster_m, num_worker_warps=4 * cfg.consumer_groups)
    A, B = p.array("a", element, rank), p.array("b", element, rank)
    C = p.array("c", _PROGRAM_DTYPES[cfg.out_dtype], rank)

    def emit(op):
        return p._emit(op).results[0]

    def transposed(tile):
        shape = list(tile.type.get_shape())[::-1]
        return emit(aa.PermuteOp.build(operands=[tile], result_types=[TensorType(tile.type.element_type, shape)],
                                       properties={"permutation": DenseArrayBase.from_list(i64, [1, 0])}))

    batch = [p.bid(2)] if cfg.batched else []
    lead = [1] if cfg.batched else []

    def load(array, index, shape):
        tile = p.load(array, (*batch, *index), (*lead, *shape))
        return emit(aa.ReshapeOp(tile, TensorType(tile.type.element_type, list(shape)))) if cfg.batched else tile

    bm, bn = p.bid(0), p.bid(1)
    a_shape = (tm, tk) if cfg.a_major == "k" else (tk, tm)
    count = p.num_tiles(A, axis=rank - 1 if cfg.a_major == "k" else rank - 2, shape=(*lead, *a_shape))
    with p.loop(count, carry=[p.zeros((tm, tn), "f32")]) as k:
        a = load(A, (bm, k.iv), (tm, tk)) if cfg.a_major == "k" else transposed(load(A, (k.iv, bm), (tk, tm)))
        b = load(B, (k.iv, bn), (tk, tn)) if cfg.b_major == "n" else transposed(load(B, (bn, k.iv), (tn, tk)))
        k.yield_(p.dot(a, b, k.args[0]))
    out = k.results[0] if cfg.out_dtype == "f32" else p.astype(k.results[0], cfg.out_dtype)
    if cfg.batched:
        out = emit(aa.ReshapeOp(out, TensorType(out.type.element_type, [1, tm, tn])))
    p.store(C, (*batch, bm, bn), out)
    return p


def lower_gemm(cfg: GemmConfig):
    """``cfg`` -> the tier's lowered kernel module (see the module docstring)."""
    from tileorch import timing

    with timing.timed("import"):  # the tier's modules (most of a first compile's tier phase)
        from tileorch.backend.pipeline import apply_pass
        from tileorch.registry import make_context
        from tileorch.transforms.tileas.convert_to_cutlass import CONFIG_ATTR, read_config
        from tileorch.transforms.tileas.nv_tileas_to_cutlass import ConvertNvTileasToCutlass
        from tileorch.transforms.tileas.tier import TileASTier

        tier = TileASTier()
        tier.steps()  # (imports the tier's passes' modules)
    cfg.check()
    ctx = make_context()
    with timing.timed("program"):
        module = gemm_program(cfg).finish()
    override = override_string(cfg)
    # applied as the compile driver applies passes: within a timing scope (compile_gemm's) each
    # is timed, the tier's passes one by one (``tileas-tier/<pass>``)
    apply_pass(ctx, module, tier)
    apply_pass(ctx, module, ConvertNvTileasToCutlass(schedule=cfg.schedule, config=override))
    fn = next(op for op in module.walk() if CONFIG_ATTR in op.attributes)
    got = read_config(fn)[0]
    if got != replace(cfg, transpose_b=False, transpose_a=False):
        diff = ", ".join(f"{f.name}: asked {getattr(cfg, f.name)!r}, tier {getattr(got, f.name)!r}"
                         for f in fields(GemmConfig) if getattr(cfg, f.name) != getattr(got, f.name)
                         and f.name not in ("transpose_b", "transpose_a"))
        raise GemmConfigError(f"the TileAS tier did not produce the configuration asked for ({diff})")
    return module
