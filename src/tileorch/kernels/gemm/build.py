"""The warp-specialized TMA + WGMMA GEMM, built as tileorch IR for one :class:`GemmConfig`.

:func:`build_gemm_kernel` constructs the kernel with the dialects' op classes (xDSL
``ImplicitBuilder``: every op created inside a ``with ImplicitBuilder(block)`` is appended to
``block``); no MLIR text is written or parsed on the way.

Structure (CUTLASS ``KernelTmaWarpSpecializedCooperative``, docs/gemm.md has the picture):

* warp group 0 = producer (``setmaxnreg`` down to ``producer_regs``); its warp 0 walks the tile
  scheduler and, per K tile, acquires a stage (``cutlass.pipeline.producer_acquire``), lets one
  elected thread issue the TMA loads of A and B into it (B split into ``cluster_m`` slices, each
  multicast to every CTA of the cluster) and commits the stage's transaction bytes;
* warp groups 1..tile_m/64 = the consumers (``setmaxnreg`` up to ``consumer_regs``), one body shared by
  all of them for a plain GEMM (:func:`shared_consumer`, the warp group read from ``%tid``), else one body
  each; per K tile they wait for the stage, issue ``tile_k / mma_k`` ``wgmma.mma_async m64n{tile_n}k{mma_k}``
  (warp group ``w`` owns rows ``64w..64w+63`` of the tile), keep one wgmma batch in flight
  (``wait_group 1``) and release the previous stage; after the last K tile of a work unit they
  drain (``wait_group 0``), fix up Stream-K partials (``cutlass.tile_scheduler.fixup``) and
  store the fragment to C;
* every stage is handed over through ``cutlass.pipeline`` (full/empty mbarriers, cluster-wide
  release when B is multicast); the walk over tiles is ``cutlass.tile_scheduler``.

The tensor maps are grid-constant byval kernel parameters; A's box is ``[tile_k (K), tile_m (M)]``,
B's ``[tile_k (K), tile_n / cluster_m (N)]`` (K-major B) or ``[64 (N), tile_k (K)]`` chunks (N-major
B); a K-major box has the swizzle of its K row (128 bytes; 64 or 32 for a short ``tile_k``:
``GemmConfig.k_row_bytes``), an M/N-major chunk the 128-byte one, and the WGMMA descriptors name
the same swizzle.

The kernel's parameters are ``(tmap_a, tmap_b, tmap_c, c, m, n, k, params)``, then, for
``b_operands > 1`` (dots sharing A: one A tile and ``b_operands`` B tiles per stage, one
accumulator and one WGMMA batch per B each K step), the other B operands' tensor maps, then, for
``a_operands > 1`` (an A per dot: ``a_operands`` A tiles then the B tiles per stage, one WGMMA batch
per (A i, B i) pair, into accumulator i or, ``one_accumulator``, all into one), the other A operands'
tensor maps, then, for ``c_ld`` (C a column slice of a wider array), C's row stride ``ldc`` in elements; the epilogue is
``atom.stage_fragment`` + TMA stores (``epilogue = "tma"``) or ``atom.store_fragment``
(``"direct"``), which the TileAS lowering may rewrite to compile a program's own epilogue.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith, func, llvm, scf
from xdsl.dialects.builtin import (ArrayAttr, DenseArrayBase, DictionaryAttr, IntegerAttr, IntegerType, ModuleOp,
                                   StringAttr, UnitAttr, f32, i1, i8, i16, i32, i64)
from xdsl.ir import Attribute, Block, Region, SSAValue

from tileorch import settings
from tileorch.dialects import llvm_ext, nvvm
from tileorch.dialects import nvvm_payload as nvp
from tileorch.dialects.atoms import DynamicSmemOp, StageFragmentOp, StoreFragmentOp
from tileorch.dialects.cutlass import pipeline as pl
from tileorch.dialects.cutlass import tile_scheduler as ts
from tileorch.dialects.cutlass.async_exec import AsyncExecOp
from tileorch.dialects.cutlass.attrs import PipelineComputeCapability, PipelineComputeCapabilityAttr
from tileorch.dialects.cutlass.named_barrier import NamedBarrierArriveAndWaitOp
from tileorch.dialects.cutlass.scheduler_attrs import (StaticPersistentWorkTileInfoField,
                                                       StaticPersistentWorkTileInfoFieldAttr)
from tileorch.dialects.cutlass.scheduler_types import (StaticPersistentParamsType, StaticPersistentWorkTileInfoType,
                                                       StreamKParamsType, StreamKWorkTileInfoType, TileSchedulerType)
from tileorch.dialects.cutlass.types import PipelineType
from tileorch.kernels.gemm.config import TRANSFORM_BARRIER, WGMMA_TYPES, GemmConfig

SWIZZLE_LAYOUT = {128: 1, 64: 2, 32: 3}
"""WGMMA descriptor layout type (bits 62-63) of each swizzle span in bytes (128B, 64B, 32B)."""
EPILOGUE_BARRIER = 14
"""Named barrier 14 syncs the one consumer body's epilogue over every consumer warp group (:func:`shared_consumer`);
with a body per warp group, 14 and 15 sync each group's own (claimed by ``cutlass-allocate-barrier-ids`` from the
constant ids)."""

GENERIC_PTR = nvvm.PTR
SHARED_PTR = nvvm.PTR_SHARED
GLOBAL_PTR = nvvm.PTR_GLOBAL
CLUSTER_PTR = nvvm.PTR_SHARED_CLUSTER
TMAP_ATTRS = DictionaryAttr({
    "llvm.byval": llvm.LLVMArrayType(128, i8),
    "llvm.align": IntegerAttr(64, i64),
    "nvvm.grid_constant": UnitAttr(),
})
"""A tensor map parameter: a grid-constant 128-byte byval struct (``CUtensorMap``)."""


def descriptor_constant(lbo_bytes: int, sbo_bytes: int, swizzle: int = 128) -> int:
    """The constant bits of a ``swizzle``-byte swizzled WGMMA shared-memory descriptor (128, 64, 32)."""
    return ((lbo_bytes >> 4) << 16) | ((sbo_bytes >> 4) << 32) | (SWIZZLE_LAYOUT[swizzle] << 62)


# --------------------------------------------------------------------------- op helpers
# Each appends its op to the innermost ImplicitBuilder block and returns the result.


def _named(value: SSAValue, name: str) -> SSAValue:
    """``value``, printed as ``%name`` (the printed kernel stays readable)."""
    value.name_hint = name
    return value


def _const(value: int, typ: Attribute = i32, name: str | None = None) -> SSAValue:
    result = arith.ConstantOp(IntegerAttr(value, typ)).result
    return _named(result, name) if name else result


def _add(a: SSAValue, b: SSAValue) -> SSAValue:
    return arith.AddiOp(a, b).result


def _mul(a: SSAValue, b: SSAValue) -> SSAValue:
    return arith.MuliOp(a, b).result


def _gep(base: SSAValue, offset: SSAValue, element: Attribute = i8) -> SSAValue:
    """``base + offset`` elements of ``element`` (a dynamic index), in ``base``'s address space."""
    return llvm.GEPOp(base, [llvm.GEP_USE_SSA_VAL], element, ssa_indices=[offset], result_type=base.type).result


def _to_cluster(ptr: SSAValue) -> SSAValue:
    """A shared pointer as the ``shared::cluster`` address a TMA load writes to."""
    return llvm_ext.AddrSpaceCastOp(ptr, CLUSTER_PTR).result


@contextmanager
def _if(cond: SSAValue) -> Iterator[None]:
    """``scf.if cond { <body> }`` (no results, no else)."""
    block = Block()
    with ImplicitBuilder(block):
        yield
        scf.YieldOp()
    scf.IfOp(cond, [], Region(block))


@contextmanager
def _exec(executor: str, mask: int, max_regs: int | None = None) -> Iterator[None]:
    """``cutlass.async.exec executor mask(mask) [regs(max_regs)] { <body> }``."""
    block = Block()
    with ImplicitBuilder(block):
        yield
    AsyncExecOp(executor, mask, Region(block), max_regs)


# --------------------------------------------------------------------------- the kernel


@dataclass(frozen=True)
class _Types:
    """The scheduler/pipeline types of a configuration (``dp`` walks tiles with the
    static-persistent scheduler: one CTA per tile is the grid the host launches).  The params
    type says ``raster = heuristic``: the order ``cfg.raster`` picks is in the params record the
    host builds (:func:`tileorch.launchers.gemm_host.scheduler_params`)."""

    streamk: bool
    params: Attribute
    scheduler: Attribute
    work: Attribute
    state: Attribute
    pipeline: PipelineType
    acc: Attribute

    @staticmethod
    def of(cfg: GemmConfig) -> _Types:
        streamk = cfg.schedule == "streamk"
        cga = (cfg.cluster_m, 1, 1)
        params = StreamKParamsType(cga, "heuristic") if streamk else StaticPersistentParamsType(cga, "heuristic")
        pipe = PipelineType(cfg.stages, 1, 1 if shared_consumer(cfg) else cfg.consumer_groups)
        return _Types(
            streamk=streamk,
            params=params,
            scheduler=TileSchedulerType("streamk" if streamk else "static_persistent"),
            work=StreamKWorkTileInfoType() if streamk else StaticPersistentWorkTileInfoType(),
            state=pipe.state_type(),
            pipeline=pipe,
            acc=llvm.LLVMStructType.from_type_list([accumulator_element(cfg)] * cfg.accumulators),
        )


SHARED_CONSUMER_ENV = "TILEORCH_GEMM_SHARED_CONSUMER"


