"""``convert-nv-tileas-to-cutlass``: lower a materialized TileAS GEMM kernel onto the ``cutlass``
pipeline / tile-scheduler ops and the TMA + WGMMA payload that tileorch's hand-built GEMM uses.

The pass reads the warp-specialized kernel the tier produced and derives the GEMM it computes:

* the MMA consumer agent's dot (``mma.sm90<[64, tile_n, 16]>`` on ``tile_m x tile_n``, two
  consumer warpgroups for ``tile_m = 128``) and the TMA producer agent's two tile loads:
  A tile ``(bid0, k)`` of an ``[M, K]`` array, B tile ``(k, bid1)`` of a ``[K, N]`` array;
* the epilogue: at most an ``fp_to_fp`` to C's element type, then a store of tile ``(bid0, bid1)``
  (TMA: ``epilogue = tma``; ``ldg/stg``-style: ``direct``);
* the pipeline depth (kept while the hand-built kernel's shared-memory plan fits it), the
  cluster size from ``nv_tileaa.kernel_spec``.

It then emits the kernel through ``tileorch.kernels.gemm`` (``gemm_kernel_ir``), i.e. the same
``cutlass.pipeline`` / ``cutlass.tile_scheduler`` / nvvm payload ops and per-agent code the
hand-built GEMM has, with the tile scheduler chosen by ``schedule`` (``persistent``, ``streamk``
or ``dp``).  The kernel's arguments become the hand-built kernel's (tensor maps, C, M, N, K,
scheduler params); ``tileorch.gemm_config`` on the function records the configuration the host
side (``tileorch.kernels.gemm.host``) launches it with.  Anything the recognizer does not
match is a located error naming the first mismatch.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from tileorch.diagnostics import LocatedError, parse_module
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.dialects.nv_tileas import AgentSwitchOp
from tileorch.transforms.tileas.common import num_ctas

DTYPE_NAMES = {"f16": "f16", "bf16": "bf16", "f32": "f32"}
CONFIG_ATTR = "tileorch.gemm_config"


def _dtype(t) -> str:
    name = str(t)
    if name not in DTYPE_NAMES:
        raise ValueError(name)
    return DTYPE_NAMES[name]


def _is_bid(v: SSAValue, axis: int) -> bool:
    return isinstance(v.owner, aa.GetProgramIdOp) and v.owner.axis.value.data == axis


def _is_iv(v: SSAValue) -> bool:
    return isinstance(v.owner, Block) and v.index == 0 and isinstance(v.owner.parent_op(), scf.ForOp)


def _base_argument(kernel: aa.FuncOp, view: SSAValue) -> int | None:
    """Index of the kernel argument (the base pointer) a tiled view is built on, following the
    first operand through ``block_tile`` / ``make_memref`` / ``assume``; None when it is not one."""
    v = view
    for _ in range(64):
        if isinstance(v, BlockArgument):
            return v.index if v.owner is kernel.body.blocks.first else None
        if not v.owner.operands:
            return None
        v = v.owner.operands[0]
    return None


def gemm_operands(fn: Operation) -> tuple[int | None, int | None, int | None] | None:
    """The kernel-argument indices of A, B and C (their base pointers, counted over the tile
    kernel's flat argument list) recorded under :data:`CONFIG_ATTR` on a lowered function."""
    attr = fn.attributes.get(CONFIG_ATTR)
    if not isinstance(attr, StringAttr):
        return None
    ops = json.loads(attr.data).get("args")
    return None if ops is None else tuple(ops)


def recognize(kernel: aa.FuncOp, schedule: str):
    from tileorch.kernels.gemm.config import GemmConfig, GemmConfigError

    def fail(op: Operation, why: str):
        raise LocatedError(op, f"convert-nv-tileas-to-cutlass: not a GEMM this lowering recognizes: {why}")

    switches = [o for o in kernel.walk() if isinstance(o, AgentSwitchOp)]
    if len(switches) != 1:
        fail(kernel, f"expected one agent_switch (run tileas-materialize-schedule), found {len(switches)}")
    sw = switches[0]
    dots = [o for o in sw.walk() if isinstance(o, ts.DotOp)]
    if len(dots) != 1 or not isinstance(dots[0].atom, ts.MmaSm90AtomAttr):
        fail(sw, "expected one dot on a WGMMA (mma.sm90) atom")
    dot = dots[0]
    tm, tn = dot.result.type.get_shape()
    tk = dot.lhs.type.get_shape()[-1]
    loads = [o for o in sw.walk() if isinstance(o, ts.TiledLoadOp) and o.dst is not None]
    if len(loads) != 2 or not all(isinstance(ld.atom, ts.TmaLoadAtomAttr) for ld in loads):
        fail(sw, "expected a producer agent with two TMA tile loads (A and B)")
    la, lb = loads
    if list(la.result.type.get_shape()) != [tm, tk] or list(lb.result.type.get_shape()) != [tk, tn]:
        fail(la, f"loads of {la.result.type.get_shape()} and {lb.result.type.get_shape()} do not feed a "
                 f"{tm}x{tn}x{tk} dot as A and B")
    if not (_is_bid(la.indices[0], 0) and _is_iv(la.indices[1])):
        fail(la, "A must be loaded at tile (program id 0, k)")
    if not (_is_iv(lb.indices[0]) and _is_bid(lb.indices[1], 1)):
        fail(lb, "B must be loaded at tile (k, program id 1)")
    stores = [o for o in sw.walk() if isinstance(o, ts.TiledStoreOp)]
    if len(stores) != 1:
        fail(sw, "expected one tile store of C")
    st = stores[0]
    if not (_is_bid(st.indices[0], 0) and _is_bid(st.indices[1], 1)):
        fail(st, "C must be stored at tile (program id 0, program id 1)")
    # epilogue: the stored value is the loop result, possibly converted
    v = st.tile
    while isinstance(v.owner, ts.ConvertLayoutOp | aa.FpToFpOp):
        v = v.owner.operands[0]
    if not isinstance(v.owner, scf.ForOp):
        fail(st, f"the stored tile must be the K loop's accumulator (through fp_to_fp), not '{v.owner.name}'")
    pipes = [o for o in kernel.walk() if o.name == "nv_tileas.async.pipeline.create_pipeline"]
    depth = pipes[0].num_stages.value.data if pipes else 4
    try:
        dtype = _dtype(la.result.type.element_type)
        out_dtype = _dtype(st.tile.type.element_type)
    except ValueError as exc:
        fail(la, f"element type {exc} is not bf16/f16 in, bf16/f16/f32 out")
    epilogue = "tma" if isinstance(st.atom, ts.TmaStoreAtomAttr) else "direct"
    if out_dtype == "f32":
        epilogue = "direct"
    cfg = GemmConfig(tile_m=tm, tile_n=tn, tile_k=tk, stages=depth, cluster_m=num_ctas(kernel), schedule=schedule,
                     dtype=dtype, out_dtype=out_dtype, b_major="n", epilogue=epilogue)
    while cfg.stages > 1:
        try:
            return cfg.check()
        except GemmConfigError as exc:
            if "shared memory" not in str(exc):
                fail(kernel, str(exc))
            cfg = replace(cfg, stages=cfg.stages - 1)
    try:
        return cfg.check()
    except GemmConfigError as exc:
        fail(kernel, str(exc))


def lower_kernel(ctx: Context, module: ModuleOp, kernel: aa.FuncOp, schedule: str) -> None:
    from tileorch.kernels.gemm.ir import gemm_kernel_ir

    cfg = recognize(kernel, schedule)
    # A, B (the producer's two loads, in recognize's order) and C (the store): argument indices
    sw = next(o for o in kernel.walk() if isinstance(o, AgentSwitchOp))
    loads = [o for o in sw.walk() if isinstance(o, ts.TiledLoadOp) and o.dst is not None]
    stores = [o for o in sw.walk() if isinstance(o, ts.TiledStoreOp)]
    operands = [_base_argument(kernel, op.view) for op in (*loads, *stores)]
    text = gemm_kernel_ir(cfg)
    lowered = parse_module(ctx, text, f"<{cfg.name}>")
    new_funcs = [op for op in lowered.ops if isinstance(op, func.FuncOp)]
    for f in new_funcs:
        f.detach()
        f.attributes[CONFIG_ATTR] = StringAttr(json.dumps({**cfg.as_dict(), "args": operands}, sort_keys=True))
        f.attributes["tileorch.tile_kernel"] = StringAttr(kernel.sym_name.data)
        module.body.block.insert_op_before(f, kernel)
    kernel.detach()
    kernel.erase(safe_erase=False)
    for key, value in lowered.attributes.items():
        module.attributes.setdefault(key, value)


@dataclass(frozen=True)
class ConvertNvTileasToCutlass(ModulePass):
    """Materialized TileAS GEMM kernels -> cutlass pipeline/tile-scheduler + TMA/WGMMA payload."""

    name = "convert-nv-tileas-to-cutlass"
    schedule: str = "persistent"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.schedule not in ("persistent", "streamk", "dp"):
            raise LocatedError(op, f"schedule must be persistent, streamk or dp, got {self.schedule!r}")
        kernels = [o for o in op.walk() if isinstance(o, aa.FuncOp) and o.kernel_spec() is not None]
        for kernel in kernels:
            if any(isinstance(o, AgentSwitchOp) for o in kernel.walk()):
                lower_kernel(ctx, op, kernel, self.schedule)


def lower_tile_program(text: str, schedule: str = "persistent", dynamic_persistent: bool = False,
                       name: str = "<tile program>"):
    """nv_tileaa text -> (GemmConfig, the lowered cutlass module): the tier plus this lowering.
    The host side launches the result with ``tileorch.kernels.gemm.host.GemmKernel(cfg, cubin)``."""
    from tileorch.kernels.gemm.config import GemmConfig
    from tileorch.registry import make_context
    from tileorch.transforms.tileas.tier import TileASTier

    ctx = make_context()
    module = parse_module(ctx, text, name)
    TileASTier(dynamic_persistent=dynamic_persistent).apply(ctx, module)
    ConvertNvTileasToCutlass(schedule=schedule).apply(ctx, module)
    fn = next(op for op in module.walk() if CONFIG_ATTR in op.attributes)
    fields = {f.name for f in dataclasses.fields(GemmConfig)}
    return GemmConfig(**{k: v for k, v in json.loads(fn.attributes[CONFIG_ATTR].data).items() if k in fields}), module