def shared_consumer(cfg: GemmConfig) -> bool:
    """Whether the kernel's consumer warp groups run one body (``TILEORCH_GEMM_SHARED_CONSUMER=1``, the default;
    ``=0`` gives each warp group a body of its own):
    one ``cutlass.async.exec`` over all of them, one consumer group of the pipeline (each warp group still
    releases a stage on its own), the warp group's A rows, C rows and epilogue buffer offsets computed from
    ``%tid`` at run time, and one named barrier over all of them in the TMA epilogue.  The compiler then
    lowers, translates and assembles the K loop and the epilogue once instead of once per warp group
    (``benchmarks/gemm_consumer_copies.py``: ptxas ~0.23 -> ~0.13 s for a 128x256 tile).  Taken by a
    plain GEMM with two consumer warp groups (not stream-K, whose fix-up names a barrier per warp group; not
    the configurations with a second dot, register or computed operands or K segments: their per-group code
    is left as it is)."""
    return (cfg.consumer_groups > 1 and cfg.schedule != "streamk"
            and not (cfg.epi_n or cfg.lora_rank or cfg.epi_loop or cfg.a_regs or cfg.b_raw or cfg.a_raw or cfg.k_segments)
            and settings.value(SHARED_CONSUMER_ENV) == "1")


def shared_consumer_remark(cfg: GemmConfig) -> str:
    """What ``TILEORCH_GEMM_SHARED_CONSUMER=1`` (the default) did to ``cfg``'s kernel (``""`` when it is 0 or the
    kernel has one consumer warp group)."""
    if cfg.consumer_groups == 1 or settings.value(SHARED_CONSUMER_ENV) != "1":
        return ""
    if shared_consumer(cfg):
        return (f"the {cfg.consumer_groups} consumer warp groups run one body ({SHARED_CONSUMER_ENV}=1: the warp "
                "group's rows and epilogue buffer from %tid at run time; the K loop and the epilogue compiled once)")
    why = ("stream-K's fix-up names a barrier per warp group" if cfg.schedule == "streamk" else
           "the kernel has a second dot, register or computed operands or K segments")
    return f"one body per consumer warp group ({SHARED_CONSUMER_ENV}=1 not taken: {why})"


def consumer_masks(cfg: GemmConfig) -> list[int]:
    """The pipeline's consumer groups: each consumer warp group alone, or all of them (one shared body)."""
    if shared_consumer(cfg):
        return [(1 << (cfg.consumer_groups + 1)) - 2]
    return [1 << (w + 1) for w in range(cfg.consumer_groups)]


def _acc_type(cfg: GemmConfig, n: int) -> Attribute:
    """The register struct of an ``m64n{n}`` accumulator (``n / 2`` per thread)."""
    return llvm.LLVMStructType.from_type_list([accumulator_element(cfg)] * (n // 2))


def accumulator_element(cfg: GemmConfig) -> Attribute:
    """The type of one accumulator register: i32 for s8/u8 inputs, else f32."""
    return IntegerType(32) if cfg.acc_type == "s32" else f32


def accumulator_wgmma_type(cfg: GemmConfig) -> nvp.WGMMAType:
    """The WGMMA D type of ``cfg``'s accumulator (:data:`WGMMA_TYPES`)."""
    return nvp.WGMMAType(cfg.acc_type)


@dataclass
class _Kernel:
    """The configuration, its types and the function-level values every agent reads."""

    cfg: GemmConfig
    t: _Types
    tmap_a: SSAValue
    tmap_b: SSAValue
    tmap_c: SSAValue
    c: SSAValue
    m: SSAValue
    n: SSAValue
    params: SSAValue
    smem: SSAValue
    ready: SSAValue
    c0: SSAValue
    c1: SSAValue
    c64: SSAValue
    c_tile_k: SSAValue
    c8192: SSAValue
    """The bytes of one 64-column chunk of an M/N-major operand (8192 for a 64-row K tile of 16-bit
    elements: ``cfg.mn_chunk_bytes``)."""
    bm: SSAValue
    bn_tile: SSAValue
    stage_bytes: SSAValue
    a_bytes: SSAValue
    tid: SSAValue
    k_tiles: SSAValue
    tmap_more_b: tuple = ()
    """The tensor maps of the B operands after the first (``cfg.b_operands > 1``)."""
    ldc: SSAValue | None = None
    """C's row stride in elements (``cfg.c_ld``: C a column slice of a wider array); else C's is N."""
    tmap_e: SSAValue | None = None
    """The tensor map of the second dot's B operand (``cfg.epi_n``)."""
    epi_ready: SSAValue | None = None
    """The pipeline (``cfg.epi_stages``) handing the second dot's B tiles from the producer to the consumers."""
    epi_c: SSAValue | None = None
    """The N tiles of C per work tile (``cfg.epi_loop``: the kernel's parameter after E's tensor map)."""
    tmap_more_a: tuple = ()
    """The tensor maps of the A operands after the first (``cfg.a_operands > 1``: an A per dot)."""
    segment_tiles: tuple = ()
    """The K tiles of each pair's K segment (``cfg.k_segments``): ``k_tiles``, then each later pair's from its ``k<i>``."""
    tmap_kv: tuple = ()
    """The tensor maps of the TMA-loaded K vectors (``cfg.kvecs``), the kernel's last parameters."""

    def epi_tiles(self, tn: SSAValue) -> tuple[SSAValue, SSAValue]:
        """``(first, end)``: the N tiles of C work tile column ``tn`` covers (``cfg.epi_loop``): ``tn epi_c`` up to
        ``min(tn epi_c + epi_c, ceil(N / epi_n))``."""
        cfg = self.cfg
        first = _named(_mul(tn, self.epi_c), "etile0")
        tiles = arith.DivUIOp(_add(self.n, _const(cfg.epi_n - 1)), _const(cfg.epi_n)).result
        return first, _named(arith.MinSIOp(_add(first, self.epi_c), tiles).result, "etile_end")

    @property
    def tmaps_b(self) -> list[SSAValue]:
        return [self.tmap_b, *self.tmap_more_b]

    @property
    def tmaps_a(self) -> list[SSAValue]:
        return [self.tmap_a, *self.tmap_more_a]

    # -- tile scheduler
    def scheduler(self) -> tuple[SSAValue, SSAValue]:
        """``(scheduler, first work tile)`` built from the grid-constant params."""
        create = ts.CreateStreamKParamsOp if self.t.streamk else ts.CreateStaticPersistentParamsOp
        sched = create(operands=[self.params, []], result_types=[self.t.scheduler]).results[0]
        first = ts.InitialWorkTileInfoOp(operands=[sched], result_types=[self.t.work]).results[0]
        return _named(sched, "sched"), _named(first, "first")

    def valid(self, sched: SSAValue, w: SSAValue) -> SSAValue:
        """Whether work unit ``w`` exists (the walk's loop condition)."""
        if self.t.streamk:
            count = ts.GetWorkKTileCountOp(operands=[sched, w], result_types=[i32]).results[0]
            return arith.CmpiOp(count, self.c0, "sgt").result
        field = StaticPersistentWorkTileInfoFieldAttr(StaticPersistentWorkTileInfoField.IS_VALID_TILE)
        return ts.WorkTileInfoGetValueOp(operands=[w], result_types=[i1], properties={"field": field}).results[0]

    def k_range(self, sched: SSAValue, w: SSAValue) -> tuple[SSAValue, SSAValue]:
        """``(kbeg, kend)``: the K tiles of work unit ``w``."""
        if self.t.streamk:
            kbeg = ts.GetWorkKTileStartOp(operands=[sched, w], result_types=[i32]).results[0]
            kcnt = ts.GetWorkKTileCountOp(operands=[sched, w], result_types=[i32]).results[0]
            return _named(kbeg, "kbeg"), _named(_add(kbeg, kcnt), "kend")
        return _const(0, name="kbeg"), _named(_add(self.k_tiles, self.c0), "kend")

    def advance(self, sched: SSAValue, w: SSAValue) -> SSAValue:
        """The next work unit after ``w``."""
        op = ts.FetchNextWorkOp if self.t.streamk else ts.StaticFetchNextWorkOp
        return op(operands=[sched, w], result_types=[self.t.work, i1]).results[0]

    def walk(self, sched: SSAValue, first: SSAValue, start: SSAValue, body, role: str = "") -> SSAValue:
        """``scf.while`` over the work units from ``first``, threading a pipeline state from
        ``start``; ``body(w, s) -> s_out`` builds one unit's work.  Returns the last state.  With a second
        dot on the accumulator (``cfg.epi_n``) the loop also threads the state of :attr:`epi_ready` (its
        ``role``'s, from a fresh one): ``body(w, s, e) -> (s_out, e_out)``, and returns both last states."""
        t = self.t
        types = [t.work, t.state]
        inits = [first, start]
        if self.epi_ready is not None:
            types.append(self.epi_ready.type.state_type())
            inits.append(_named(pl.StateCreateOp(self.epi_ready, role).results[0], "estart"))
        before = Block(arg_types=types)
        with ImplicitBuilder(before) as (w, *s):
            _named(w, "w"), _named(s[0], "s")
            scf.ConditionOp(self.valid(sched, w), w, *s)
        after = Block(arg_types=types)
        with ImplicitBuilder(after) as (w, *s):
            _named(w, "w"), _named(s[0], "s")
            outs = body(w, *s)
            scf.YieldOp(self.advance(sched, w), *(outs if isinstance(outs, tuple) else (outs,)))
        loop = scf.WhileOp(inits, types, Region(before), Region(after))
        return (loop.results[1], loop.results[2]) if self.epi_ready is not None else loop.results[1]

    def coords(self, w: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
        """``(m, n, l)``: the tile coordinates (in tiles) and batch index of work unit ``w``."""
        coord = ts.WorkTileInfoToCoordMNKLOp(operands=[w], result_types=[i32] * 4).results
        for value, name in zip(coord, ("tm", "tn", "tk", "tl")):
            _named(value, name)
        return coord[0], coord[1], coord[3]

    def box(self, *coords: SSAValue, batch: SSAValue | None) -> list[SSAValue]:
        """A TMA box coordinate list; a batched kernel appends the work tile's batch index."""
        return [*coords, batch] if self.cfg.batched else list(coords)


def _tma_load(k: _Kernel, tmap: SSAValue, offset: SSAValue, coords: list[SSAValue], fb: SSAValue, tx_bytes: int,
              name: str, mcast: SSAValue | None = None) -> None:
    """One TMA tile load into shared memory at ``smem + offset`` completing on ``fb``;
    ``cutlass.tx_bytes`` states the box's bytes (its shape lives in the host's tensor map)."""
    dst = _named(_to_cluster(_gep(k.smem, offset)), name)
    load = nvp.CpAsyncBulkTensorGlobalToSharedClusterOp(dst, tmap, coords, fb, mcast)
    load.attributes["cutlass.tx_bytes"] = IntegerAttr(tx_bytes, i32)


def _a_loads(k: _Kernel, a_off: SSAValue, kc: SSAValue, m0: SSAValue, fb: SSAValue, tl: SSAValue,
             tmap: SSAValue | None = None, suffix: str = "") -> None:
    """TMA loads of the A tile through ``tmap`` (A's own by default; A ``i``'s for an A per dot): one ``[tile_m, tile_k]`` box (A ``[M, K]``, K-major) or, for A stored
    ``[K, M]`` (M-major), ``tile_m / 64`` boxes of ``tile_k`` K rows x 64 M columns, box j at
    + ``mn_chunk_bytes * j`` (warp group j's 64 rows); none for a gathered A (``cfg.a_gather``)."""
    cfg = k.cfg
    if cfg.a_gather:  # the consumers load a gathered A's elements themselves
        return
    if cfg.a_raw:
        _raw_a_loads(k, a_off, kc, m0, fb, tl)
        return
    tmap = k.tmap_a if tmap is None else tmap
    if cfg.a_major == "k":
        _tma_load(k, tmap, a_off, k.box(kc, m0, batch=tl), fb, cfg.a_stage_bytes, f"adst{suffix}")
        return
    chunk = cfg.mn_chunk_bytes
    for j in range(cfg.tile_m // 64):
        row = _named(_add(m0, _const(64 * j)), f"arow{suffix}{j}")
        off = _named(_add(a_off, _const(chunk * j)), f"aoff{suffix}{j}")
        _tma_load(k, tmap, off, k.box(row, kc, batch=tl), fb, chunk, f"adst{suffix}{j}")


def _b_loads(k: _Kernel, b_off: SSAValue, kc: SSAValue, n0: SSAValue, fb: SSAValue, tl: SSAValue,
             rank: SSAValue, mcast: SSAValue | None, tmap: SSAValue | None = None, suffix: str = "",
             tile_n: int = 0) -> None:
    """TMA loads of this CTA's slice of the B tile (multicast to the cluster when cluster_m > 1)
    through ``tmap`` (B's own by default), ``tile_n`` (``cfg.tile_n`` unless given: a low-rank branch's
    ``cfg.lora_rank``) N wide."""
    cfg = k.cfg
    tmap = k.tmap_b if tmap is None else tmap
    tile_n = tile_n or cfg.tile_n
    if cfg.b_shared:  # one B matrix for every batch: its map holds matrix 0 only
        tl = _const(0)
    if cfg.b_raw:
        _raw_b_loads(k, b_off, kc, n0, fb, tl, tmap)
        return
    if cfg.b_major == "k":
        # B [N, K]: the tile is tile_n rows of k_row_bytes; CTA rank r loads rows r*slice ...
        slice_rows = tile_n // cfg.cluster_m
        bn = _named(_add(n0, _mul(rank, _const(slice_rows))), "bn")
        off = _named(_add(b_off, _mul(rank, _const(slice_rows * cfg.k_row_bytes))), "bs_off")
        _tma_load(k, tmap, off, k.box(kc, bn, batch=tl), fb, slice_rows * cfg.k_row_bytes, f"bdst{suffix}", mcast)
        return
    # B [K, N]: 64-column chunks of tile_k K rows x 128 bytes, chunk j at + mn_chunk_bytes * j.
    chunks = tile_n // 64 // cfg.cluster_m
    chunk0 = _named(_mul(rank, _const(chunks)), "bchunk0")
    for j in range(chunks):
        bj = _add(chunk0, _const(j))
        col = _named(_add(n0, _mul(bj, k.c64)), f"bcol{suffix}{j}")
        off = _named(_add(b_off, _mul(bj, k.c8192)), f"boff{suffix}{j}")
        _tma_load(k, tmap, off, k.box(col, kc, batch=tl), fb, cfg.mn_chunk_bytes, f"bdst{suffix}{j}", mcast)


def _raw_b_loads(k: _Kernel, b_off: SSAValue, kc: SSAValue, n0: SSAValue, fb: SSAValue, tl: SSAValue,
                 tmap: SSAValue) -> None:
    """TMA loads of a computed B's raw tile (``cfg.b_raw``), unswizzled, after the stage's B operand
    tile: K-major B ``[N, K]`` one box of ``tile_n`` rows x ``tile_k`` raw elements; N-major B
    ``[K, N]`` ``tile_n / 64`` boxes of ``tile_k`` K rows x 64 raw elements, box j at
    ``+ tile_k * 64 * raw bytes * j``."""
    cfg = k.cfg
    raw = _named(_add(b_off, _const(cfg.b_stage_bytes)), "braw_dst")
    if cfg.b_major == "k":
        _tma_load(k, tmap, raw, k.box(kc, n0, batch=tl), fb, cfg.b_raw_bytes, "bdst")
        return
    chunk = cfg.tile_k * 64 * cfg.raw_element_bytes
    for j in range(cfg.tile_n // 64):
        col = _named(_add(n0, _const(64 * j)), f"bcol{j}")
        off = _named(_add(raw, _const(chunk * j)), f"boff{j}")
        _tma_load(k, tmap, off, k.box(col, kc, batch=tl), fb, chunk, f"bdst{j}")


def _raw_a_loads(k: _Kernel, a_off: SSAValue, kc: SSAValue, m0: SSAValue, fb: SSAValue, tl: SSAValue) -> None:
    """TMA loads of a computed A's raw tile (``cfg.a_raw``), unswizzled (a register A's: swizzled by its K row,
    ``cfg.a_raw_swizzle``, in the host's tensor map), at ``cfg.a_raw_offset`` in the
    stage: K-major A ``[M, K]`` one box of ``tile_m`` rows x ``tile_k`` raw elements; M-major A
    ``[K, M]`` ``tile_m / 64`` boxes of ``tile_k`` K rows x 64 raw elements, box j at
    ``+ tile_k * 64 * raw bytes * j``."""
    cfg = k.cfg
    raw = _named(_add(a_off, _const(cfg.a_raw_offset)), "araw_dst")
    if cfg.a_major == "k":
        _tma_load(k, k.tmap_a, raw, k.box(kc, m0, batch=tl), fb, cfg.a_raw_bytes, "adst")
        return
    chunk = cfg.tile_k * 64 * cfg.a_raw_element_bytes
    for j in range(cfg.tile_m // 64):
        row = _named(_add(m0, _const(64 * j)), f"arow{j}")
        off = _named(_add(raw, _const(chunk * j)), f"aoff{j}")
        _tma_load(k, k.tmap_a, off, k.box(row, kc, batch=tl), fb, chunk, f"adst{j}")


def _kvec_offset(k: _Kernel, idx: SSAValue, v: int) -> SSAValue:
    """The byte offset in shared memory of K vector ``v``'s box in stage ``idx`` (``cfg.kvecs``)."""
    cfg = k.cfg
    return _add(_mul(idx, _const(cfg.kvec_stage_bytes)), _const(cfg.kvec_offset + cfg.kvec_slot(v)))


def _kvec_loads(k: _Kernel, idx: SSAValue, fb: SSAValue) -> None:
    """The TMA loads of the K vectors a computed operand's map reads (``cfg.kvecs``) into stage ``idx``'s
    vector slots, completing on the stage's barrier ``fb``: one box of a 2-D map each (the vector's
    elements, then 1), at placeholder coordinates ``%kvcoord<v>x`` (innermost) and ``%kvcoord<v>y``
    the tier replaces by the program's index of the load (:mod:`tileorch.transforms.tileas.k_vector_tma`)."""
    for v, (tmap, nbytes) in enumerate(zip(k.tmap_kv, k.cfg.kvec_box_bytes)):
        off = _named(_kvec_offset(k, idx, v), f"kvdst_off{v}")
        coords = [_const(0, name=f"kvcoord{v}{d}") for d in "xy"]
        _tma_load(k, tmap, off, coords, fb, nbytes, f"kvdst{v}")


def _kvec_slots(k: _Kernel, idx: SSAValue) -> None:
    """``%kvec_off<v>``: where the consumers read K vector ``v`` of stage ``idx`` (after their wait on it)."""
    for v in range(len(k.tmap_kv)):
        _named(_kvec_offset(k, idx, v), f"kvec_off{v}")


def _producer(k: _Kernel) -> None:
    """Warp group 0 gives registers back; its warp 0 walks the tiles and one elected thread
    issues the TMA loads of each stage."""
    cfg, t = k.cfg, k.t
    with _exec("warpgroup", 0x1, cfg.producer_regs), _exec("warp", 0x1):
        leader = _named(nvvm.ElectSyncOp().results[0], "leader")
        with _if(leader):
            if not cfg.a_gather:  # (a gathered A has no tensor map of its own)
                for tmap in k.tmaps_a:
                    nvp.PrefetchOp(tmap)
            for tmap in [*k.tmaps_b, *([k.tmap_e] if cfg.epi_n else []), *k.tmap_kv]:
                nvp.PrefetchOp(tmap)
        rank = _named(nvvm.SPECIAL_REGISTERS["cluster.ctarank"]().results[0], "rank")
        mcast = _const((1 << cfg.cluster_m) - 1, i16, "mcast") if cfg.cluster_m > 1 else None
        sched, first = k.scheduler()
        start = _named(pl.StateCreateOp(k.ready, "producer").results[0], "start")

        def unit(w: SSAValue, s: SSAValue, e: SSAValue | None = None):
            tm, tn, tl = k.coords(w)
            m0 = _named(_mul(tm, k.bm), "m0")
            # a second dot (cfg.epi_n): the first dot's B is the whole [K, tile_n] column block (with a low-rank
            # branch, cfg.lora_rank, B operand 1 is: B 0 is the main dot's, at the work tile's column)
            n0 = _const(0, name="n0") if cfg.epi_n and not cfg.lora_rank else _named(_mul(tn, k.bn_tile), "n0")
            kbeg, kend = k.k_range(sched, w)

            def k_loop(lo: SSAValue, hi: SSAValue, s_in: SSAValue, pairs: list[int], origin: SSAValue | None):
                """The producer's K steps ``lo .. hi - 1`` loading operand pairs ``pairs`` (all of them; one, from
                the stage's first slots, for a K segment: ``cfg.k_segments``, its K tiles counted from ``origin``),
                into one stage per K step, or one stage per pair (``cfg.pair_stages``: pair 0's, pair 1's, ...)."""
                body = Block(arg_types=[i32, t.state])
                with ImplicitBuilder(body) as (kt, st):
                    _named(kt, "kt"), _named(st, "st")
                    for group in ([[i] for i in pairs] if cfg.pair_stages else [pairs]):
                        st = fill(kt, st, group, origin)
                    scf.YieldOp(st)
                return scf.ForOp(lo, hi, k.c1, [s_in], Region(body)).results[0]

            def fill(kt: SSAValue, st: SSAValue, pairs: list[int], origin: SSAValue | None) -> SSAValue:
                """Stage ``st`` filled with K tile ``kt`` of operand pairs ``pairs`` (from the stage's first slots);
                returns the state after it."""
                # wait until every consumer (of every CTA reading this stage) has released it
                pl.ProducerAcquireOp(k.ready, st)
                with _if(leader):
                    fb = _named(pl.GetProducerBarrierOp(k.ready, st).results[0], "fb")
                    idx = _named(pl.StateGetIndexOp(st).results[0], "idx")
                    a_off = _named(_mul(idx, k.stage_bytes), "a_off")
                    b_off = _named(_add(a_off, k.a_bytes), "b_off")
                    kc = _named(_mul(kt if origin is None else arith.SubiOp(kt, origin).result, k.c_tile_k), "kc")
                    a_maps = [(i, k.tmaps_a[i]) for i in pairs if i < len(k.tmaps_a)]
                    for slot, (i, tmap) in enumerate(a_maps):  # A i's tile follows A i-1's (an A per dot)
                        off = a_off if slot == 0 else _named(_add(a_off, _const(slot * cfg.a_stage_bytes)),
                                                             f"a{i}_off")
                        _a_loads(k, off, kc, m0, fb, tl, tmap, "" if i == 0 else f"_{i}_")
                    b_maps = [(i, k.tmaps_b[i]) for i in pairs if i < len(k.tmaps_b)]
                    for slot, (i, tmap) in enumerate(b_maps):  # B i's tile follows B i-1's in the stage
                        off = b_off if slot == 0 else _named(_add(b_off, _const(slot * cfg.b_stage_bytes)),
                                                             f"b{i}_off")
                        low_rank = cfg.lora_rank and i == 1  # (its column block 0, lora_rank wide)
                        _b_loads(k, off, kc, _const(0, name="lora_n0") if low_rank else n0, fb, tl, rank, mcast,
                                 tmap, "" if i == 0 else f"_{i}_", cfg.b_tile_ns[i])
                    _kvec_loads(k, idx, fb)
                # the elected thread arrives expecting the stage's bytes (all A tiles + all B slices)
                pl.ProducerCommitOp(k.ready, st, cfg.tx_bytes)
                return pl.StateIncrementOp(st).results[0]

            if cfg.k_segments:  # the pairs' K loops one after the other, the pipeline's state carried across
                after, lo = s, kbeg
                for i, n_i in enumerate(k.segment_tiles):
                    hi = _named(_add(lo, n_i), f"kseg{i}_end")
                    after = k_loop(lo, hi, after, [i], lo)
                    lo = hi
            else:
                after = k_loop(kbeg, kend, s, list(range(cfg.pairs)), None)
            if cfg.epi_loop:  # E's tiles of the work tile's N tiles, one per stage of its pipeline
                t0, t_end = k.epi_tiles(tn)
                loads = Block(arg_types=[i32, e.type])
                with ImplicitBuilder(loads) as (j, est):
                    _named(j, "etile"), _named(est, "est")
                    scf.YieldOp(_epi_b_load(k, est, j, leader))
                return after, scf.ForOp(t0, t_end, k.c1, [e], Region(loads)).results[0]
            return (after, _epi_b_load(k, e, tn, leader)) if cfg.epi_n else after

        last = k.walk(sched, first, start, unit, "producer")
        if cfg.epi_n:  # (E's pipeline: its last stage released before the producer leaves)
            last, epi_last = last
            pl.ProducerTailOp(k.epi_ready, epi_last)
        # drain: no CTA of the cluster may exit while its multicast loads are in flight
        pl.ProducerTailOp(k.ready, last)


def _wgmma_steps(k: _Kernel, acc: SSAValue, da_stage: SSAValue, db_stage: SSAValue, c0_i64: SSAValue,
                 frags: list[list[SSAValue]] | None = None, n: int = 0, fresh: bool = False) -> SSAValue:
    """The ``tile_k / mma_k`` WGMMAs ``m64n{n}`` (``n``: ``cfg.tile_n`` unless given) of one stage; returns the
    accumulator after the last.  ``frags`` (``cfg.a_regs``): each step's four A registers, the WGMMAs' register
    A operand.  ``fresh``: the first WGMMA starts a new accumulator (scale-d 0, no accumulator operand: registers
    of its own, nothing zeroed; ``acc`` gives the type only: a promotion block's first, ``cfg.fp8_promote``)."""
    cfg = k.cfg
    n = n or cfg.tile_n
    # per WGMMA (32 bytes of K), in 16-B descriptor units: 32 B along a K-major row (any swizzle
    # span: the descriptor's start address is the unswizzled one), 16 rows of 128 B (2 KiB) across
    # an M/N-major tile
    k_step_a = 2 if cfg.a_major == "k" else 128
    k_step_b = 2 if cfg.b_major == "k" else 128
    layout_a = nvp.MMALayout.ROW if cfg.a_major == "k" else nvp.MMALayout.COL
    layout_b = nvp.MMALayout.COL if cfg.b_major == "k" else nvp.MMALayout.ROW
    # the operand types of the instruction (WGMMA_TYPES: e.g. u8 x s8 with an s32 accumulator)
    ta, tb = nvp.WGMMAType(WGMMA_TYPES[cfg.dtype][0]), nvp.WGMMAType(WGMMA_TYPES[cfg.dtype_b][0])
    steps = cfg.tile_k // cfg.mma_k
    ka = [c0_i64] + [_const(k_step_a * j, i64, f"ka{j}") for j in range(1, steps)]
    kb = [c0_i64] + [_const(k_step_b * j, i64, f"kb{j}") for j in range(1, steps)]
    properties = {
        "shape": nvp.MMAShapeAttr(64, n, cfg.mma_k),
        "typeA": nvp.WGMMATypeAttr(ta), "typeB": nvp.WGMMATypeAttr(tb),
        "typeD": nvp.WGMMATypeAttr(accumulator_wgmma_type(cfg)),
        "scaleD": nvp.WGMMAScaleOutAttr(nvp.WGMMAScaleOut.ONE),
        "scaleA": nvp.WGMMAScaleInAttr(nvp.WGMMAScaleIn.ONE), "scaleB": nvp.WGMMAScaleInAttr(nvp.WGMMAScaleIn.ONE),
        "layoutA": nvp.MMALayoutAttr(layout_a), "layoutB": nvp.MMALayoutAttr(layout_b),
    }
    for j in range(steps):
        if frags is not None:  # A from registers
            db = _named(_add(db_stage, kb[j]), f"db{j}")
            acc = nvp.WgmmaMmaAsyncRegisterAOp(frags[j], db, acc, n, ta, layout_b).results[0]
            _named(acc, f"d{j}")
            continue
        da = _named(_add(da_stage, ka[j]), f"da{j}")
        db = _named(_add(db_stage, kb[j]), f"db{j}")
        if fresh and j == 0:
            acc = nvp.WgmmaMmaAsyncOp.build(operands=[[], da, db], result_types=[acc.type], properties={
                **properties, "scaleD": nvp.WGMMAScaleOutAttr(nvp.WGMMAScaleOut.ZERO)}).results[0]
            _named(acc, f"d{j}")
            continue
        acc = nvp.WgmmaMmaAsyncOp.build(operands=[[acc], da, db], result_types=[acc.type],
                                        properties=dict(properties)).results[0]
        _named(acc, f"d{j}")
    return acc


def _epilogue(k: _Kernel, wg: int | None, res: SSAValue, row0: SSAValue, n0: SSAValue, tl: SSAValue,
              ebuf: SSAValue, wg_leader: SSAValue) -> None:
    """Store the warp group's 64 x tile_n slice of C starting at (row0, n0) (``wg`` None: the body every consumer
    warp group runs, :func:`shared_consumer`).

    TMA epilogue: ``out_tile_n / 64`` rounds through two 8 KiB staging slots (double buffering):
    before round ``r`` writes slot ``r % 2`` the elected thread waits until at most one bulk
    group is still reading (the previous round's, in the other slot), so round ``r - 2``'s store has left the
    slot; round 0 after an odd number of rounds (the previous tile's last round wrote slot 0 too) waits until
    none is."""
    cfg = k.cfg
    dtype = StringAttr(cfg.out_dtype)
    if cfg.epilogue in ("direct", "atomic"):  # atomic: the tier lowering replaces the store by its adds
        base = k.c
        if cfg.batched:  # C is [L, M, N] contiguous: matrix l starts l * M * N elements in
            esize = 4 if cfg.out_dtype in ("f32", "s32") else 1 if cfg.out_dtype in ("e4m3", "e5m2", "s8") else 2
            # (C batched in its middle dimension, [M, L, N]: matrix l is the column block at l * N of rows ldc apart)
            mn = arith.ExtUIOp(k.n if "c" in cfg.batch_mid else arith.MuliOp(k.m, k.n).result, i64).result
            off = arith.MuliOp(arith.ExtUIOp(tl, i64), mn).result
            base = _named(_gep(k.c, off, IntegerType(8 * esize)), "c_b")
        ld = k.ldc if k.ldc is not None else k.n  # C's row stride: N, or a wider array's (cfg.c_ld)
        StoreFragmentOp(operands=[res, base, row0, n0, k.m, k.n, ld], properties={"dtype": dtype})
        return
    # (a shared body: one barrier over both warp groups, which store the same tiles' rounds together)
    barrier, threads = (EPILOGUE_BARRIER, 128 * cfg.consumer_groups) if wg is None else (EPILOGUE_BARRIER + wg, 128)
    rounds = cfg.out_tile_n // 64  # (C's tile: a second dot's epi_n columns)
    for r in range(rounds):
        with _if(wg_leader):
            nvvm.CpAsyncBulkWaitGroupOp(1 if r or rounds % 2 == 0 else 0, read=True)
        NamedBarrierArriveAndWaitOp(barrier, threads)
        slot = _named(_gep(ebuf, _const(8192 * (r % 2))), f"eslot{r}")
        StageFragmentOp(operands=[res, slot], properties={
            "first_column": IntegerAttr(64 * r, i64), "columns": IntegerAttr(64, i64), "dtype": dtype})
        # generic-proxy writes must be visible to the TMA (async proxy) before the store
        nvvm.FenceProxyOp(nvvm.ProxyKind.ASYNC_SHARED, nvvm.SharedSpace.CTA)
        NamedBarrierArriveAndWaitOp(barrier, threads)
        with _if(wg_leader):
            col = _named(_add(n0, _const(64 * r)), f"ecol{r}")
            nvp.CpAsyncBulkTensorSharedCTAToGlobalOp(k.tmap_c, slot, k.box(col, row0, batch=tl))
            nvvm.CpAsyncBulkCommitGroupOp()


def _computed_b(k: _Kernel, idx: SSAValue) -> None:
    """The slot of a computed B (``cfg.b_raw``) and / or A (``cfg.a_raw``) in the consumer's K step:
    ``%braw_off`` and ``%bop_off`` (``%araw_off`` and ``%aop_off``), the byte offsets in shared memory
    of stage ``idx``'s raw tile and operand tile,
    where the tier inserts the program's ops computing the operand (every consumer thread its
    share); then each thread's ``fence.proxy.async.shared::cta`` (its generic-proxy writes before
    the WGMMAs' async-proxy reads) and named barrier :data:`TRANSFORM_BARRIER` over every consumer
    thread (the whole tile written before any warp group's WGMMAs read it).  The operand tile is
    free to rewrite: its stage was released after the WGMMAs that read it last had completed."""
    cfg = k.cfg
    so = _named(_mul(idx, k.stage_bytes), "bstage_off")
    if cfg.b_raw:
        bop = _named(_add(so, k.a_bytes), "bop_off")
        _named(_add(bop, _const(cfg.b_stage_bytes)), "braw_off")
    if cfg.a_raw and not cfg.a_regs:  # the A operand tile starts the stage; A's raw tile follows B's
        _named(_add(_named(_add(so, k.c0), "aop_off"), _const(cfg.a_raw_offset)), "araw_off")
    if cfg.b_raw or not cfg.a_regs:  # a staged operand tile: written by the generic proxy, read by WGMMA
        nvvm.FenceProxyOp(nvvm.ProxyKind.ASYNC_SHARED, nvvm.SharedSpace.CTA)
        NamedBarrierArriveAndWaitOp(TRANSFORM_BARRIER, 128 * cfg.consumer_groups)


def _register_a_slots(k: _Kernel, idx: SSAValue, retire) -> list[list[SSAValue]]:
    """A register A's slot in the consumer's K step (``cfg.a_regs``): ``%araw_rs_off``, the byte offset in
    shared memory of stage ``idx``'s raw A tile (its K rows swizzled by ``cfg.a_raw_swizzle``), where the
    tier reads the thread's elements and evaluates the program's ops (the previous K step's WGMMAs still
    running); then ``retire()`` (the previous batch completed: it read the A registers) and one
    placeholder ``i32`` per register of each WGMMA's A fragment, ``%afrag<j>q<q>`` (K step ``j`` of
    ``mma_k``, register ``q`` of 4), which the tier replaces by the values packed to the operand type
    (:mod:`tileorch.transforms.tileas.register_a_operand`)."""
    cfg = k.cfg
    so = _mul(idx, k.stage_bytes)
    _named(_add(so, _const(cfg.a_raw_offset)), "araw_rs_off")
    retire()
    return [[_const(0, name=f"afrag{j}q{q}") for q in range(4)] for j in range(cfg.tile_k // cfg.mma_k)]


def _register_copies(frags: list[list[SSAValue]], b: int) -> list[list[SSAValue]]:
    """B operand ``b``'s own copies (``mov.b32``, ``%acopy<b>f<j>q<q>``) of a register A's fragments: each
    in-flight WGMMA reads registers that no other instruction touches until it retires."""
    return [[_named(llvm.InlineAsmOp("mov.b32 $0, $1;", "=r,r", [r], [i32]).results[0], f"acopy{b}f{j}q{q}")
             for q, r in enumerate(f)] for j, f in enumerate(frags)]


def _release_previous(k: _Kernel, kt: SSAValue, kbeg: SSAValue, prev: SSAValue, in_flight: int,
                      first: bool = True) -> None:
    """Wait until at most ``in_flight`` WGMMA batches are pending (the previous K step's done), then
    release the previous K step's stage (not in a work unit's first step; ``first`` False: a later stage of
    the K step, ``cfg.pair_stages``, whose previous stage is the step's own, released unconditionally)."""
    nvvm.WgmmaWaitGroupSyncOp(in_flight)
    if not first:
        pl.ConsumerReleaseOp(k.ready, prev).attributes["cutlass.reads_retired"] = UnitAttr()
        return
    with _if(_named(arith.CmpiOp(kt, kbeg, "ne").result, "not_first")):
        release = pl.ConsumerReleaseOp(k.ready, prev)
        release.attributes["cutlass.reads_retired"] = UnitAttr()


def _consumer(k: _Kernel, wg: int | None) -> None:
    """Consumer warp group ``wg + 1``: rows ``64 wg .. 64 wg + 63`` of every tile; reads every stage.  ``wg``
    None: the one body of every consumer warp group (:func:`shared_consumer`), ``wg`` from ``%tid``."""
    cfg, t = k.cfg, k.t
    # K-major: rows of k_row_bytes, 8-row atoms SBO apart (the row's swizzle); M/N-major: 128-byte
    # swizzle, 64-column chunks LBO apart, 8 K rows (1 KiB) SBO apart
    k_desc = descriptor_constant(16, 8 * cfg.k_row_bytes, cfg.k_row_bytes)
    mn_desc = descriptor_constant(cfg.mn_chunk_bytes, 1024)
    a_desc = k_desc if cfg.a_major == "k" else mn_desc
    b_desc = k_desc if cfg.b_major == "k" else mn_desc
    shared = wg is None  # one body for every consumer warp group (shared_consumer): wg read at run time
    mask = (1 << (cfg.consumer_groups + 1)) - 2 if shared else 1 << (wg + 1)
    with _exec("warpgroup", mask, cfg.consumer_regs):
        wg_at = _named(arith.SubiOp(arith.ShRUIOp(k.tid, _const(7)).result, k.c1).result, "wg") if shared else None

        def per_wg(step: int, name: str | None = None) -> SSAValue:
            """``wg * step``: a constant, or the warp group's at run time (shared body)."""
            return _const(wg * step, name=name) if not shared else _named(_mul(wg_at, _const(step)), name or "wg_off")

        # WGMMA descriptors of stage 0; stage i is + i*stage_bytes/16; warp group wg's 64 rows of A
        # start 64 rows of tile_k elements in (K-major) or one 64-column chunk in (M-major)
        a0_ptr = _gep(k.smem, per_wg(64 * cfg.k_row_bytes))
        b0_ptr = _gep(k.smem, k.a_bytes)
        a0 = llvm.PtrToIntOp(a0_ptr, i64).results[0]
        b0 = llvm.PtrToIntOp(b0_ptr, i64).results[0]
        addr_mask = _const(262143, i64)
        c4_i64 = _const(4, i64)
        c0_i64 = _const(0, i64, "c0_i64")
        a0m = arith.AndIOp(a0, addr_mask).result
        b0m = arith.AndIOp(b0, addr_mask).result
        a0s = arith.ShRUIOp(a0m, c4_i64).result
        b0s = arith.ShRUIOp(b0m, c4_i64).result
        a_bits = _const(a_desc, i64)
        b_bits = _const(b_desc, i64)
        da_base = _named(arith.OrIOp(a0s, a_bits).result, "da_base")
        db_base = _named(arith.OrIOp(b0s, b_bits).result, "db_base")
        stage_units = _const(cfg.stage_bytes // 16, i64, "stage_units")
        row_wg = per_wg(64, "row_wg")
        t_in_wg = arith.AndIOp(k.tid, _const(127)).result
        wg_leader = _named(arith.CmpiOp(t_in_wg, k.c0, "eq").result, "wg_leader")
        ebuf_at = cfg.stages * cfg.stage_bytes  # (after the ring; each warp group's 64 rows of C staged apart)
        ebuf = _named(_gep(k.smem, _add(_const(ebuf_at), per_wg(64 * cfg.epilogue_columns * 2)) if shared else
                           _const(ebuf_at + wg * 64 * cfg.epilogue_columns * 2)), "ebuf")
        sched, first = k.scheduler()
        start = _named(pl.StateCreateOp(k.ready, "consumer").results[0], "start")
        zero = _named(llvm.ZeroOp(result_types=[t.acc]).results[0], "zero")

        def unit(w: SSAValue, s: SSAValue, e: SSAValue | None = None):
            tm, tn, tl = k.coords(w)
            kbeg, kend = k.k_range(sched, w)
            # mainloop: one wgmma batch stays in flight; the stage read by the previous batch is
            # released once that batch has completed (wait_group 1)
            # one accumulator per B operand (cfg.b_operands; one for all, cfg.one_accumulator): all of a K tile's
            # WGMMAs are one batch
            nacc = cfg.pairs  # (dots sharing B, cfg.b_operands 1: each pair reads B 0)
            acc_ns = cfg.b_tile_ns[:1] if cfg.one_accumulator else cfg.b_tile_ns * (nacc // cfg.b_operands)
            acc_types = [_acc_type(cfg, n) for n in acc_ns]

            def k_loop(lo: SSAValue, hi: SSAValue, inits: list[SSAValue], pairs: list[int],
                       unit_lo: SSAValue | None = None) -> list[SSAValue]:
                """The consumer's K steps ``lo .. hi - 1`` over operand pairs ``pairs`` (all; one, from the stage's
                first slots, for a K segment: ``cfg.k_segments``); returns the accumulators and the two states.
                ``unit_lo``: the work unit's first K step when ``lo`` is a later one (a promotion block's,
                ``cfg.fp8_promote``: no stage to release before ``unit_lo`` only)."""
                body = Block(arg_types=[i32, *acc_types, t.state, t.state])
                with ImplicitBuilder(body) as (kt, *accs, st, prev):
                    _named(kt, "kt"), _named(st, "st"), _named(prev, "prev")
                    for i, acc in enumerate(accs):
                        _named(acc, ("acc" if i == 0 else f"acc{i}") if not cfg.fp8_promote else "part")
                    accs = list(accs)
                    for g, group in enumerate([[i] for i in pairs] if cfg.pair_stages else [pairs]):
                        accs = step(kt, accs, st, prev, group, lo if unit_lo is None else unit_lo, g == 0)
                        st, prev = pl.StateIncrementOp(st).results[0], st
                    scf.YieldOp(*accs, st, prev)
                return list(scf.ForOp(lo, hi, k.c1, inits, Region(body)).results)

            def step(kt: SSAValue, accs: list[SSAValue], st: SSAValue, prev: SSAValue, pairs: list[int],
                     lo: SSAValue, first: bool, fresh: bool = False) -> list[SSAValue]:
                """The WGMMA batches of operand pairs ``pairs`` on stage ``st`` (from its first slots), then the
                previous stage ``prev`` released (not in the work unit's first K step, when ``first``: the
                step's first stage); returns the accumulators (``fresh``: started anew, :func:`_wgmma_steps`)."""
                pl.ConsumerWaitOp(k.ready, st)
                if k.tmap_kv:  # (cfg.kvecs)
                    _kvec_slots(k, pl.StateGetIndexOp(st).results[0])
                idx64 = arith.ExtUIOp(pl.StateGetIndexOp(st).results[0], i64).result
                soff = _mul(idx64, stage_units)
                da_stage = _named(_add(da_base, soff), "da_stage")
                db_stage = _named(_add(db_base, soff), "db_stage")
                if cfg.b_raw or (cfg.a_raw and not cfg.a_regs):
                    _computed_b(k, pl.StateGetIndexOp(st).results[0])
                frags = None
                if cfg.a_regs:  # the previous batch read the A registers: retired before they are rewritten
                    frags = _register_a_slots(k, pl.StateGetIndexOp(st).results[0],
                                              lambda: _release_previous(k, kt, kbeg, prev, 0))
                # a register A read by several B operands' WGMMAs: a copy of its registers per B after the first
                # (an in-flight WGMMA's A registers may not be read by another instruction, PTX ISA wgmma.mma_async)
                frags_of = [frags] + [_register_copies(frags, i) for i in range(1, nacc)] if frags else [None] * nacc
                nvvm.WgmmaFenceAlignedOp()
                acc_next = list(accs)
                for slot, i in enumerate(pairs):  # B i's tile is i * b_stage_bytes after B 0's (A i's likewise)
                    db_i = db_stage if slot == 0 or cfg.b_operands == 1 else _named(
                        _add(db_stage, _const(slot * cfg.b_stage_bytes // 16, i64)), f"db{i}_stage")
                    da_i = da_stage if slot == 0 or cfg.a_operands == 1 else _named(
                        _add(da_stage, _const(slot * cfg.a_stage_bytes // 16, i64)), f"da{i}_stage")
                    j = 0 if cfg.one_accumulator else i  # (one accumulator: the pairs' WGMMAs chain on it)
                    acc_next[j] = _wgmma_steps(k, acc_next[j], da_i, db_i, c0_i64, frags_of[i],
                                               cfg.b_tile_ns[i if cfg.b_operands > 1 else 0], fresh)
                nvvm.WgmmaGroupSyncAlignedOp()
                if not cfg.a_regs:
                    _release_previous(k, kt, lo, prev, 1, first)
                return acc_next

            zeros = [zero if ty == t.acc else _named(llvm.ZeroOp(result_types=[ty]).results[0], f"zero_n{n}")
                     for ty, n in zip(acc_types, acc_ns)]
            if cfg.k_segments:  # the pairs' K loops one after the other, the states carried: each segment's last
                # stage released once its WGMMAs completed (as after the whole K loop), before the next segment
                outs, lo = [*zeros, s, s], kbeg
                for i, n_i in enumerate(k.segment_tiles):
                    hi = _named(_add(lo, n_i), f"kseg{i}_end")
                    outs = k_loop(lo, hi, outs, [i])
                    if i + 1 < len(k.segment_tiles):
                        nvvm.WgmmaWaitGroupSyncOp(0)
                        with _if(arith.CmpiOp(lo, hi, "slt").result):
                            release = pl.ConsumerReleaseOp(k.ready, outs[-1])
                            release.attributes["cutlass.reads_retired"] = UnitAttr()
                        lo = hi
                kbeg, kend = lo, hi  # (the last segment's stage, released below)
            elif cfg.fp8_promote:
                outs = _promoted_k_loop(k, kbeg, kend, zeros[0], s, k_loop, step)
            else:
                outs = k_loop(kbeg, kend, [*zeros, s, s], list(range(nacc)))
            *acc_outs, s_out, prev_out = outs
            # the fragment stores read accumulator 0; the others are the loop's next results (the
            # tier's epilogue reads them there: :func:`accumulator_results`)
            for i, acc_out in enumerate(acc_outs):
                _named(acc_out, "acc_out" if i == 0 else f"acc_out{i}")
            acc_out = acc_outs[0]
            nvvm.WgmmaWaitGroupSyncOp(0)
            with _if(arith.CmpiOp(kbeg, kend, "slt").result):
                release = pl.ConsumerReleaseOp(k.ready, prev_out)
                release.attributes["cutlass.reads_retired"] = UnitAttr()
            if t.streamk:
                # Stream-K: a partial unit stores/reduces into the workspace; the final one folds
                # the partials in (warp group wg uses its own lock, workspace slice and named barrier)
                res = ts.FixupOp(operands=[sched, w, acc_out, []], result_types=[t.acc], properties={
                    "barrier_idx": IntegerAttr(wg, i32), "num_barriers": IntegerAttr(cfg.consumer_groups, i32),
                }).results[0]
                _named(res, "fixed")
                store = _named(ts.ComputeEpilogueOp(operands=[sched, w], result_types=[i1]).results[0], "store")
            else:
                res = acc_out
                store = _const(1, i1, "store")
            if cfg.lora_rank:  # the low-rank branch's second dot, accumulating onto the main accumulator (or
                # into its own, cfg.lora_own_acc: the tier's epilogue reads acc_out beside it)
                res, e = _epi_dot(k, acc_outs[1], e, None if cfg.lora_own_acc else res)
            elif cfg.epi_loop:  # the second dot and C's store per N tile of the work tile, from one packed A
                frags = _epi_pack(k, acc_out)
                t0, t_end = k.epi_tiles(tn)
                if cfg.epi_overlap:
                    return s_out, _epi_overlapped_tiles(
                        k, frags, e, t0, t_end,
                        lambda acc, j: _store_tile(k, wg, acc, tm, j, tl, row_wg, ebuf, wg_leader, store))
                tiles = Block(arg_types=[i32, e.type])
                with ImplicitBuilder(tiles) as (j, est):
                    _named(j, "etile"), _named(est, "est")
                    res, est = _epi_mma(k, frags, est)
                    _store_tile(k, wg, res, tm, j, tl, row_wg, ebuf, wg_leader, store)
                    scf.YieldOp(est)
                return s_out, scf.ForOp(t0, t_end, k.c1, [e], Region(tiles)).results[0]
            elif cfg.epi_n:  # the second dot on the accumulator
                res, e = _epi_dot(k, acc_out, e)
            _store_tile(k, wg, res, tm, tn, tl, row_wg, ebuf, wg_leader, store)
            return (s_out, e) if cfg.epi_n else s_out

        k.walk(sched, first, start, unit, "consumer")
        if cfg.epilogue == "tma":
            # shared memory must outlive the last TMA store's reads
            with _if(wg_leader):
                nvvm.CpAsyncBulkWaitGroupOp(0, read=True)


def _promoted_k_loop(k: _Kernel, kbeg: SSAValue, kend: SSAValue, zero: SSAValue, s: SSAValue,
                     k_loop, step) -> list[SSAValue]:
    """Two-level accumulation (``cfg.fp8_promote = P``): the K steps ``kbeg .. kend - 1`` in blocks of ``P`` (the
    last one ``min(kb + P, kend) - kb`` steps).  A block's first K step starts the scratch accumulator (``%part``)
    anew (its first WGMMA scale-d 0, no accumulator operand: nothing zeroed), its other steps (a K loop from
    ``kb + 1``, for ``P > 1``) accumulate into it; once the block's WGMMAs completed (``wait_group 0``) f32
    additions add the scratch into the f32 main accumulator (``%acc``).  Returns [the main accumulator, the state,
    the previous state] as ``k_loop`` does (its stage release unchanged: the previous step's stage once its batch
    completed, the unit's first step excepted)."""
    cfg, t = k.cfg, k.t
    n = cfg.tile_n // 2
    every = _const(cfg.fp8_promote, name="promote_every")
    body = Block(arg_types=[i32, t.acc, t.state, t.state])
    with ImplicitBuilder(body) as (kb, acc, st, prev):
        _named(kb, "kb"), _named(acc, "acc"), _named(st, "st"), _named(prev, "prev")
        part = _named(step(kb, [zero], st, prev, [0], kbeg, True, fresh=True)[0], "part_first")
        st, prev = _named(pl.StateIncrementOp(st).results[0], "st_next"), st
        if cfg.fp8_promote > 1:
            hi = _named(arith.MinSIOp(_add(kb, every), kend).result, "kb_end")
            part, st, prev = k_loop(_named(_add(kb, k.c1), "kb_next"), hi, [part, st, prev], [0], unit_lo=kbeg)
            _named(part, "part_out")
        nvvm.WgmmaWaitGroupSyncOp(0)  # (the block's WGMMAs completed: their registers readable)
        for i in range(n):
            at = DenseArrayBase.from_list(i64, [i])
            x = llvm.ExtractValueOp(at, acc, f32).results[0]
            y = llvm.ExtractValueOp(at, part, f32).results[0]
            acc = llvm.InsertValueOp(at, acc, arith.AddfOp(x, y).result).results[0]
        _named(acc, "promoted")
        scf.YieldOp(acc, st, prev)
    return list(scf.ForOp(kbeg, kend, every, [zero, s, s], Region(body)).results)


def _store_tile(k: _Kernel, wg: int | None, res: SSAValue, tm: SSAValue, tn: SSAValue, tl: SSAValue, row_wg: SSAValue,
                ebuf: SSAValue | None, wg_leader: SSAValue, store: SSAValue) -> None:
    """Under ``store``, warp group ``wg``'s store of accumulator ``res`` as C's tile ``(tm, tn)`` (``%m0``, ``%n0``
    and ``%row0``: the names the tier's epilogue finds in the store's block)."""
    cfg = k.cfg
    with _if(store):
        m0 = _named(_mul(tm, k.bm), "m0")
        n0 = _named(_mul(tn, _const(cfg.out_tile_n, name="bn_out") if cfg.epi_n else k.bn_tile), "n0")
        row0 = _named(_add(m0, row_wg), "row0")
        _epilogue(k, wg, res, row0, n0, tl, ebuf, wg_leader)


def _epi_b_load(k: _Kernel, st: SSAValue, tn: SSAValue, leader: SSAValue) -> SSAValue:
    """The producer's load of the second dot's B tile (``cfg.epi_n``), issued after work tile ``tn``'s last K
    tile: acquire :attr:`_Kernel.epi_ready`'s stage (the consumers released the previous work tile's), then
    (N-major E ``[K2, N2]``) ``epi_n / 64`` TMA boxes of ``tile_n`` K rows x 64 columns of E at rows 0,
    columns ``tn epi_n + 64 j``, box j at ``cfg.epi_offset + tile_n * 128 * j`` (the 128-byte swizzle of an
    N-major operand), or (K-major E ``[N2, K2]``, ``cfg.epi_major == "k"``) ``tile_n / 64`` boxes of ``epi_n``
    rows x 64 K columns at rows ``tn epi_n``, columns ``64 j``, box j at ``cfg.epi_offset + epi_n * 128 * j``
    (128-byte K rows, swizzled); ``tile_n`` is the second dot's K, ``cfg.epi_k`` (a low-rank branch's
    ``cfg.lora_rank``); returns the state after it."""
    cfg = k.cfg
    pl.ProducerAcquireOp(k.epi_ready, st)
    with _if(leader):
        fb = _named(pl.GetProducerBarrierOp(k.epi_ready, st).results[0], "efb")
        e0 = _named(_mul(tn, _const(cfg.epi_n)), "e0")
        base = _epi_stage_offset(k, st)

        def at(offset: int) -> SSAValue:
            return _const(cfg.epi_offset + offset) if base is None else _add(base, _const(offset))

        if cfg.epi_major == "k":
            chunk = cfg.epi_n * 128
            for j in range(cfg.epi_k // 64):
                _tma_load(k, k.tmap_e, at(chunk * j), [_const(64 * j, name=f"ek{j}"), e0], fb, chunk, f"edst{j}")
        else:
            chunk = cfg.epi_k * 128
            for j in range(cfg.epi_n // 64):
                col = _named(_add(e0, _const(64 * j)), f"ecol{j}")
                _tma_load(k, k.tmap_e, at(chunk * j), [col, k.c0], fb, chunk, f"edst{j}")
    pl.ProducerCommitOp(k.epi_ready, st, cfg.epi_bytes)
    return pl.StateIncrementOp(st).results[0]


def _epi_stage_offset(k: _Kernel, st: SSAValue) -> SSAValue | None:
    """Where stage ``st`` of E's pipeline starts in dynamic shared memory (``cfg.epi_offset + index * epi_bytes``),
    or None for a one-stage pipeline (its buffer at the constant ``cfg.epi_offset``)."""
    cfg = k.cfg
    if cfg.epi_stages == 1:
        return None
    idx = pl.StateGetIndexOp(st).results[0]
    return _named(_add(_const(cfg.epi_offset), _mul(idx, _const(cfg.epi_bytes))), "e_off")


EPI_FRAGMENT = "efrag"
"""The second dot's A registers are named ``%efrag<j>q<q>`` (K step ``j`` of 16, register ``q`` of 4): each
a ``cvt.rn.{f16,bf16}x2.f32`` of accumulator elements ``8 j + 2 q`` (low half) and ``+ 1``, whose f32
operands the tier may replace by the program's ops on those elements."""


def _epi_dot(k: _Kernel, acc: SSAValue, st: SSAValue, init: SSAValue | None = None) -> tuple[SSAValue, SSAValue]:
    """The second dot (``cfg.epi_n``) of a consumer warp group after its K loop drained: pack the accumulator
    ``acc`` (``cfg.epi_k`` columns) as the register A of ``epi_k / 16`` WGMMAs (:func:`_epi_pack`) and run them
    (:func:`_epi_mma`).  Returns (the second accumulator, the state after E's stage)."""
    return _epi_mma(k, _epi_pack(k, acc), st, init)


def _epi_pack(k: _Kernel, acc: SSAValue) -> list[list[SSAValue]]:
    """The accumulator ``acc`` (``cfg.epi_k`` columns) packed as the register A of ``epi_k / 16`` WGMMAs: register
    ``q`` of K step ``j`` = elements ``8 j + 2 q``, ``+ 1`` (the m64nNk16 A fragment is the accumulator's layout)."""
    cfg = k.cfg
    regs = [llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [i]), acc, f32).results[0]
            for i in range(cfg.epi_k // 2)]
    frags = []
    for j in range(cfg.epi_k // 16):
        frag = []
        for q in range(4):
            lo, hi = regs[8 * j + 2 * q], regs[8 * j + 2 * q + 1]
            pack = llvm.InlineAsmOp(f"cvt.rn.{cfg.dtype}x2.f32 $0, $1, $2;", "=r,f,f", [hi, lo], [i32],
                                    has_side_effects=True)
            frag.append(_named(pack.results[0], f"{EPI_FRAGMENT}{j}q{q}"))
        frags.append(frag)
    return frags


def _epi_mma(k: _Kernel, frags: list[list[SSAValue]], st: SSAValue,
             init: SSAValue | None = None) -> tuple[SSAValue, SSAValue]:
    """The second dot's WGMMAs on the packed register A ``frags``: wait for E's tile in stage ``st``, run them into
    a zero ``m64n{epi_n}`` accumulator (``init``, the main accumulator, for a low-rank branch: ``cfg.lora_rank``),
    wait, release E's stage.  Returns (the second accumulator, the state after E's stage)."""
    acc2 = _epi_issue(k, frags, st, init)
    _epi_retire(k, st, 0)
    return _named(acc2, "acc2"), pl.StateIncrementOp(st).results[0]


def _epi_retire(k: _Kernel, st: SSAValue, pending: int) -> None:
    """Wait until at most ``pending`` WGMMA groups are in flight (the second dot's on E's stage ``st`` retired),
    then release that stage to the producer."""
    nvvm.WgmmaWaitGroupSyncOp(pending)
    release = pl.ConsumerReleaseOp(k.epi_ready, st)
    release.attributes["cutlass.reads_retired"] = UnitAttr()


def _epi_issue(k: _Kernel, frags: list[list[SSAValue]], st: SSAValue, init: SSAValue | None = None) -> SSAValue:
    """:func:`_epi_mma`'s wait for E's stage ``st`` and its WGMMAs, committed as one group and left in flight;
    returns their accumulator."""
    cfg = k.cfg
    # E's descriptors, 128-byte swizzle, 8-row atoms of 1 KiB (SBO): N-major, 64-column chunks of tile_n rows
    # (LBO); K-major, rows of 64 K elements (one swizzle span: LBO unused)
    k_major = cfg.epi_major == "k"
    base = _epi_stage_offset(k, st)
    e_addr = llvm.PtrToIntOp(_gep(k.smem, _const(cfg.epi_offset) if base is None else base), i64).results[0]
    e_units = arith.ShRUIOp(arith.AndIOp(e_addr, _const(262143, i64)).result, _const(4, i64)).result
    e_bits = descriptor_constant(16, 1024) if k_major else descriptor_constant(cfg.epi_k * 128, 1024)
    de = _named(arith.OrIOp(e_units, _const(e_bits, i64)).result, "de")
    acc2_type = _acc_type(cfg, cfg.epi_n)
    acc2 = init if init is not None else _named(llvm.ZeroOp(result_types=[acc2_type]).results[0], "zero2")
    ta = nvp.WGMMAType(WGMMA_TYPES[cfg.dtype][0])
    pl.ConsumerWaitOp(k.epi_ready, st)
    nvvm.WgmmaFenceAlignedOp()
    layout = nvp.MMALayout.COL if k_major else nvp.MMALayout.ROW
    for j, frag in enumerate(frags):
        # per step of 16 K: N-major, 16 K rows of 128 bytes (2 KiB, 128 descriptor units); K-major, 32 bytes along
        # the K row (2 units; the start address is the unswizzled one), box j // 4 of epi_n rows x 128 bytes
        step = (cfg.epi_n * 8 * (j // 4) + 2 * (j % 4)) if k_major else 128 * j
        dj = _named(_add(de, _const(step, i64)), f"de{j}")
        acc2 = _named(nvp.WgmmaMmaAsyncRegisterAOp(frag, dj, acc2, cfg.epi_n, ta, layout).results[0], f"e{j}")
    nvvm.WgmmaGroupSyncAlignedOp()
    return acc2


def _epi_overlapped_tiles(k: _Kernel, frags: list[list[SSAValue]], est: SSAValue, t0: SSAValue, t_end: SSAValue,
                          store_tile) -> SSAValue:
    """The loop over N tiles ``t0 .. t_end - 1`` (at least one) with each next tile's WGMMAs issued before the
    current tile's store (``cfg.epi_overlap``): tile ``t0``'s WGMMAs first, retired; then per tile ``j`` but the
    last, tile ``j + 1``'s issued (the only group in flight), ``j``'s E stage released,
    ``store_tile(accumulator, j)`` while they run, ``j + 1``'s retired before its accumulator is carried on; the
    last tile's release and store after the loop.  Returns E's state after the last tile's stage."""
    first = _named(_epi_issue(k, frags, est), "acc2_first")
    # (retired before the loop: the next tile's WGMMAs read the same A registers, which an in-flight WGMMA's
    # may not share, and the loop carries the accumulator on)
    nvvm.WgmmaWaitGroupSyncOp(0)
    last = _named(arith.SubiOp(t_end, k.c1).result, "etile_last")
    body = Block(arg_types=[i32, first.type, est.type, est.type])
    with ImplicitBuilder(body) as (j, acc, est_next, est_cur):
        _named(j, "etile"), _named(acc, "acc2_cur"), _named(est_next, "est_next"), _named(est_cur, "est")
        acc_next = _named(_epi_issue(k, frags, est_next), "acc2_next")
        _epi_retire(k, est_cur, 1)
        store_tile(acc, j)
        nvvm.WgmmaWaitGroupSyncOp(0)  # (the next accumulator retired before the loop carries it)
        scf.YieldOp(acc_next, pl.StateIncrementOp(est_next).results[0], est_next)
    after = pl.StateIncrementOp(est).results[0]
    acc_last, est_after, est_last = scf.ForOp(t0, last, k.c1, [first, after, est], Region(body)).results
    _epi_retire(k, est_last, 0)
    store_tile(_named(acc_last, "acc2_last"), last)
    return est_after


def accumulator_results(acc_out: SSAValue) -> list[SSAValue]:
    """All accumulators of the consumer's K loop whose first is ``acc_out`` (the value the
    fragment stores read): ``cfg.b_operands`` of them, in B operand order."""
    loop = acc_out.owner
    return [r for r in loop.results if r.type == acc_out.type]


def build_gemm_kernel(cfg: GemmConfig) -> ModuleOp:
    """The module holding the kernel ``cfg.name`` (one ``func.func``), for a checked ``cfg``;
    raises :class:`~tileorch.kernels.gemm.config.GemmConfigError` for a configuration the
    builder cannot produce."""
    cfg.check()
    t = _Types.of(cfg)
    more_b = cfg.b_operands - 1
    more_a = cfg.a_operands - 1  # an A per dot: the other As' maps, after the other Bs'
    seg_k = [i32] * (cfg.pairs - 1) if cfg.k_segments else []  # the later K segments' K, after the other As' maps
    ldc = [i32] if cfg.c_ld else []  # C's row stride, after the other Bs' maps (a column slice of a wider C)
    kv = [GENERIC_PTR] * len(cfg.kvec_box_bytes)  # the TMA-loaded K vectors' maps (cfg.kvecs), last
    epi = [GENERIC_PTR] if cfg.epi_n else []  # the second dot's B map (cfg.epi_n), after the other Bs'
    epi_c = [i32] if cfg.epi_loop else []  # its N tiles per work tile (cfg.epi_loop), after E's map
    arg_types = [GENERIC_PTR, GENERIC_PTR, GENERIC_PTR, GLOBAL_PTR, i32, i32, i32, t.params, *[GENERIC_PTR] * more_b,
                 *[GENERIC_PTR] * more_a, *seg_k, *epi, *epi_c, *ldc, *kv]
    block = Block(arg_types=arg_types)
    names = ("tmap_a", "tmap_b", "tmap_c", "c", "m", "n", "k", "params", *[f"tmap_b{i}" for i in range(1, 1 + more_b)],
             *[f"tmap_a{i}" for i in range(1, 1 + more_a)], *[f"k{i}" for i in range(1, 1 + len(seg_k))],
             *(["tmap_e"] if epi else []), *(["epi_c"] if epi_c else []), *(["ldc"] if ldc else []),
             *[f"tmap_kv{v}" for v in range(len(kv))])
    for arg, name in zip(block.args, names):
        arg.name_hint = name
    with ImplicitBuilder(block) as (tmap_a, tmap_b, tmap_c, c, m, n, kdim, params, *rest):
        tmap_kv = tuple(rest[len(rest) - len(kv):]) if kv else ()
        rest = rest[:len(rest) - len(kv)]
        ldc_arg = rest.pop() if ldc else None
        epi_c_arg = rest.pop() if epi_c else None
        tmap_e = rest.pop() if epi else None
        seg_args = rest[more_b + more_a:]
        tmap_more_b, tmap_more_a = rest[:more_b], rest[more_b:more_b + more_a]
        smem = _named(DynamicSmemOp().result, "smem")
        # `stages` stages of A + B; the producer group is warp group 0 (one elected arrive); each
        # consumer warp group is a consumer group of its own (shared_consumer: one group of all of them).
        pipe = _named(pl.PipelineCreateOp(t.pipeline).results[0], "pipe")
        init = pl.PipelineInitOp(
            pipe, [0x1], consumer_masks(cfg), executor="warpgroup",
            num_stages=cfg.stages, producer_arv_count=[1], transaction_size=[cfg.tx_bytes])
        init.properties["compute_capability"] = PipelineComputeCapabilityAttr(PipelineComputeCapability.SM90)
        _named(init.results[0], "ready")
        epi_ready = None
        if cfg.epi_n:  # the second dot's B tiles: cfg.epi_stages stages, the producer's arrive, each group's release
            epipe = _named(pl.PipelineCreateOp(PipelineType(cfg.epi_stages, 1, cfg.consumer_groups)).results[0],
                           "epipe")
            einit = pl.PipelineInitOp(
                epipe, [0x1], [1 << (w + 1) for w in range(cfg.consumer_groups)], executor="warpgroup",
                num_stages=cfg.epi_stages, producer_arv_count=[1], transaction_size=[cfg.epi_bytes])
            einit.properties["compute_capability"] = PipelineComputeCapabilityAttr(PipelineComputeCapability.SM90)
            epi_ready = _named(einit.results[0], "eready")
        c0, c1, c64 = _const(0, name="c0"), _const(1, name="c1"), _const(64, name="c64")
        c_tile_k = _const(cfg.tile_k, name="c_tile_k")
        c8192 = _const(cfg.mn_chunk_bytes, name="c8192" if cfg.mn_chunk_bytes == 8192 else "c_chunk")
        bm, bn_tile = _const(cfg.tile_m, name="bm"), _const(cfg.tile_n, name="bn_tile")
        stage_bytes, a_bytes = _const(cfg.stage_bytes, name="stage_bytes"), _const(cfg.a_operand_bytes, name="a_bytes")
        tid = _named(nvvm.SPECIAL_REGISTERS["tid.x"]().results[0], "tid")
        k_tiles = _named(arith.DivUIOp(_add(kdim, _const(cfg.tile_k - 1)), c_tile_k).result, "k_tiles")
        kernel = _Kernel(cfg, t, tmap_a, tmap_b, tmap_c, c, m, n, params, smem, init.results[0], c0, c1, c64,
                         c_tile_k, c8192, bm, bn_tile, stage_bytes, a_bytes, tid, k_tiles, tuple(tmap_more_b), ldc_arg,
                         tmap_e, epi_ready, epi_c_arg, tuple(tmap_more_a),
                         (k_tiles, *(_named(arith.DivUIOp(_add(x, _const(cfg.tile_k - 1)), c_tile_k).result,
                                            f"k_tiles{i}") for i, x in enumerate(seg_args, start=1))), tmap_kv)
        _producer(kernel)
        for wg in ([None] if shared_consumer(cfg) else range(cfg.consumer_groups)):
            _consumer(kernel, wg)
        func.ReturnOp()
    no_attrs = DictionaryAttr({})
    grid_constant = DictionaryAttr({"nvvm.grid_constant": UnitAttr()})
    fn = func.FuncOp(cfg.name, (arg_types, []), Region(block),
                     arg_attrs=ArrayAttr([TMAP_ATTRS] * 3 + [no_attrs] * 4 + [grid_constant] + [TMAP_ATTRS] * (more_b + more_a)
                                          + [no_attrs] * len(seg_k) + [TMAP_ATTRS] * len(epi)
                                          + [no_attrs] * (len(epi_c) + len(ldc)) + [TMAP_ATTRS] * len(kv)))
    fn.attributes["nvvm.kernel"] = UnitAttr()
    fn.attributes["nvvm.maxntid"] = DenseArrayBase.from_list(i32, [cfg.threads, 1, 1])
    fn.attributes["nvvm.minctasm"] = IntegerAttr(1, i32)
    module = ModuleOp([fn])
    module.attributes["cutlass.target"] = StringAttr("sm_90a")
    module.attributes["cutlass.cluster_shape"] = DenseArrayBase.from_list(i32, [cfg.cluster_m, 1, 1])
    return module
