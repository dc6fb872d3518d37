"""``convert-nv-tileas-to-cutlass``: lower a materialized TileAS dot kernel onto the ``cutlass``
pipeline / tile-scheduler ops and the TMA + WGMMA payload.

The pass reads the warp-specialized kernel the tier produced (:func:`analyze_dot_kernel`):

* the MMA consumer agent's dot (``mma.sm90<[64, tile_n, 16]>`` on ``tile_m x tile_n``) and the
  producer agent's two TMA tile loads feeding it: A tile ``(pid0, k)`` of an ``[M, K]`` array or
  tile ``(k, pid0)`` of a ``[K, M]`` array, permuted before the dot (M-major A, ``A^T`` stored);
  B either tile ``(k, pid1)`` of a ``[K, N]`` array (N-major B) or tile ``(pid1, k)`` of an
  ``[N, K]`` array, permuted before the dot (K-major B, ``B^T`` stored, as ``nn.Linear``);
* the epilogue: the program's own ops between the K loop and the ``tiled_store`` of tile
  ``(pid0, pid1)``, whatever they are (bias/scale vectors, activations, residual tiles, casts),
  lowered element by element in the accumulator's register layout
  (:mod:`tileorch.transforms.tileas.epilogue`);
* the pipeline depth (kept while the shared-memory plan fits it), the cluster size from
  ``nv_tileaa.kernel_spec``.

The mainloop (producer agent, consumer warp groups, pipelines, scheduler walk) is emitted by the
TMA/WGMMA kernel builder :mod:`tileorch.kernels.gemm.build`, the same code ``tileorch.gemm`` runs;
the epilogue is then compiled into each consumer warp group's store.  The lowered kernel takes
the builder's parameters (tensor maps, C, M, N, K, scheduler params), followed, when the epilogue
is more than a cast, by every parameter of the tile kernel in order (the epilogue reads its
vectors and scalars from them: ``epilogue_ops`` in the record);
``tileorch.gemm_config`` on the function records the configuration the host launches it with
(a dictionary attribute: :mod:`tileorch.dialects.record_attr`).
A program this lowering cannot take is a located error naming the first reason.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, scf
from xdsl.dialects.builtin import (DenseArrayBase, Float16Type, Float32Type, Float64Type, FunctionType, IntegerAttr, IntegerType,
                                   ModuleOp, StringAttr, f32, i1, i32, i64)
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from tileorch import settings
from tileorch.diagnostics import LocatedError, format_error
from tileorch.dialects import llvm_ext
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.dialects import nvvm
from tileorch.dialects.atoms import DynamicSmemOp, StageFragmentOp, StoreFragmentOp
from tileorch.dialects.constants import constant_int
from tileorch.dialects.nv_tileaa.attrs import PointerType, ints
from tileorch.dialects.nv_tileaa.ops import dot_signedness
from tileorch.dialects.nv_tileas import AgentSwitchOp
from tileorch.dialects.record_attr import decode_record, encode_record
from tileorch.kernels.gemm.config import DIRECT_OUT_DTYPES, LAUNCH_OVERRIDES, OUT_DTYPES, OVERRIDABLE, SMEM_LIMIT
from tileorch.transforms.tileas.direct_epilogue_stages import direct_epilogue_stages
from tileorch.transforms.tileas.pair_stages import pair_stages_chosen, per_pair_stages
from tileorch.transforms.tileas.same_range_loops import K_SEGMENTS
from tileorch.transforms.tileaa_to_simt.emit import GLOBAL_PTR, Emitter
from tileorch.transforms.tileas.column_reduction import (EXCHANGE_BARRIER, Fragment, in_staging,
                                                         lower_column_reductions, scratch_bytes, scratch_pointer)
from tileorch.transforms.tileas.common import k_loop_blocks, move_before, num_ctas, source_load
from tileorch.transforms.tileas.early_transpose import early_transpose_refusal
from tileorch.transforms.tileas.epilogue_dot import (EpilogueDot, check_epilogue_dot, check_first_dot_b,
                                                     find_epilogue_dot, fitted_stages, n_loop_epilogue, n_loop_overlap,
                                                     n_loop_refusal, n_loop_remark)
from tileorch.transforms.tileas.gathered_operand import OPERAND_PATH as _OPERAND_PATH
from tileorch.transforms.tileas.gathered_operand import (gathered_a_prologue, gathered_a_remark, gathered_operand,
                                                         gathered_operand_message, gathered_a_refusal)
from tileorch.transforms.tileas.epilogue import (ATOMIC_SINK, PASS, WRITE_WORDS, Coord, EpilogueLowering, KernelEnv,
                                                 feeding_reductions, is_plain_store, program_axis, reduced_dim,
                                                 side_reduction, sink_tile, truncated_from_i32)
from tileorch.transforms.tileas.k_range import KLoop, KRangeError, k_loop, tile_map
from tileorch.transforms.tileas.operand_views import (C_VIEW_KEY, VIEWS_KEY, column_slice, describe_column_slice,
                                                      describe_view, host_view)
from tileorch.transforms.tileas.pack16 import pack16
from tileorch.transforms.tileas import launch_grid_axes
from tileorch.transforms.tileas.program_loop_to_tiles import SINGLE_TILE_AXES, TILE_GRID_IDS

DTYPE_NAMES = {"f16": "f16", "bf16": "bf16", "f32": "f32", "f8E4M3FN": "e4m3", "f8E5M2": "e5m2", "i32": "s32"}
"""Element type -> the kernel builder's dtype name (i8 operands: :data:`INT8_NAMES` by the dot's
signedness; an i32 output is the s32 accumulator itself)."""
INT8_NAMES = {True: "s8", False: "u8"}
CONFIG_ATTR = "tileorch.gemm_config"


def _dtype(t) -> str:
    name = str(t)
    if name not in DTYPE_NAMES:
        raise ValueError(name)
    return DTYPE_NAMES[name]


def _is_iv(v: SSAValue) -> bool:
    """``v`` is a K tile index: an affine function of a loop's iv (``k``, ``2 * k + 1``, ``k0 // tk``:
    :func:`~tileorch.transforms.tileas.k_range.tile_map`)."""
    return tile_map(v) is not None


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


def argument_view_mismatch(kernel: aa.FuncOp, view: SSAValue) -> str | None:
    """Why the array a tiled view reads is not a kernel array argument as passed (None when it is,
    or when the view is not built on a ``make_memref``): the tensor-core kernels read their TMA
    operands (and the GEMM's C) through tensor maps the host builds from the argument's own base
    pointer, extents and strides, so a view whose base is an ``offset`` of the argument's pointer
    or whose extents or strides are computed values (``Array.slice``: both) would be read as the
    whole array.  Extents and strides must be kernel arguments themselves (in any order: a
    column-major array read as its transpose has the last two swapped; a hand-written tile kernel
    shares M, N and K among its arrays).  A view whose
    tiles overlap or leave gaps (``tiled_view(..., traversal_steps=...)``) is refused too."""
    vt = view.type
    if isinstance(vt, aa.TiledViewType) and ints(vt.tile) != ints(vt.step):
        return (f"its tiles {ints(vt.tile)} start {ints(vt.step)} elements apart (overlapping or gapped tiles: "
                "tiled_view with traversal_steps)")
    v = view
    for _ in range(64):
        if not isinstance(v.owner, Operation) or isinstance(v.owner, aa.MakeMemrefOp) or not v.owner.operands:
            break
        v = v.owner.operands[0]
    mm = v.owner
    if not isinstance(mm, aa.MakeMemrefOp):
        return None
    entry = kernel.body.blocks.first
    ptr = mm.ptr
    while isinstance(ptr.owner, Operation) and ptr.owner.name == "nv_tileaa.assume":
        ptr = ptr.owner.operands[0]
    if not (isinstance(ptr, BlockArgument) and ptr.owner is entry):
        what = ptr.owner.name if isinstance(ptr.owner, Operation) else "a block argument"
        how = "an array of a list-of-arrays parameter" if what == "nv_tileaa.int_to_ptr" else \
            "an Array.slice or a pointer offset"
        return f"its base pointer is computed ({what}: {how}), not an array argument's own pointer"
    for operands, what in ((mm.shape, "extents"), (mm.strides, "strides")):
        for x in operands:
            x = _strip_assume(x)
            if not (isinstance(x, BlockArgument) and x.owner is entry):
                return (f"its {what} are computed, not kernel arguments (an Array.slice or a view of another "
                        "shape)")
    return None


def gemm_operands(fn: Operation) -> tuple[int | None, int | None, int | None] | None:
    """The kernel-argument indices of A, B and C (their base pointers, counted over the tile
    kernel's flat argument list) recorded under :data:`CONFIG_ATTR` on a lowered function."""
    record = config_record(fn)
    ops = None if record is None else record.get("args")
    return None if ops is None else tuple(ops)


def config_record(fn: Operation) -> dict | None:
    """The record :func:`lower_kernel` stored on ``fn`` under :data:`CONFIG_ATTR` (the
    configuration's fields plus ``args``, ``epilogue_ops``, ``retile_safe``, ``remarks``), or
    None when ``fn`` has none."""
    attr = fn.attributes.get(CONFIG_ATTR)
    if attr is None:
        return None
    record = decode_record(attr)
    if not isinstance(record, dict):
        raise ValueError(f"{CONFIG_ATTR} must be a dictionary, got {attr}")
    return record


@dataclass
class DotKernel:
    """What :func:`analyze_dot_kernel` found in a materialized tier kernel."""

    kernel: aa.FuncOp
    a_load: Operation
    b_load: Operation
    b_major: str
    store: Operation
    acc: SSAValue
    tile: tuple[int, int, int]
    dtype: str
    out_dtype: str
    depth: int
    plain_epilogue: bool
    retile_safe: bool
    batched: bool = False
    a_major: str = "k"
    b_dtype: str = ""
    """B's dtype when it differs from A's (an s8 x u8 integer dot)."""
    b_shared: bool = False
    """A batched GEMM whose B is one matrix for every batch (2-D, or read at batch index 0)."""
    batch_mid: str = ""
    """The roles (``a``, ``b``, ``c``) whose arrays hold the batch in their middle dimension (:func:`is_mid_batch`;
    ``GemmConfig.batch_mid``)."""
    remarks: list[str] = dataclasses.field(default_factory=list)
    fp8_dot: Operation | None = None
    """The dot, when its operands are e4m3 / e5m2: :func:`configure` chooses two-level accumulation
    (:mod:`tileorch.transforms.tileas.fp8_promotion`) and remarks at it."""
    views: dict = dataclasses.field(default_factory=dict)
    """``{"a" | "b" | "b1" ...: leading indices}``: the operand (``b1``...: the B of the second... dot
    sharing A) is one matrix of its argument at indices the host computes at launch
    (:mod:`~tileorch.transforms.tileas.operand_views`); the kernel reads it 2-D."""
    c_view: dict | None = None
    """C is a column slice ``Out.slice(axis=1, ...)`` of a wider array whose start and width the host
    computes at launch (:func:`~tileorch.transforms.tileas.operand_views.column_slice`): the kernel
    stores C's rows ``ldc`` apart (``GemmConfig.c_ld``)."""
    k_bounds: KLoop | None = None
    """The K loop's range and tile map when they are not the builder's 0 .. number of K tiles
    (:mod:`~tileorch.transforms.tileas.k_range`): the kernel runs the program's trip count, the
    producer loads K tile ``first + stride * i`` in iteration ``i``."""
    k_used: int = 0
    """When > 0: the program reads only K elements ``0 .. k_used - 1`` (constant bounds from tile 0,
    one tile per iteration): the kernel is the plain GEMM, for K up to ``k_used``
    (:attr:`GemmConfig.k_used <tileorch.kernels.gemm.config.GemmConfig.k_used>`)."""
    side_stores: list = dataclasses.field(default_factory=list)
    single_tile: dict | None = None
    epi_dot: EpilogueDot | None = None
    epi_loop: bool = False
    """The second dot loops over N tiles of C per work tile (``GemmConfig.epi_loop``: :func:`.n_loop_refusal`)."""
    """A second dot on the K loop's result (:mod:`.epilogue_dot`): :attr:`acc` is its result, the
    epilogue's root; the K loop's accumulator is ``epi_dot.acc``."""
    """``{"m": tile_m or 0, "n": tile_n or 0}``: the program computes only tile 0 along the axes with
    a non-zero extent (``tileas-program-loop-to-tiles``), valid for outputs of at most that extent."""
    tile_stores: list = dataclasses.field(default_factory=list)
    """More ``[tile_m, tile_n]`` outputs at C's tile indices, stored from the accumulator's registers."""
    """``[tile_m, 1]`` stores of row reductions and ``[1, tile_n]`` stores of column reductions of
    the result (:func:`side_reduction`)."""
    padded_rows_defined: bool = False
    """A's load gives rows outside the array a value (an explicit padding): a column reduction
    folds them in as the program says; otherwise (undetermined padding) it leaves them out."""
    padded_cols_defined: bool = False
    """The same for B and the columns outside the array, in a row reduction."""
    row_feeding: list = dataclasses.field(default_factory=list)
    """Row reductions of accumulator-shaped tiles that the stored value reads (``acc - max(acc, 1)``,
    a softmax of the tile's rows): evaluated before its elements (:func:`feeding_reductions`)."""
    grid_l: bool = False
    """The program reads program id 2 without being a batched GEMM (split-K): the scheduler walks
    the launch grid's third axis as L."""
    more_b_loads: list = dataclasses.field(default_factory=list)
    """The B tile loads of the dots after the first that share its A tile in the same K loop (a gated
    MLP's ``X @ Wg`` and ``X @ Wu``), in the order of :attr:`more_accs`."""
    more_accs: list = dataclasses.field(default_factory=list)
    """Those dots' accumulators (K loop results), read by the epilogue beside :attr:`acc`."""
    more_a_loads: list = dataclasses.field(default_factory=list)
    """The A tile loads of the dots after the first when each dot reads an A of its own (``acc1 += x @ w1;
    acc2 += z @ w2``: :func:`own_a_dots`), in the order of :attr:`more_b_loads`; empty for dots sharing A."""
    one_accumulator: bool = False
    """The dots chain into one accumulator (:func:`dot_chain`): :attr:`more_accs` is empty."""
    k_segments: bool = False
    """The dots come from K loops one after the other, each bounded by its own operands' K
    (:data:`~tileorch.transforms.tileas.same_range_loops.K_SEGMENTS`): the kernel runs each pair over its own K."""
    c_transposed: bool = False
    """C is stored transposed: the accumulator's element (row, col) goes to element (col, row) of a
    row-major [N, M] array (:func:`_c_orientation`)."""
    c_swapped: bool = False
    """The store's tile indices are (program id 1, program id 0) and its tile ``[tile_n, tile_m]``
    (``ct.transpose(acc)`` stored at ``(bn, bm)``); otherwise a view with its dimensions swapped
    (a column-major C) stores the ``[tile_m, tile_n]`` tile at (program id 0, program id 1)."""
    coords: dict | None = None
    """The program's own tile coordinates when they are not the scheduler's (program id 0 for A's
    row tile, program id 1 for B's column tile, (program id 0, program id 1) for C): ``{"a": A's
    row tile index, "b": B's column tile index, "c": (C's row tile index, C's column tile index)}``,
    scalar values of the tile kernel (functions of program ids, grid sizes and scalar arguments),
    evaluated per work tile by the agent that uses them (:func:`_program_grid_tiles`)."""
    guard: list = dataclasses.field(default_factory=list)
    """``(condition, taken)`` of every ``scf.if`` around C's store (``taken``: the store is in its
    ``then`` region): the tile is computed and stored only where each condition is ``taken``."""

    batch_exprs: dict | None = None
    """``{"a" | "b" | "c": (op, view, batch indices)}`` when the program computes its operands' batch
    indices (:func:`_batch_expressions`): each agent evaluates the flat batch index per work tile."""
    batch_grid: bool = False
    """Those batch indices read program ids 0 or 1 or the grid's extents: the kernel walks the launch
    grid (a program-grid kernel); otherwise only program id 2 (the scheduler's L, the launch grid's z)."""
    k_grid: bool = False
    """The program's own K range (:attr:`k_bounds`) reads the grid's extents (split-K over ``ct.num_blocks(2)``
    splits): the kernel walks the launch grid (a program-grid kernel), whose extents the agents read."""
    b_prologue: object = None
    """B computed in the K loop from its tile load (:class:`~tileorch.transforms.tileas.operand_prologue.QPrologue`):
    the producer loads the raw tile (:attr:`b_raw`), the consumers compute the operand
    (:func:`stage_computed_b`)."""
    b_raw: str = ""
    """The raw B tile's element type as the kernel builder names it (:data:`RAW_NAMES`)."""
    a_prologue: object = None
    """A computed in the K loop from its tile load, as :attr:`b_prologue` (:attr:`a_raw`)."""
    a_raw: str = ""
    """The raw A tile's element type as the kernel builder names it (:data:`RAW_NAMES`)."""
    kvec_plan: tuple = ((), ())
    """(the K-indexed vectors the producer TMA-loads, [(a K-indexed vector it does not, why)]):
    :func:`tileorch.transforms.tileas.k_vector_tma.plan`, decided by :func:`configure`."""
    a_gather: bool = False
    """A is read by ``ct.gather`` (:attr:`a_load` is that pointer-tile load, :attr:`a_prologue` its map): the
    consumers load their A fragment's elements themselves (:mod:`.gathered_operand`), the producer no A tile."""

    @property
    def program_grid(self) -> bool:
        """The kernel's work tiles are the launch grid's programs (its tile coordinates, a guard or its
        batch indices read them): the scheduler walks the launch grid, one work tile per program."""
        return self.coords is not None or bool(self.guard) or self.batch_grid or self.k_grid

    @property
    def cluster(self) -> int:
        return num_ctas(self.kernel)

    @property
    def operand_args(self) -> list[int | None]:
        sink = self.store.ptr if self.store.name == ATOMIC_SINK else self.store.view  # C's pointer tile or view
        views = (_operand_view(self.a_load), self.b_load.view, sink, *(ld.view for ld in self.more_b_loads),
                 *(ld.view for ld in self.more_a_loads),
                 *((self.epi_dot.load.view,) if self.epi_dot is not None else ()))
        return [_base_argument(self.kernel, v) for v in views]  # A, B, C, the other Bs, the other As, then E


BATCH_EXPR = "expr"
""":func:`_batch_split`'s kind of a tile whose leading unit dimensions sit at indices other than
program id 2 alone (computed, several batch dimensions, read from memory)."""


def _batch_split(op: Operation, indices: list, shape: list, fail) -> tuple[list, list, bool | str]:
    """(the row/column indices, the 2-D tile shape, batched?) of a 2-D access or of a 3-D one whose
    leading tile extent is 1 at program id 2 (cuTile's batched GEMM); ``"shared"`` for a 3-D one at
    the constant batch index 0 (a B shared by every batch: ``B [1, K, N]`` read at matrix 0);
    :data:`BATCH_EXPR` for any other access whose leading tile extents are all 1 (its batch
    indices are scalar values of the program)."""
    if len(indices) == 2:
        return indices, shape, False
    if len(indices) == 3 and shape[0] == 1 and program_axis(indices[0]) == 2:
        return indices[1:], shape[1:], True
    if len(indices) == 3 and shape[0] == 1 and constant_int(_strip_assume(indices[0])) == 0:
        return indices[1:], shape[1:], "shared"
    if is_mid_batch(indices, shape):  # [rows, L, cols] read at (.., program id 2, ..): the batch in the middle
        return [indices[0], indices[2]], [shape[0], shape[2]], True
    if len(indices) >= 3 and all(d == 1 for d in shape[:-2]):
        # leading unit dimensions at computed indices ([B, H, M, K] at (b, h, ...), a group read from a
        # table): a batch index the kernel evaluates per work tile (:func:`_batch_expressions`)
        return indices[-2:], shape[-2:], BATCH_EXPR
    if len(indices) == 1 and "store" in op.name:  # e.g. an argmax of the result beside (or without) C
        fail(op, f"a 1-D tile {shape} is stored where the WGMMA lowering expects the product tile C: a 1-D store is "
                 "taken beside C when it is a row or column reduction of the result (ct.max / ct.min / ct.sum of the "
                 "accumulator's tile along one axis, stored with or without keepdims); an argmax / argmin or another "
                 "1-D value computed from the product is not supported yet")
    what = "the product is stored as" if "store" in op.name else "a dot operand is read as"
    wide = sum(1 for d in shape if d != 1)
    how = f"with {wide} dimensions above extent 1" if wide > 2 else \
        "whose rows and columns are not its last two dimensions" if 1 in shape[-2:] else "of a batch extent above 1"
    mid = (" (a 3-D tile whose unit middle dimension is indexed by program id 2 is taken: the array's batch in its "
           "middle dimension)") if len(indices) == 3 and shape[1] == 1 else ""
    fail(op, f"{what} a {len(indices)}-D tile {shape} {how}: the WGMMA lowering takes 2-D tiles and 3-D tiles of "
             f"extent 1 at (program id 2, ...) (batched GEMM){mid}")


def is_mid_batch(indices: list, shape: list) -> bool:
    """Whether a 3-D operand or output tile is ``(rows, 1, cols)`` at ``(.., program id 2, ..)``: a batched GEMM's
    operand whose array holds the batch in its middle dimension (``[M, L, K]``, a sequence-first ``[S, B, K]``
    activation); the kernel reads (stores) it through a 3-D tensor map of the array's row and batch pitches
    (``GemmConfig.batch_mid``)."""
    return (len(indices) == 3 and len(shape) == 3 and shape[1] == 1 and shape[0] != 1 and shape[2] != 1
            and program_axis(_strip_assume(indices[1])) == 2)


def _mid_op(op: Operation) -> bool:
    """:func:`is_mid_batch` of a tile load or store."""
    if not isinstance(op, ts.TiledLoadOp | ts.TiledStoreOp):  # (an atomic sink, a gathered A: pointer tiles)
        return False
    tile = op.result if isinstance(op, ts.TiledLoadOp) else op.tile
    return is_mid_batch(list(op.indices), list(tile.type.get_shape()))


MID_REMARK = ("{role}'s array holds the batch in its middle dimension ([{rows}, L, {cols}], a ({r}, 1, {c}) tile at "
              "program id 2): the kernel {how} (each row's L matrices contiguous and its {cols} a whole number of 16 bytes at "
              "launch, else the launch runs on the SIMT path with a warning saying why)")
"""The located remark of an operand / output whose batch is its array's middle dimension."""

MID_ORDER_REFUSAL = ("a 3-D tile with a unit middle dimension read through a view with dimension order {order}: the "
                     "view's middle dimension and rows are other dimensions of the array, which the WGMMA lowering "
                     "does not map yet (it takes such a tile through a view of identity order)")
"""Why a (rows, 1, cols) tile at program id 2 through a permuted view is refused (review H2)."""


def _operand_view(op: Operation) -> SSAValue:
    """What an operand load reads through: a tile load's view, a gathered A's tile of pointers."""
    return op.ptr if op.name == "nv_tileaa.load" else op.view


def _batch_expressions(kinds: dict, a_load: Operation, b_load: Operation, more_b: list, st: Operation,
                       c_kind: set, fail) -> dict:
    """``{"a" | "b" | "c": (op, view, batch indices)}`` of a GEMM whose operand tiles have leading unit
    dimensions at indices other than program id 2 alone (:data:`BATCH_EXPR`): ``[B, H, M, K]`` tiles
    at ``(bh // H, bh % H, ...)``, a group index read from a table.  The kernel flattens each
    array's batch dimensions into one (the launcher checks that they are contiguous) and each agent
    evaluates the operand's flat batch index per work tile (:func:`_flat_batch_index`).  A, every B
    and C must all be batched; the Bs of dots sharing A at the same batch indices."""
    if st.name == ATOMIC_SINK:
        fail(st, "an atomic epilogue of a GEMM whose operands are batched at computed indices is not supported yet "
                 "by the WGMMA lowering")
    out = {}
    for role, op, kind in (("a", a_load, kinds[a_load]), ("b", b_load, kinds[b_load]), ("c", st, next(iter(c_kind)))):
        if role == "c" and kind is False:
            picked = [(r, ld) for r, ld in (("A", a_load), ("B", b_load)) if kinds[ld] is not False]
            if picked and (not any(_reads_program_id(list(ld.indices)[:len(ld.indices) - 2], 2) for _, ld in picked)
                           or _reads_program_id(list(st.indices), 2)):
                # a matrix picked per work tile (an expert read from a table at the row tile; a group's weight
                # at program id 2 whose C rows the group's offsets place) beside a 2-D C: C is the one matrix
                # every work tile stores its own tile of (flat batch index 0)
                out[role] = (op, _operand_view(op), [])
                continue
            fail(op, "C is 2-D while an operand is batched: every batch would store the same C tile (the WGMMA "
                     "lowering takes C batched, leading tile dimensions of extent 1, in that case)")
        if kind is False:  # a 2-D A or B: one matrix for every batch (split-K into a [S, M, N] workspace)
            out[role] = (op, _operand_view(op), [])
            continue
        if _memref_root(op.view) is None:
            fail(op, f"{role.upper()}'s view is not an array argument's own view: its batch dimensions cannot be "
                     "flattened into the WGMMA kernel's tensor map")
        rank = len(op.indices)
        out[role] = (op, op.view, list(op.indices)[:rank - 2])
    for ld in more_b:
        lead = [] if kinds[ld] is False else list(ld.indices)[:len(ld.indices) - 2]
        if len(lead) != len(out["b"][2]) or any(
                _strip_assume(x) is not _strip_assume(y) for x, y in zip(lead, out["b"][2])):
            fail(ld, "dots sharing A read their B tiles at other batch indices than the first B's")
    return out


def _batch_mid_roles(a_load: Operation, b_load: Operation, st: Operation, more_b: list, more_a: list,
                     batch_exprs: dict | None, ed, fail) -> str:
    """The roles (``"a"``, ``"b"``, ``"c"``) whose tile is ``(rows, 1, cols)`` at program id 2 (:func:`is_mid_batch`:
    the array's batch in its middle dimension); refuses, at the tile, the GEMM forms that do not take one yet."""
    roles = "".join(r for r, op in (("a", a_load), ("b", b_load), ("c", st)) if op is not None and _mid_op(op))
    for op in (*more_b, *more_a):
        if _mid_op(op):
            fail(op, "dots sharing A (or with an A each) reading a 3-D tile with a unit middle dimension: not "
                     "supported yet by the WGMMA lowering (the single dot's A, B and C are)")
    first = {"a": a_load, "b": b_load, "c": st}[roles[0]] if roles else None  # (where a refusal is located)
    if roles and batch_exprs is not None:
        fail(first, "a 3-D tile with a unit middle dimension in a GEMM whose other operands' batch indices are computed "
                 "per work tile (or one 2-D A beside a batched C): not supported yet by the WGMMA lowering (every "
                 "batched operand at program id 2 is)")
    if roles and ed is not None:
        fail(first, "a 3-D tile with a unit middle dimension in a GEMM with a "
             "second dot on the accumulator: not supported yet by the WGMMA lowering")
    return roles


def _shared_b(kinds: dict, a_load: Operation, b_loads: list, batched: set, more_b: list, fail) -> bool:
    """Whether the GEMM is batched with one B shared by every batch: A (and C, in ``batched``)
    batched at program id 2, every B tile 2-D or at the constant batch index 0 (``kinds``: each
    operand load's :func:`_batch_split` kind).  One B only (dots sharing A read batched Bs)."""
    b_kinds = {kinds[ld] for ld in b_loads}
    if kinds[a_load] is not True or False in batched or not b_kinds or not b_kinds <= {False, "shared"}:
        return False
    if more_b:
        fail(more_b[0], "dots sharing A with a B shared by every batch are not supported yet by the WGMMA lowering")
    return True


def _describe_index(v: SSAValue) -> str:
    axis = program_axis(v)
    if axis is not None:
        return f"program id {axis}"
    return "k" if _is_iv(v) else "an expression"


def _operand_source(v: SSAValue) -> Operation | None:
    """The tile load a dot operand reads: through layout conversions, permutes and reshapes that
    only add or drop extent-1 dimensions (a ``(1, tk, tn)`` tile of ``W[e]`` reshaped to 2-D)."""
    while isinstance(v.owner, Operation):
        op = v.owner
        if op.name == "nv_tileaa.reshape":
            src = list(op.operands[0].type.get_shape())
            if [d for d in src if d != 1] != [d for d in v.type.get_shape() if d != 1]:
                break
        elif op.name not in ("nv_tileas.convert_layout", "nv_tileaa.permute"):
            break
        v = op.operands[0]
    return source_load(v)


def _through_layouts(v: SSAValue) -> tuple[SSAValue, list[str]]:
    names = []
    while isinstance(v.owner, Operation) and v.owner.name in ("nv_tileas.convert_layout", "nv_tileaa.permute"):
        names.append(v.owner.name)
        v = v.owner.operands[0]
    return v, names


def _unit_dim_transpose(v: SSAValue) -> bool:
    """Whether the operand ``v`` reaches the dot transposed through ops that only add or drop
    extent-1 dimensions: layout conversions, ``reshape`` ops keeping the order of the other
    dimensions, and ``permute`` ops (a batched ``(1, n, k)`` tile turned by ``ct.permute(w, (0, 2,
    1))`` then reshaped to 2-D); an odd number of swaps of its two non-unit dimensions."""
    swaps = 0
    while isinstance(v.owner, Operation):
        op = v.owner
        if op.name == "nv_tileas.convert_layout":
            pass
        elif op.name in ("nv_tileaa.reshape", "nv_tileaa.permute"):
            src = list(op.operands[0].type.get_shape())
            if sorted(d for d in src if d != 1) != sorted(d for d in v.type.get_shape() if d != 1):
                return False
            if op.name == "nv_tileaa.permute":
                perm = list(op.permutation.get_values())
                order = [p for p in perm if src[p] != 1]  # the non-unit source dims in result order
                if len(order) != 2:
                    return False
                swaps += order[0] > order[1]
        else:
            break
        v = op.operands[0]
    return swaps % 2 == 1


def _full_k_loop(loop: scf.ForOp, a_load, a_major: str, b_load, b_major: str) -> bool:
    """Whether the program's K loop runs from 0 in steps of 1 up to the number of K tiles of A or B
    (``ct.num_tiles``: ``get_dim_size`` of a tiled view of the operand's array along its K
    dimension, with the loaded K depth, or ``ct.cdiv`` of the K extent): the kernel builder's own
    K range.  Any other loop runs its own bounds (:func:`_k_bounds`).  ``a_major``/``b_major``:
    where K sits in the loads' tile indices (``k``: last for A, first for B), before a view's
    dimension order is taken into account."""
    if constant_int(loop.lb) != 0 or constant_int(loop.step) != 1:
        return False
    ub = loop.ub
    while isinstance(ub.owner, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp | arith.TruncIOp):
        ub = ub.owner.operands[0]
    k_axes = []  # (view, K's tile axis, K's array dimension, the loaded K depth)
    for ld, major, k_first in ((a_load, a_major, "m"), (b_load, b_major, "n")):
        if ld is None:  # (a gathered A: B's K alone)
            continue
        rank = len(ld.indices)
        axis = rank - 2 if major == k_first else rank - 1
        if _mid_op(ld):  # (rows, 1, cols): the matrix's dimensions are 0 and 2
            axis = 0 if major == k_first else 2
        k_axes.append((ld.view, axis, ints(ld.view.type.order)[axis], list(ld.result.type.get_shape())[axis]))
    owner = ub.owner
    if isinstance(owner, aa.GetDimSizeOp):
        src, index = owner.operands[0], owner.index.value.data
        if isinstance(src.type, aa.TiledViewType):  # tiles of src along array dimension order[index]
            dim, depth = ints(src.type.order)[index], ints(src.type.tile)[index]
            for view, _, k_dim, k_depth in k_axes:
                if _same_view(src, view) and (dim, depth) == (k_dim, k_depth):
                    return True
    if isinstance(owner, arith.CeilDivSIOp | arith.CeilDivUIOp):
        # ct.cdiv(A.shape[k_dim], tk): the K extent of A's or B's array over the loaded K depth
        extent, depth = _strip_assume(owner.lhs), constant_int(owner.rhs)
        for view, _, k_dim, k_depth in k_axes:
            if depth == k_depth and extent is _memref_extent(view, k_dim):
                return True
    return False


def _k_range(loop: scf.ForOp, a_load, index_majors: tuple[str, str], b_load, more_b: list, tk: int,
             fail) -> tuple[KLoop | None, int, str]:
    """How the kernel runs the program's K loop: ``(k_bounds, k_used, remark)``.

    * the builder's own range (``range(num K tiles)``, the iv as the tile index): ``(None, 0, "")``;
    * constant bounds over K tiles ``0 .. T - 1`` in order (``range(T)``, one dot on tile 0): the
      plain GEMM for ``K <= T * tk`` (``k_used``; the launcher sends a larger K to the SIMT path);
    * any other range (:func:`~tileorch.transforms.tileas.k_range.k_loop`: start, stop and step of
      constants or program values, a K tile index affine in the iv): the :class:`KLoop`, run per
      work tile with its own trip count and first tile / stride (:func:`_program_k_range`)."""
    try:
        kl = k_loop(loop, [_k_coordinate(ld, fail) for ld in (a_load, b_load, *more_b) if ld is not None])
    except KRangeError as exc:
        fail(exc.op, str(exc))
    if kl.map.identity and _full_k_loop(loop, a_load, index_majors[0], b_load, index_majors[1]):
        return None, 0, ""
    tiles = kl.tiles_from_zero()
    if tiles is not None:
        return None, tiles * tk, (f"the K loop ({kl.describe()}) reads K tiles 0 .. {tiles - 1} of {tk}: the kernel "
                                  f"runs it as the plain GEMM for K <= {tiles * tk} (a larger K runs on the SIMT path)")
    return kl, 0, (f"the K loop ({kl.describe()}) runs the program's own trip count per work tile, the producer "
                   "loading K tile first + stride * i in iteration i (evaluated per tile: split-K, partial and "
                   "strided K ranges; an empty range stores the zero accumulator's epilogue)")


def _check_atomic_add(op: Operation, what: str, fail) -> None:
    """An ``atomic_rmw`` the epilogue makes (``what`` it adds, for the message): float add into f32 (or integer add
    into i32), its old values unused, not system scope."""
    mode = op.rmw_mode.value.data
    elt = sink_tile(op).type.element_type
    if not ((mode == "addf" and isinstance(elt, Float32Type)) or (mode == "add" and elt == IntegerType(32))):
        fail(op, f"an atomic '{mode}' of {elt} elements {what}: the WGMMA lowering takes atomic adds into f32 (addf) "
                 "or i32 (add)")
    if op.results[0].uses:
        fail(op, "the epilogue reads the old values of its atomic add (only the update is supported)")
    if op.mem_scope.value.data == "sys":
        fail(op, "a system-scope atomic add in the epilogue is not supported (device scope is)")


def _check_atomic_sink(op: Operation, tm: int, tn: int, fail) -> None:
    """The result accumulated into global memory with ``atomic_rmw``: :func:`_check_atomic_add`, of the
    accumulator's tile shape."""
    _check_atomic_add(op, "as the epilogue's output", fail)
    shape = list(sink_tile(op).type.get_shape())
    if shape != [tm, tn]:
        fail(op, f"the atomically added tile {shape} is not the {tm}x{tn} accumulator tile")


def _check_side_atomic(op: Operation, fail) -> None:
    """A row or column reduction of the result added atomically beside C (``ct.atomic_add(S, (cols,),
    ct.sum(acc, axis=0))``): :func:`_check_atomic_add` (each CTA tile's one partial per row / column, added by one
    thread)."""
    _check_atomic_add(op, "of a reduction of the result beside C", fail)


def _strip_assume(v: SSAValue) -> SSAValue:
    while isinstance(v.owner, Operation) and v.owner.name in ("nv_tileaa.assume", "arith.index_cast",
                                                              "arith.extsi", "arith.extui", "arith.trunci"):
        v = v.owner.operands[0]
    return v


def _memref_root(view: SSAValue) -> Operation | None:
    """The ``make_memref`` a tiled view was made from (through ``block_tile``), or None."""
    v = view
    while isinstance(v.owner, Operation) and v.owner.name == "nv_tileaa.block_tile":
        v = v.owner.operands[0]
    return v.owner if isinstance(v.owner, aa.MakeMemrefOp) else None


def _memref_extent(view: SSAValue, axis: int) -> SSAValue | None:
    """The size operand of ``axis`` of the array a tiled view was made from (``make_memref``)."""
    mk = _memref_root(view)
    if mk is None:
        return None
    dims = [d.data for d in mk.result.type.shape.data]
    if axis >= len(dims) or dims[axis] >= 0:  # a static extent has no operand
        return None
    dynamic = sum(1 for d in dims[:axis] if d < 0)
    return _strip_assume(list(mk.shape)[dynamic])


def _same_view(x: SSAValue, y: SSAValue) -> bool:
    def root(v):
        while isinstance(v.owner, Operation) and v.owner.name in ("nv_tileaa.block_tile", "nv_tileaa.make_memref"):
            v = v.owner.operands[0]
        return v
    return x == y or root(x) == root(y)


def padded_operand(dots) -> tuple[Operation, str] | None:
    """(the tile load, its padding value) of a dot operand read (through layout, shape and
    element-type changes) with a padding other than zeros (``padding_mode=NAN`` / ``NEG_ZERO`` / an
    infinity), if any: TMA fills out-of-bounds elements with zeros only."""
    for dot in dots:
        for v in (dot.lhs, dot.rhs):
            op = v.owner
            while isinstance(op, Operation) and op.name in _OPERAND_PATH and op.operands:
                op = op.operands[0].owner
            pad = op.properties.get("padding_value") if isinstance(op, Operation) else None
            if pad is not None and pad.value.data not in ("zero", "undef"):
                return op, pad.value.data
    return None


def padded_operand_message(pad: str) -> str:
    return (f"this dot operand is loaded with padding_mode={pad.upper()}, which the tensor-core tier does not take: "
            "it reads A and B through TMA, whose out-of-bounds elements are zeros (ZERO, or no padding mode, runs on it)")


NO_TMA_OPERAND = ("this dot operand is loaded with allow_tma=False, which the tensor-core tier honours by not "
                  "taking the kernel: it reads A and B through TMA (drop the hint to run on it)")


def no_tma_operand(dots) -> Operation | None:
    """The tile load a dot operand is read from (through layout, shape and element-type changes)
    whose ``allow_tma`` hint is false, if any."""
    for dot in dots:
        for v in (dot.lhs, dot.rhs):
            op = v.owner
            while isinstance(op, Operation) and op.name in _OPERAND_PATH and op.operands:
                op = op.operands[0].owner
            hint = op.properties.get("allow_tma") if isinstance(op, Operation) else None
            if isinstance(hint, IntegerAttr) and not hint.value.data:
                return op
    return None


COMPUTED_OPERAND = ("this dot operand is computed in the kernel (e.g. int4 weights unpacked and scaled in the K loop), "
                    "which the tensor-core tier does not take yet: it reads A and B as tiles of the kernel's arrays "
                    "through TMA (ct.load), or computed from their own tile of the dot's shape by elementwise ops "
                    "whose other operands are scalars or vectors of one wide dimension (no tile reshaped, unpacked "
                    "or of another shape)")


IF_CHOSEN_OPERAND = ("this dot operand is chosen by an if / else in the kernel (e.g. the last tile loaded with "
                     "padding_mode=ZERO, the others without), which the tensor-core tier does not take: it reads A and "
                     "B as one TMA tile load each; load the tile once outside the if (a ZERO-padded load reads "
                     "in-bounds tiles exactly, and TMA pads out-of-bounds elements with zeros)")


def computed_operand_message(computed: Operation) -> str:
    """Why the tier refuses the dot operand ``computed`` computes (:func:`_computed_operand`): an operand chosen by
    an ``if`` (an ``scf.if`` yielding it) named as such, a constant tile, else :data:`COMPUTED_OPERAND`."""
    if computed.name == "scf.if":
        return IF_CHOSEN_OPERAND
    return CONSTANT_OPERAND if _is_constant_tile(computed) else COMPUTED_OPERAND


CONSTANT_OPERAND = ("this dot operand is a constant tile (ct.ones / ct.full / ct.zeros, no array read), which the "
                    "tensor-core tier does not take: it reads A and B as tiles of the kernel's arrays through TMA "
                    "(pass the constant as an array argument; a product with ct.ones is a row sum: ct.sum(a, axis=1))")


def _is_constant_tile(op: Operation) -> bool:
    """Whether ``op`` computes its tile from constants alone (no load, argument or program id)."""
    seen, todo = set(), [op]
    while todo:
        o = todo.pop()
        if o in seen:
            continue
        seen.add(o)
        if o.regions or "load" in o.name or "gather" in o.name or "program" in o.name:
            return False
        for v in o.operands:
            if not isinstance(v.owner, Operation):
                return False
            todo.append(v.owner)
    return True


def _computed_operand(dots) -> Operation | None:
    """The op computing a dot operand from other values (not a staged tile load reached through
    layout, shape and element-type changes), if any."""
    for dot in dots:
        for v in (dot.lhs, dot.rhs):
            op = _operand_compute_op(v)
            if op is not None:
                return op
    return None


def _operand_compute_op(v: SSAValue) -> Operation | None:
    """The op computing the dot operand ``v`` (reached through layout, shape and element-type
    changes) when it is not a tile load."""
    op = v.owner
    while isinstance(op, Operation) and op.name in _OPERAND_PATH and op.operands:
        op = op.operands[0].owner
    return op if isinstance(op, Operation) and "load" not in op.name else None


RAW_NAMES = {"i8": "s8", "i32": "s32", "f16": "f16", "bf16": "bf16", "f32": "f32", "f8E4M3FN": "e4m3",
             "f8E5M2": "e5m2"}
"""A computed B's raw tile element type -> the kernel builder's name (:data:`~tileorch.kernels.gemm.config.RAW_DTYPES`:
TMA moves bytes, the program's own ops read them)."""


@dataclass(frozen=True)
class _OperandSide:
    """What a computed A and a computed B differ in: the operand's letter (with its article), where
    its tile is (``tile``, and ``tile_t`` for the operand stored transposed, read through a permute),
    the load's major that means the transposed tile, and why several dots cannot share it."""

    letter: str
    article: str
    tile: str
    tile_t: str
    transposed_major: str
    several_dots: str

    def operand(self, dot: Operation) -> SSAValue:
        return dot.lhs if self.letter == "A" else dot.rhs


_A_SIDE = _OperandSide("A", "an", "(program id 0, k)", "(k, program id 0)", "m",
                       "an A computed in the K loop shared by several dots is not supported yet by the WGMMA lowering")
_B_SIDE = _OperandSide("B", "a", "(k, program id 1)", "(program id 1, k)", "k",
                       "a B computed in the K loop beside dots sharing A is not supported yet by the WGMMA lowering")


def _computed_side(side: _OperandSide, kernel: aa.FuncOp, dot: Operation, dots: list, load: Operation, major: str,
                   converted: bool, fail):
    """(the prologue, the raw element type's name) of the dot's operand ``side`` computed in the K
    loop from its tile ``load`` by the program's elementwise ops and vectors (``relu(a)``,
    ``a.astype(f16) * s``, ``a * gamma[k]``:
    :func:`~tileorch.transforms.tileas.operand_prologue.operand_prologue`), or (None, "") when the
    dot reads the load as it is (through layouts and casts the tier folds) and is not ``converted``
    (the load's tile converted to another 16-bit type, which the consumers compute from the raw
    tile).  Refuses (``fail``) a computed operand the WGMMA lowering does not evaluate."""
    v = side.operand(dot)
    top, _ = _through_layouts(v)
    if _operand_compute_op(v) is None and not converted:
        return None, ""
    from tileorch.transforms.tileas.operand_prologue import operand_prologue

    x = side.letter
    root, pro = operand_prologue(kernel, dot, fail, v, f"the dot's {x}",
                                 f"evaluated by the consumer warp groups into the WGMMA's {x} tile", tile_load=load)
    if pro is None:
        raise LocatedError(top.owner, COMPUTED_OPERAND)
    if len(dots) > 1 and (side.letter == "B" or any(not _same_a(dot, d, None) for d in dots)):
        fail(pro.top.owner, side.several_dots)
    if pro.reductions:
        fail(pro.reductions[0], f"this {x} is computed from its tile with a reduction, which the WGMMA lowering does "
                                "not evaluate (elementwise ops with scalars and vectors of one wide dimension are)")
    src, seen = _strip_operand(root)
    if source_load(src) is not load:
        fail(pro.top.owner, f"this computed {x} is not computed from {x}'s tile at {side.tile} or {x}^T at "
                            f"{side.tile_t}")
    transposed = "nv_tileaa.permute" in pro.seen or "nv_tileaa.permute" in seen
    if transposed != (major == side.transposed_major) or "nv_tileaa.permute" in seen:
        fail(pro.top.owner, f"a computed {x}^T tile {side.tile_t} is taken transposed after its computation "
                            f"(ct.transpose of the computed tile), {side.article} {x} tile {side.tile} without a "
                            "transpose")
    elt = load.result.type.element_type
    raw = RAW_NAMES.get(str(elt))
    if raw is None:
        fail(load, f"a computed {x} read from a tile of {elt} is not supported yet by the WGMMA lowering (raw tiles "
                   f"of {', '.join(RAW_NAMES)})")
    return pro, raw


def _converted_a(dot: Operation, a_load: Operation) -> bool:
    """A converted to another 16-bit type than its load's (an int8 or fp8 activation ``astype``'d):
    a computed A."""
    return (str(dot.lhs.type.element_type) in ("f16", "bf16")
            and str(a_load.result.type.element_type) != str(dot.lhs.type.element_type))


def _computed_a_dtype(pro, fail) -> str:
    """The builder's name of a computed A's operand type: f16 or bf16."""
    name = _element_name(pro.top.type.element_type)
    if name not in ("f16", "bf16"):
        fail(pro.top.owner, f"an A computed in the K loop as {name}: the WGMMA lowering takes a computed A of f16 "
                            "or bf16")
    return name


def _element_name(t) -> str:
    """The builder's name of element type ``t`` (:func:`_dtype`), else its IR spelling."""
    try:
        return _dtype(t)
    except ValueError:
        return str(t)


def _upcast_fp8(v: SSAValue, b_load: Operation) -> bool:
    """The dot operand ``v`` is B's tile converted to another 16-bit type (``astype``: an fp8 tile
    widened, WGMMA taking no fp8 x 16-bit mix; an f32 weight rounded to bf16; f16 to bf16): the
    consumers compute the 16-bit operand from the raw tile."""
    elt = str(b_load.result.type.element_type)
    return elt in RAW_NAMES and elt != str(v.type.element_type) and str(v.type.element_type) in ("f16", "bf16")


def _check_folded_conversion(operand: SSAValue, load: Operation, signed: bool, what: str, fail) -> None:
    """The dot's operand ``what`` reads its tile load through casts the tier folds (f32 read as tf32,
    layouts): a conversion to another WGMMA type between them (an f16 tile rounded to fp8 by
    ``astype``) is not one, and the kernel would multiply the load's values unconverted: refused,
    located at the conversion (the SIMT path rounds each element as the program says)."""
    def name(elt) -> str:
        try:
            return _operand_dtype(elt, signed)
        except ValueError:
            return str(elt)

    want, have = name(operand.type.element_type), name(load.result.type.element_type)
    if want == have or {want, have} == {"tf32", "f32"}:
        return
    top, _ = _through_layouts(operand)
    where = top.owner if isinstance(top.owner, Operation) else load
    fail(where, f"the dot's {what} is its {have} tile converted to {want} in the K loop (astype), which the WGMMA "
                f"lowering does not compute (it computes conversions to f16 or bf16): load the operand as {want}, "
                "or convert it to f16/bf16")


def _strip_operand(v: SSAValue) -> tuple[SSAValue, list[str]]:
    names = []
    while isinstance(v.owner, Operation) and v.owner.name in ("nv_tileas.convert_layout", "nv_tileaa.permute",
                                                                "nv_tileaa.reshape", "nv_tileas.expand_dim",
                                                                "nv_tileaa.expand_dims"):
        names.append(v.owner.name)
        v = v.owner.operands[0]
    return v, names


def _computed_b_dtype(pro, dtype: str, fail) -> str:
    """The builder's name of a computed B's operand type, which must be A's 16-bit type."""
    name = _element_name(pro.top.type.element_type)
    if name != dtype or dtype not in ("f16", "bf16"):
        fail(pro.top.owner, f"a B computed in the K loop as {name} with an A of {dtype}: the WGMMA lowering takes a "
                            "computed B of A's type, f16 or bf16")
    return name


def no_wgmma_why(dot: Operation) -> str:
    """Why a dot has no WGMMA atom, in the program's terms where assign-dot-layouts gave it the
    scalar FMA atom (f64 operands, fewer than 8 product columns), else naming the atom."""
    if not isinstance(dot.atom, ts.FmaAtomAttr):
        return f"the dot's MMA atom is {dot.atom}, not a WGMMA (mma.sm90) atom"
    shape = list(dot.result.type.get_shape())
    depth = dot.lhs.type.get_shape()[-1]
    operand = dot.lhs.type.element_type
    if isinstance(operand, Float64Type):
        return ("this dot multiplies f64 tiles: the tensor cores' WGMMA takes f16, bf16, tf32 (f32), fp8 and int8 "
                "operands, not f64")
    if shape[-1] < 8:
        return (f"this dot's product has {shape[-1]} column(s) ({shape} from a K tile of {depth}"
                f"{': a matrix-vector product' if shape[-1] == 1 else ''}): a WGMMA's N is a multiple of 8 "
                "(8 to 256); load the vector as a zero-padded [K, 16] tile, or compute it as "
                "ct.sum(a * x[None, :], axis=1)")
    return (f"this dot's tile {shape} with a K tile of {depth} ({operand} operands) has no WGMMA shape (M 64 or "
            "128 per warp group, N a multiple of 8 up to 256, K a multiple of 16 for 16-bit operands)")


WRITES = ("nv_tileaa.store", "nv_tileaa.tiled_store", "nv_tileas.tiled_store", "nv_tileaa.atomic_rmw",
          "nv_tileaa.atomic_cas", "nv_tileaa.print", "nv_tileaa.assert")
"""Ops that write memory, print or stop the kernel: the WGMMA kernel runs only those inside the schedule's agent
switch."""


UNLOWERED_WRITES = {name: WRITE_WORDS[name] for name in ("nv_tileaa.store", "nv_tileaa.atomic_cas", "nv_tileaa.print",
                                                         "nv_tileaa.assert")}
"""The ops of :data:`WRITES` the WGMMA kernel builder has no lowering for inside the work tile: it builds the
epilogue from C's tile store or atomic add, the accumulator-shaped tiles and row / column reductions stored beside
it, and nothing else -- any other write would be dropped from the kernel (found by user sweep 26: a ``ct.scatter``
beside C's store wrote nothing; user sweep 27: a ``ct.assert_`` given to the pass by ``tileorch-opt``, past the
driver's refusal of it, was dropped)."""


def _refuse_unlowered_writes(sw: Operation, fail) -> None:
    """A located error at the first op of :data:`UNLOWERED_WRITES` inside the agent switch ``sw`` (the
    tensor-core path refuses the kernel: its SIMT path runs every write)."""
    for o in sw.walk():
        if o.name in UNLOWERED_WRITES:
            hint = ("tileorch compile runs such a kernel on the SIMT path" if o.name in ("nv_tileaa.assert",
                                                                                      "nv_tileaa.print")
                    else "store the values as such a tile, or add them into a zeroed array with ct.atomic_add")
            fail(o, f"{UNLOWERED_WRITES[o.name]} in the GEMM's work tile is not supported yet by the WGMMA lowering, "
                    "whose epilogue writes only C (a tile store or an atomic add of the result) and tiles or row / "
                    f"column reductions of the result at C's tile; it would be dropped ({hint})")


def _refuse_writes_outside(kernel: aa.FuncOp, sw: Operation, fail) -> None:
    """A located error at the first op of :data:`WRITES` outside the agent switch ``sw``: the kernel
    this lowering builds runs the switch's work tiles only, so such an op (the zeros an early-return
    branch stores for a tile it skips: ``if e < 0: ct.store(Y, .., zeros); return``) would be dropped."""
    inside = {id(o) for o in sw.walk()}
    for o in kernel.walk():
        if o.name in WRITES and id(o) not in inside:
            fail(o, f"{o.name.split('.')[-1]} outside the GEMM's work tile (e.g. zeros stored by a branch that skips "
                    "the dot, then returns): not supported yet by the WGMMA lowering, whose kernel runs the dot's tile "
                    "alone (store under the same condition as C, or let the dot's zero-padded operands give the "
                    "zeros)")


UNACCUMULATED_DOT = (
    "this dot's product is not accumulated over its loop (each step's product starts from zeros and is only reduced "
    "or stored, e.g. a log-sum-exp or the row statistics of attention scores without the second dot P V): the "
    "tensor-core kernels (TMA + WGMMA) take a dot accumulated over a loop of K tiles (a GEMM) or a chain of two dots "
    "(attention); the SIMT path runs this one on mma.sync (an LSE alone: compute it beside O in the forward, whose "
    "chained kernel stores the row statistics)")
"""The refusal of a loop whose one dot reads a constant accumulator and whose result is not carried by the loop."""


def _loop_carried_acc(dot: Operation, limit: int = 64) -> bool:
    """Whether ``dot``'s accumulator reads a loop's carried value (a block argument of an ``scf.for`` body), through
    at most ``limit`` ops: a GEMM's ``acc = mma(a, b, acc)``; a product from ``ct.zeros`` every step is not."""
    stack, seen = [dot.acc], set()
    while stack and len(seen) < limit:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, BlockArgument):
            if isinstance(v.block.parent_op(), scf.ForOp):
                return True
            continue
        stack.extend(v.owner.operands)
    return False


F16_ACCUMULATOR_REMARK = ("this dot's f16 accumulator is kept in f32 by the WGMMA kernel (each K step accumulated "
                          "in f32, rounded to f16 once where the epilogue reads it): at least as accurate as f16 "
                          "accumulation, not bit for bit the same")
"""The located remark of a dot whose accumulator is f16 (the tier's WGMMAs accumulate in f32)."""

def analyze_dot_kernel(kernel: aa.FuncOp) -> DotKernel:
    """Read the tier's warp-specialized dot kernel; a located error says why one cannot be lowered."""

    def fail(op: Operation, why: str):
        raise LocatedError(op, f"convert-nv-tileas-to-cutlass: {why}")

    switches = [o for o in kernel.walk() if isinstance(o, AgentSwitchOp)]
    if len(switches) != 1:
        fail(kernel, f"expected one agent_switch (run tileas-materialize-schedule), found {len(switches)}")
    sw = switches[0]
    _refuse_writes_outside(kernel, sw, fail)
    dots = [o for o in sw.walk() if isinstance(o, ts.DotOp)]
    ed = find_epilogue_dot(kernel)  # a second dot on the K loop's result (GEMM then GEMM)
    if ed is not None:
        padded = padded_operand([ed.dot])  # E read with NaN / infinity padding: TMA would give zeros
        if padded is not None:
            raise LocatedError(padded[0], padded_operand_message(padded[1]))
        check_epilogue_dot(ed, sw)
        dots = [d for d in dots if d is not ed.dot]
        if ed.lora:  # the main dot first (C's tile), the low-rank one as the second B
            dots = [ed.main, *[d for d in dots if d is not ed.main]]
    own_a = ed is None and own_a_dots(dots)  # an A tile per dot (a_operands > 1)
    if len(dots) > 1:
        _check_shared_a_dots(dots, fail, low_rank=ed is not None and ed.lora, own_a=own_a)
    dot = dots[0]
    shape = list(dot.result.type.get_shape())
    small_tile = len(shape) == 2 and shape[0] < 64
    if not isinstance(dot.atom, ts.MmaSm90AtomAttr) and not (small_tile and isinstance(dot.atom, ts.MmaSm80AtomAttr)):
        fail(dot, no_wgmma_why(dot))
    # a tile of fewer than 64 rows has no WGMMA atom of its own (assign-dot-layouts gave it
    # mma.sync): the kernel builder runs it retiled to its 128-row tiles (builder_tile), which
    # needs an epilogue that does not depend on the tile shape
    if len(shape) != 2:
        fail(dot, f"a {len(shape)}-D dot of tile {shape}: the WGMMA lowering takes 2-D dots (batched dots with a "
                  "batch tile of 1 are squeezed to 2-D by tileas-squeeze-unit-batch-dots; larger batch tiles are "
                  "not supported yet)")
    tm, tn = shape
    tk = dot.lhs.type.get_shape()[-1]
    tn_c = ed.n if ed is not None else tn  # C's tile columns: the second dot's N
    loads = [o for o in sw.walk() if isinstance(o, ts.TiledLoadOp) and o.dst is not None]
    # vectors the program loads in the K loop (a per-K-row scale, a group's scale row): the producer staged
    # them; a computed B's map reads them (checked below), from global memory in the WGMMA kernel
    staged_vectors = [ld for ld in loads if len([x for x in ld.result.type.get_shape() if x != 1]) <= 1]
    loads = [ld for ld in loads if ld not in staged_vectors]
    gathered = gathered_operand(dots)
    refused = gathered and gathered_a_refusal(gathered, dots, loads, sum(isinstance(o, ts.TiledStoreOp)
                                                                          for o in sw.walk()))
    if refused:
        raise LocatedError(gathered[0], gathered_operand_message(gathered[1], gathered[2], refused))
    a_gather = gathered[0] if gathered is not None else None
    n_b = len({id(_operand_source(d.rhs)) for d in dots}) if own_a else len(dots)  # (own A: one B may serve all)
    if a_gather is None and (len(loads) != (len(dots) if own_a else 1) + n_b
                             or not all(isinstance(ld.atom, ts.TmaLoadAtomAttr) for ld in loads)):
        computed = _computed_operand(dots)
        if computed is not None:
            raise LocatedError(computed, computed_operand_message(computed))
        no_tma = no_tma_operand(dots)
        if no_tma is not None:
            raise LocatedError(no_tma, NO_TMA_OPERAND)
        padded = padded_operand(dots)
        if padded is not None:
            raise LocatedError(padded[0], padded_operand_message(padded[1]))
        if len(dots) == 1 and not _loop_carried_acc(dots[0]):
            raise LocatedError(dots[0], UNACCUMULATED_DOT)
        fail(sw, f"expected a producer agent with {1 + len(dots)} TMA tile loads (A and {len(dots)} B); found "
                 f"{len(loads)} staged loads")
    a_load = b_load = None
    a_major, b_major = "k", "n"
    batched = set()
    kinds = {}  # load -> True / False / "shared" (its batch index: program id 2, none, the constant 0)
    b_found = []  # (load, major) of every B-role load
    a_more = []  # (load, major) of the A-role loads after the first (own_a: an A per dot)
    for ld in loads:
        indices, shape, is_batched = _batch_split(ld, list(ld.indices), list(ld.result.type.get_shape()), fail)
        kinds[ld] = is_batched
        ax0, ax1 = program_axis(indices[0]), program_axis(indices[1])
        # the operands the load feeds (when it reaches a dot through layouts and unit reshapes): with tm == tn an
        # A tile at (program id 1, k) reads like B^T and a B tile at (k, program id 0) like A^T
        sides = _fed_sides(ld, dots)
        may_a, may_b = not sides or "a" in sides, not sides or "b" in sides
        if may_a and ax0 == 0 and _is_iv(indices[1]) and shape == [tm, tk] and (a_load is None or own_a):
            if a_load is None:
                a_load = ld
            else:
                a_more.append((ld, "k"))
        elif may_b and _is_iv(indices[0]) and ax1 == 1 and shape == [tk, tn] and (ed is None or ed.lora):
            b_found.append((ld, "n"))
        elif ed is not None and _is_iv(indices[0]) and _is_zero_index(indices[1]) and shape == [tk, ed.rank]:
            b_found.append((ld, "n"))  # the first dot's B (or the low-rank one's): the whole [K, R] column block
        elif ed is not None and _is_zero_index(indices[0]) and _is_iv(indices[1]) and shape == [ed.rank, tk]:
            b_found.append((ld, "k"))  # ... read transposed from [R, K] (nn.Linear's layout)
        elif may_b and ax0 == 1 and _is_iv(indices[1]) and shape == [tn, tk]:
            b_found.append((ld, "k"))
        elif may_a and _is_iv(indices[0]) and ax1 == 0 and shape == [tk, tm]:
            if own_a and a_load is not None:
                a_more.append((ld, "m"))
            else:
                a_load, a_major = ld, "m"
        else:  # tile indices other than program ids: the role of the dot operand it feeds
            role = _operand_role(ld, dots, indices, shape, (tm, tn, tk))
            computed = _computed_operand(dots) if role is None else None
            if computed is not None:  # e.g. packed int4 weights: a tile of another shape, unpacked into B
                raise LocatedError(computed, computed_operand_message(computed))
            if role is None:
                fail(ld, f"operand tile {shape} at ({', '.join(_describe_index(i) for i in indices)}) does not feed "
                         f"a {tm}x{tn}x{tk} dot as A (program id 0, k) / A^T (k, program id 0) or B (k, program id 1) / "
                         "B^T (program id 1, k) (or a tile index computed from program ids, grid sizes and scalar "
                         "arguments in place of the program id)")
            if role[0] == "a" and a_load is None:
                a_load, a_major = ld, role[1]
            elif role[0] == "a" and own_a:
                a_more.append((ld, role[1]))
            elif role[0] == "b":
                b_found.append((ld, role[1]))
            else:
                fail(ld, "a second A tile load feeding the dot")
    if (a_load is None) == (a_gather is None) or len(b_found) != n_b:
        fail(sw, f"expected one A and {'one B tile load' if len(dots) == 1 else f'{len(dots)} B tile loads'}")
    if a_gather is not None:  # the gather stands for A's load: 2-D (no batch index), its row tile C's (below)
        a_load = a_gather
        kinds[a_load] = False
    a_of = {d: (a_load, a_major) for d in dots}  # each dot's A: the one A, or (own_a) the A-role load it reads
    if own_a:
        a_of = _own_a_loads(dots, [(a_load, a_major), *a_more], kinds, fail)
        a_load, a_major = a_of[dot]
    more_a = [a_of[d][0] for d in dots[1:]] if own_a else []
    for ld, role in (*(((a_load, "A"),) if a_gather is None else ()), *((b, "B") for b, _ in b_found),
                     *((x, "A") for x in more_a)):
        why = argument_view_mismatch(kernel, ld.view)
        if why is not None:
            fail(ld, f"{role}'s view: {why}; the WGMMA kernel reads {role} through a tensor map of the whole "
                     "argument (not supported yet)")
    # each dot's B: the B-role load its rhs reads (one dot: the one B-role load)
    b_of = {}
    for d in dots:
        src = _operand_source(d.rhs)
        match = [(ld, major) for ld, major in b_found if ld is src]
        if len(dots) > 1 and not match:
            fail(d, "this dot's B is not one of the B tile loads at (k, program id 1) or B^T at (program id 1, k)")
        b_of[d] = match[0] if match else b_found[0]
    if len({id(b_of[d][0]) for d in dots}) != n_b or (own_a and n_b not in (1, len(dots))):
        fail(dots[1], "dots with an A each read some B tiles together and others apart: the WGMMA kernel reads a B "
                      "per dot or one B for all" if own_a else "two dots sharing A read the same B tile (write one "
                      "dot)")
    b_load, b_major = b_of[dot]
    # the roles read from the indices must be the loads the dot reads (square tiles cannot tell)
    for d in dots:
        for ld, operand, role, want in ((a_of[d][0], d.lhs, "A", "(program id 0, k) or A^T at (k, program id 0)"),
                                        (b_of[d][0], d.rhs, "B", "(k, program id 1) or B^T at (program id 1, k)")):
            src = _operand_source(operand)
            if src is not None and src is not ld:
                fail(src, f"this tile feeds the dot as {role}, but its indices do not read {role}'s tile of the "
                          f"stored C (C at (program id 0, program id 1) takes {role} at {want})")
        if b_of[d][1] == "k":
            rhs, names = _through_layouts(d.rhs)
            if "nv_tileaa.permute" not in names and not _unit_dim_transpose(d.rhs):
                fail(*(early_transpose_refusal("B", "(program id 1, k)", d.rhs)
                       or (d, "B tile (program id 1, k) reaches the dot without a transpose")))
    more_b = [b_of[d][0] for d in dots[1:]] if n_b > 1 else []  # (dots with an A each sharing B: the one B)
    if any(b_of[d][1] != b_major for d in dots) or any(
            ints(ld.view.type.order) != ints(b_load.view.type.order) for ld in more_b):
        fail(dots[1], "dots sharing A read their B tiles in different layouts (one B^T, another B, or a view "
                      "with another dimension order): the WGMMA kernel reads every B alike")
    for d in (dots if own_a else [dot]) if a_major == "m" else ():
        lhs, names = _through_layouts(d.lhs)
        if "nv_tileaa.permute" not in names and not _unit_dim_transpose(d.lhs):
            fail(*(early_transpose_refusal("A", "(k, program id 0)", d.lhs)
                   or (d, "A tile (k, program id 0) reaches the dot without a transpose")))
    # the operands' tile coordinates (the index beside K): program ids 0 / 1 on the scheduler's tiles (a
    # gathered A's rows are C's: its tile coordinate is C's row tile, read below)
    a_coord = _tile_coordinate(a_load, fail) if a_gather is None else None
    b_coord = _tile_coordinate(b_load, fail)
    if ed is not None:  # the first dot's B (a low-rank branch's: B 1) is the [K, R] block at column tile 0
        first_b = more_b[0] if ed.lora else b_load
        check_first_dot_b(first_b, _strip_assume(_tile_coordinate(first_b, fail)))
    for ld in more_a:
        if _strip_assume(_tile_coordinate(ld, fail)) is not _strip_assume(a_coord):
            fail(ld, "dots with an A each read their A tiles at different row tile indices: the WGMMA kernel reads "
                     "every A at C's row tile")
    for ld in more_b if ed is None else ():  # (a low-rank branch's B is read at column tile 0)
        if _strip_assume(_tile_coordinate(ld, fail)) is not _strip_assume(b_coord):
            fail(ld, "dots sharing A read their B tiles at different column tile indices (e.g. one fused gate-up "
                     "weight read at column tiles j and j + I / tile_n): the WGMMA kernel reads every B at C's column "
                     "tile (separate gate and up arrays are taken)")
    # A view whose order swaps the last two dimensions (``ct.load(..., order=(1, 0))``) reads the
    # tile from the transposed array: the operand's storage is the other major.
    flip = {"k": "m", "m": "k"}
    index_majors = (a_major, b_major)  # where K sits in the loads' tile indices
    for ld in (*([a_load] if a_gather is None else []), b_load, *more_b):
        order = ints(ld.view.type.order)
        rank = len(order)
        if order == list(range(rank)):
            continue
        if _mid_op(ld):  # (the tile's middle dimension is the view's, its rows and columns the view's too)
            fail(ld, MID_ORDER_REFUSAL.format(order=order))
        if rank < 2 or order != list(range(rank - 2)) + [rank - 1, rank - 2]:
            fail(ld, f"operand view with dimension order {order} is not supported yet by the WGMMA lowering "
                     "(identity, or the last two dimensions swapped)")
        if ld is a_load:
            a_major = flip[a_major]
        elif ld is b_load:  # the other Bs have B's order (checked above)
            b_major = {"k": "n", "n": "k"}[b_major]
    if any(ints(ld.view.type.order) != ints(a_load.view.type.order) for ld in more_a):
        fail(more_a[0], "dots with an A each read their A tiles in different layouts (a view with another dimension "
                        "order): the WGMMA kernel reads every A alike")
    stores = [o for o in sw.walk() if isinstance(o, ts.TiledStoreOp)]
    # side outputs: [tile_m, 1] tiles of a row reduction of an accumulator-shaped tile (row max/sum),
    # [1, tile_n] tiles of a column reduction (column sum/max)
    side = [o for o in stores if side_reduction(o, [tm, tn_c]) is not None] if len(stores) > 1 else []
    stores = [o for o in stores if o not in side]
    # C (the first) is the output whose value reads row reductions of the result (a residual's norm
    # stored beside the new residual): the others are evaluated element by element without them
    stores.sort(key=lambda o: not feeding_reductions(sink_tile(o), [tm, tn_c]))
    atomics = [o for o in sw.walk() if o.name == ATOMIC_SINK]
    if stores:  # a row or column reduction of the result added atomically beside C: a side output
        # (a scalar atomic beside C, an amax or a split-K semaphore, is not a reduction tile: the paths below take it)
        side_atomics = [o for o in atomics if hasattr(sink_tile(o).type, "get_shape")
                        and side_reduction(o, [tm, tn_c]) is not None]
        for o in side_atomics:
            _check_side_atomic(o, fail)
        atomics = [o for o in atomics if o not in side_atomics]
        side = side + side_atomics
    _refuse_unlowered_writes(sw, fail)
    # more outputs of the accumulator's shape at C's tile (the pre-activation beside the activation):
    # the first store is C (the kernel builder's fragment store), the others are stored from the
    # accumulator's registers element by element
    extra = _extra_tile_stores(stores, [tm, tn_c], fail) if len(stores) > 1 and not atomics else []
    stores = [o for o in stores if o not in extra]
    if len(stores) + len(atomics) != 1:
        for at in atomics if stores else ():
            sunk = sink_tile(at).type  # a tile, or a scalar (a whole-tile reduction sent to one element)
            shape = list(sunk.get_shape()) if hasattr(sunk, "get_shape") else []
            if shape != [tm, tn_c] and feeding_reductions(sink_tile(at), [tm, tn_c]):
                what_tile = f"{shape} tile" if shape else "a scalar"
                fail(at, f"a reduction of the result ({what_tile}) added atomically beside C is not supported yet by "
                         "the WGMMA lowering, which stores reductions beside C as tiles: store the tile's partial "
                         "([tile_m, 1] rows or [1, tile_n] columns, keepdims=True) at (program id 0, program id 1) "
                         "and sum the partials, or add the whole product atomically")
        what = f"{len(stores)} tile stores" + (f" and {len(atomics)} atomic updates" if atomics else "")
        # at the second output (a store, else the atomic beside C or the second atomic): the kernel's first
        # line only where the result is not written at all
        second = stores[1:] or (atomics if stores else atomics[1:])
        fail(second[0] if second else sw,
             f"expected one tile store of C (or one atomic add of the result), found {what}: a second output of "
             "the epilogue other than a row or column reduction of the result stored as a [tile_m, 1] or "
             "[1, tile_n] tile (another tile) is not supported yet by the WGMMA lowering")
    for o in stores[1:] + [o for o in side if o.name != ATOMIC_SINK]:
        order = ints(o.view.type.order)
        if order != list(range(len(order))):
            fail(o, f"a tile store through a view with dimension order {order} (a column-major or transposed "
                    "output) beside C is not supported yet by the WGMMA lowering (C itself may be)")
    st = (stores or atomics)[0]
    _check_product_stored(st, [tm, tn_c], fail)
    c_swapped = c_view_swapped = False
    c_coords = None  # an atomic sink's addresses are the program's pointer tiles (the epilogue's)
    if st.name == ATOMIC_SINK:
        _check_atomic_sink(st, tm, tn_c, fail)
    else:
        st_indices, st_shape, st_batched = _batch_split(st, list(st.indices), list(st.tile.type.get_shape()), fail)
        if st_batched == "shared":
            fail(st, "C stored at the constant batch index 0 of a 3-D array: the WGMMA lowering takes C batched at "
                     "program id 2 or 2-D")
        batched.add(st_batched)
        c_swapped, c_view_swapped = _c_orientation(st, st_indices, st_shape, (tm, tn_c), fail)
        c_coords = tuple(st_indices[::-1] if c_swapped else st_indices)  # (row tile, column tile)
    c_view = None
    if st.name != ATOMIC_SINK:
        c_view, slice_why = column_slice(kernel, st.view)
        why = slice_why if c_view is None else None
        if why is None and c_view is None:
            why = argument_view_mismatch(kernel, st.view)
        if slice_why is not None:
            fail(st, f"C's view: {slice_why} (not supported yet by the WGMMA lowering)")
        if why is not None:
            fail(st, f"C's view: {why}; the WGMMA kernel stores C through the whole argument (not supported yet)")
    c_transposed = c_swapped or c_view_swapped
    if c_view is not None and (c_transposed or batched != {False} or extra or side):
        fail(st, "C's view: a column slice of a wider array is taken for a 2-D C stored as it is, without other "
                 "outputs beside it (not supported yet with a transposed or batched C, or side outputs)")
    if c_transposed:
        for o in side:
            if o.name == ATOMIC_SINK:
                fail(o, "a reduction of the result added atomically beside a transposed C is not supported yet by "
                        "the WGMMA lowering")
        _check_transposed_c(st, side, extra if c_swapped else [], st_batched, fail)
    # an A or B picked at leading indices the host knows at launch (scalar arguments, constants) beside a
    # 2-D C: one 2-D matrix of the argument for the whole launch, which the launcher addresses
    views = {}
    if st.name != ATOMIC_SINK and batched == {False}:
        # (the Bs of dots sharing A each their own view: W1[e] beside W3[e]; b1, b2, ...: the later dots')
        for role, ld in (("a", a_load), ("b", b_load), *((f"b{i}", ld) for i, ld in enumerate(more_b, start=1))):
            lead = host_view(kernel, ld) if kinds[ld] in (BATCH_EXPR, "shared") else None
            if lead is not None:
                views[role], kinds[ld] = lead, False
    batch_exprs = None
    if BATCH_EXPR in set(kinds.values()) | batched or (True in batched and kinds[a_load] in (False, "shared")) or (
            batched == {False} and kinds[a_load] is False and kinds[b_load] is True
            and _reads_program_id(list(st.indices), 2)):
        # (a 2-D A beside a batched C: split-K into a [S, M, N] workspace, the split as C's batch; an A read at
        # the constant batch index 0 beside a batched C: one A shared by every batch, its batch index the
        # constant each agent evaluates)
        batch_exprs = _batch_expressions(kinds, a_load, b_load, more_b, st, batched, fail)
        kinds = dict.fromkeys(kinds, True)
        batched = {True}
    batch_mid = _batch_mid_roles(a_load, b_load, st, more_b, more_a, batch_exprs, ed, fail)
    b_shared = _shared_b(kinds, a_load, [b for b, _ in b_found], batched, more_b, fail)
    batched |= {True} if b_shared else {v for v in kinds.values()}
    if "shared" in batched:
        fail(st, "a 3-D operand tile at the constant batch index 0 is taken for B only, in a batched GEMM (A and C "
                 "batched at program id 2)")
    if len(batched) != 1:
        fail(st, "A, B and C must all be batched (a leading tile dimension of extent 1 at program id 2) or none, "
                 "or B alone unbatched (one B matrix shared by every batch)")
    loop = dot.parent_op()
    while loop is not None and not isinstance(loop, scf.ForOp):
        loop = loop.parent_op()
    if loop is None:
        fail(dot, "the dot is not in a K loop")
    guard = _tile_guard(st, [*extra, *side, *atomics], [loop, dot, *dots[1:], a_load, b_load, *more_b, *more_a],
                        kernel, fail)
    coords = None
    if a_gather is not None:
        if c_coords is None:
            fail(a_gather, "a gathered A beside an atomic output is not supported yet by the WGMMA lowering")
        a_coord = c_coords[0]  # A's rows are C's rows: the gathered tile is C's row tile
    default_c = c_coords is None or tuple(program_axis(v) for v in c_coords) in ((0, 1), (1, 0))
    if not (program_axis(a_coord) == 0 and (program_axis(b_coord) == 1 or ed is not None) and default_c):
        coords = {"a": a_coord, "b": b_coord, "c": c_coords}
    k_bounds, k_used, k_remark = _k_range(loop, a_load if a_gather is None else None, index_majors, b_load,
                                          [*more_b, *more_a], tk, fail)
    one_acc = own_a and dot_chain(dots)  # the dots' products chained into one accumulator
    segments = K_SEGMENTS in kernel.attributes  # (two K loops fused: a K segment per pair)
    if segments and (not own_a or n_b != len(dots) or k_bounds is not None or k_used):
        fail(dots[-1], "two K loops one after the other, each over its own operands' K, run as K segments of an A "
                       "and a B per dot over the whole K of each: not these (a shared operand, or a K range of the "
                       "program's own)")
    accs = [_chain_result(loop, dots, fail)] if one_acc else [_carried_result(loop, d, fail) for d in dots]
    if len(set(accs)) != (1 if one_acc else len(dots)):
        fail(loop, f"the K loop must carry one accumulator per dot ({len(dots)})")
    for d, r in zip(dots, accs):
        init, _ = _through_layouts(loop.iter_args[r.index])
        if not _is_zero_tile(init):
            fail(d, "the K loop's accumulator starts from a value other than zeros (the WGMMA kernel's "
                    "accumulators start at zero; tileas-fold-dot-accumulate moves a loaded start into the "
                    "epilogue where it can)")
    acc = accs[0] if ed is None else ed.dot.result  # the epilogue's root: the second dot's result
    if ed is not None and accs[1 if ed.lora else 0] is not ed.acc:
        fail(ed.dot, "the second dot's A reads a K loop result other than the first dot's accumulator")
    if len(dots) > 1:
        _check_shared_a_epilogue(dots[1], atomics, side, fail)
    pipes = [o for o in kernel.walk() if o.name == "nv_tileas.async.pipeline.create_pipeline"]
    depth = pipes[0].num_stages.value.data if pipes else 4
    try:
        # f32 operands run as tf32 WGMMA (10-bit mantissa products, f32 accumulation); i8 operands
        # as s8/u8 by the dot's signedness (i32 accumulation)
        signed = dot_signedness(dot)
        dtype, b_dtype = (_operand_dtype(ld.result.type.element_type, s) for ld, s in zip((a_load, b_load), signed))
    except ValueError as exc:
        fail(a_load, f"element type {exc} is not supported yet by the WGMMA lowering (bf16/f16/fp8 e4m3/e5m2/"
                     "f32 as tf32/i8 as s8 or u8 in, bf16/f16/f32/i32 out)")
    try:
        out_dtype = _dtype(sink_tile(st).type.element_type)
    except ValueError as exc:  # the stored tile's type, not an operand's
        out_dtype = str(exc)
    if out_dtype == "i8" and truncated_from_i32(sink_tile(st)):
        # a requantised C (an integer dot's i32 math) or a quantised one (a float dot's value converted to i32,
        # clamped and truncated: cuTile's ``astype(int8)``): the i32 value's low byte (int8 or uint8 alike)
        out_dtype = "s8"
    if a_gather is not None:  # evaluated by the consumers at their A fragment's elements (register_a_operand)
        a_prologue = gathered_a_prologue(kernel, dot, a_gather, fail)
        a_raw = _computed_a_dtype(a_prologue, fail)
        if tk * 2 not in (32, 64, 128):  # (the kernel's K tile must be the program's: the gather reads its K index)
            fail(a_gather, f"a gathered A is taken with K tiles of 16, 32 or 64 {a_raw} elements (a 32-, 64- or "
                           f"128-byte K row of WGMMA's register A), got {tk}")
    else:
        a_prologue, a_raw = _computed_side(_A_SIDE, kernel, dot, dots, a_load, a_major, _converted_a(dot, a_load),
                                           fail)
    if a_prologue is not None:
        dtype = _computed_a_dtype(a_prologue, fail)  # the WGMMA's A: the computed operand's type
    b_prologue, b_raw = _computed_side(_B_SIDE, kernel, dot, dots, b_load, b_major,
                                       dtype in ("f16", "bf16") and _upcast_fp8(dot.rhs, b_load), fail)
    for ld in staged_vectors:
        if not any(pro is not None and ld in pro.vectors for pro in (a_prologue, b_prologue)):
            fail(ld, "a tile loaded in the K loop that does not feed a dot operand (only the vectors a computed A or "
                     "B reads are read in the loop by the WGMMA lowering)")
    if b_prologue is not None:
        b_dtype = _computed_b_dtype(b_prologue, dtype, fail)
    for operand, ld, pro, s, what in ((dot.lhs, a_load, a_prologue, signed[0], "A"),
                                      (dot.rhs, b_load, b_prologue, signed[1], "B")):
        if pro is None:  # the dot reads the load's values: a conversion between them must be one the WGMMA folds
            _check_folded_conversion(operand, ld, s, what, fail)
    if own_a and (a_prologue is not None or b_prologue is not None):
        fail(dot, "dots with an A each read their operands as loaded (a computed A or B beside them is not "
                  "supported yet by the WGMMA lowering)")
    for d in dots[1:] if own_a else ():  # every pair of the WGMMA's types
        for operand, ld, s, what in ((d.lhs, a_of[d][0], signed[0], "A"), (d.rhs, b_of[d][0], signed[1], "B")):
            _check_folded_conversion(operand, ld, s, what, fail)
            if ld.result.type.element_type != (a_load if what == "A" else b_load).result.type.element_type:
                fail(ld, f"dots with an A each read {what} tiles of different element types: the WGMMA kernel runs "
                         "one operand type")
    integer = dtype in INT8_NAMES.values()
    if b_dtype != dtype and not (integer and b_dtype in INT8_NAMES.values()):
        fail(b_load, "A and B must have the same element type")
    if out_dtype not in OUT_DTYPES:
        fail(st, f"output element type {out_dtype} is not supported yet by the WGMMA lowering "
                 "(bf16/f16/f32/i32/fp8 e4m3/e5m2; i8 truncated from i32 math)")
    if out_dtype == "s32" and not integer:
        fail(st, "an i32 output is supported for integer (i8) dots only")
    plain = is_plain_store(st, acc) and not side and not extra and len(dots) == 1 and not c_transposed
    feeding = feeding_reductions(sink_tile(st), [tm, tn_c])
    if feeding and len(dots) > 1:
        fail(feeding[0], "a row reduction of the result of dots sharing A is not supported yet by the WGMMA lowering")
    for red in feeding:
        if reduced_dim(red) == 1:
            fail(red, "a column reduction of the result that the stored tile reads (not only a [1, tile_n] side "
                      "output) is not supported yet by the WGMMA lowering")
    # a K range reading the grid's extents (ct.num_blocks) runs where the launch grid's extents are known
    k_grid = k_bounds is not None and any(op.name == "nv_tileaa.get_num_programs"
                                          for op in _scalar_sources(list(k_bounds.values())))
    walks_grid = coords is not None or bool(guard) or k_grid
    retile_safe = True
    if not plain:
        retile_safe = (_check_epilogue(kernel, acc, st, side=side, feeding=feeding, extra=extra,
                                       others=accs[1:] if ed is None else accs[:1] if ed.own_accumulator else [],
                                       c_transposed=c_transposed, c_swapped=c_swapped, grid=walks_grid)
                       and not side and not feeding)
    if k_bounds is not None:
        _check_epilogue(kernel, acc, st, k_bounds.values(), element=False, grid=walks_grid)
    if coords is not None:
        _check_program_scalars(kernel, acc, st, [(a_load, a_coord, "A's row tile index"),
                                                 (b_load, b_coord, "B's column tile index"),
                                                 *[(st, v, "C's tile index") for v in c_coords or ()]], fail)
    if batch_exprs is not None:
        _check_program_scalars(kernel, acc, st, [(op, v, f"{role.upper()}'s batch index")
                                                 for role, (op, _, lead) in batch_exprs.items() for v in lead], fail)
    if guard:
        _check_program_scalars(kernel, acc, st, [(c.owner if isinstance(c.owner, Operation) else st, c,
                                                  "the condition around the GEMM's store")
                                                 for c, _ in guard], fail)
    is_batched = batched.pop()
    uses_axis2 = any(o.name == "nv_tileaa.get_program_id" and o.axis.value.data == 2 and o.results[0].uses
                     for o in kernel.walk())
    dk = DotKernel(kernel, a_load, b_load, b_major, st, acc, (tm, tn, tk), dtype, out_dtype, depth, plain,
                   retile_safe, is_batched, a_major, b_dtype if b_dtype != dtype else "", k_bounds=k_bounds,
                   grid_l=(uses_axis2 and not is_batched) or batch_exprs is not None, side_stores=side,
                   padded_rows_defined=_padding_defined(a_load), padded_cols_defined=_padding_defined(b_load),
                   row_feeding=feeding, tile_stores=extra, more_b_loads=more_b, more_accs=accs[1:],
                   more_a_loads=more_a, one_accumulator=one_acc, k_segments=segments,
                   c_transposed=c_transposed, c_swapped=c_swapped, coords=coords, guard=guard, k_used=k_used,
                   b_shared=b_shared, batch_exprs=batch_exprs,
                   batch_grid=batch_exprs is not None and not _reads_program_id_2_only(
                       [v for _, _, lead in batch_exprs.values() for v in lead]),
                   k_grid=k_grid,
                   b_prologue=b_prologue, b_raw=b_raw, a_prologue=a_prologue, a_raw=a_raw, views=views,
                   c_view=c_view, epi_dot=ed, a_gather=a_gather is not None, batch_mid=batch_mid)
    for role, op in (("A", a_load), ("B", b_load), ("C", st)):
        if role.lower() in batch_mid:
            shape = list((op.result if role != "C" else op.tile).type.get_shape())
            names = {"A": ("M", "K"), "B": ("K", "N") if b_major == "n" else ("N", "K"), "C": ("M", "N")}[role]
            dk.remarks.append(format_error(op, MID_REMARK.format(
                role=role, rows=names[0], cols=names[1], r=shape[0], c=shape[2],
                how=("stores matrix l at column block l N of rows L N apart (its TMA epilogue: through a 3-D tensor "
                     "map of the array's row and batch pitches)") if role == "C" else
                "reads it through a 3-D tensor map of the array's own row and batch pitches"), "remark"))
    if ed is not None:
        _check_epilogue_dot_kernel(dk, fail)
        dk.remarks.append(ed.remark)
        why = n_loop_refusal(ed, sw)
        dk.epi_loop = why is None
        dk.remarks.append(n_loop_remark(ed) if why is None else
                          f"the second dot one N tile per work tile (the first dot recomputed for each): {why}")
        dk.retile_safe = False  # the first dot's N is the program's rank: its tile is the program's
    for role, lead in views.items():
        dk.remarks.append(describe_view(kernel, role.upper(), lead))
    if c_view is not None:
        dk.remarks.append(describe_column_slice(kernel, c_view))
    if b_prologue is not None or a_prologue is not None:
        dk.retile_safe = False  # (kept simple: the program's tile shape, no retiling)
    if dk.program_grid:  # the launch grid's programs are the work tiles: L is the grid's z as it is
        dk.grid_l = False
    if k_remark and k_bounds is not None and ed is not None:  # (the epilogue is the second dot's: f(0) @ E)
        k_remark = k_remark.replace("an empty range stores the zero accumulator's epilogue",
                                    "an empty range runs the second dot on the program's ops of the zero accumulator")
    if k_remark:
        dk.remarks.append(k_remark)
    acc_elt = getattr(dot.results[0].type, "element_type", None)
    if isinstance(acc_elt, Float16Type):  # (the epilogue reads the f32 registers rounded: epilogue.py)
        dk.remarks.append(format_error(dot, F16_ACCUMULATOR_REMARK, "remark"))
    if any(t in ("e4m3", "e5m2") for t in (dk.dtype, dk.b_dtype or dk.dtype)):
        dk.fp8_dot = dot  # (configure's remark at the dot: two-level accumulation or not, fp8_promotion.py)
    if dk.batch_exprs is not None:
        walk = ("the scheduler walks the launch grid (the batch indices read program ids 0 / 1 or the grid's "
                "extents)" if dk.batch_grid else "the scheduler walks the launch grid (the tile coordinates are "
                "computed by the program)" if dk.program_grid else "the scheduler's own (m, n) tiles, its L the "
                "launch grid's z (program id 2, which alone the batch indices read)")
        dk.remarks.append("batch indices computed by the program (several batch dimensions, or indices other than "
                          "program id 2): the launcher flattens each array's batch dimensions into one (they must be "
                          "contiguous, else the SIMT path runs the launch), and each agent evaluates its operand's "
                          f"flat batch index per work tile; {walk}; a 2-D A or B is one matrix that every batch "
                          "reads; a C tile whose batch indices leave the array is not computed or stored, an A or B "
                          "tile there loads zeros")
    if dk.program_grid:
        if TILE_GRID_IDS in kernel.attributes:
            fail((guard[0][0].owner if guard and isinstance(guard[0][0].owner, Operation) else a_load),
                 "the program's ids were rewritten onto the output tile grid (tileas-program-loop-to-tiles: a "
                 "persistent loop, a linear program id split into tile coordinates or renumbered axes) and its "
                 "tile coordinates or a condition on them also read program ids: not supported yet by the WGMMA "
                 "lowering (its kernel would walk the launch grid)")
        dk.retile_safe = False  # the program's coordinates and conditions are functions of its own tiles
        _program_grid_remarks(dk)
    if c_transposed:
        dk.remarks.append("the accumulator is stored transposed (C^T, a row-major [N, M] array): the epilogue "
                          "stores each element at its transposed coordinates from the accumulator's registers "
                          "(predicated on the bounds), after the program's epilogue ops")
    if own_a and segments:
        dk.remarks.append(f"{len(dots)} K loops one after the other, each over its own operands' K, as K segments: "
                          "each stage holds one pair's A and B tile, the producer loads pair 0's K tiles, then pair "
                          "1's ... through one pipeline (its state carried across), the consumers run the segments in "
                          "the same order" + (", into one accumulator" if one_acc else ", an accumulator each, which "
                                              "the epilogue combines"))
    elif own_a:
        dk.remarks.append(OWN_A_REMARK.format(n=len(dots), nb=n_b) + (
            ", all into one accumulator (the dots' chain: one product over the operand pairs)" if one_acc else
            ", one accumulator per dot, which the epilogue combines"))
    elif more_b and ed is None:  # (a low-rank branch says what it does in its own remark)
        dk.remarks.append(f"{len(dots)} dots sharing the A tile in one K loop: each stage holds A and {len(dots)} B "
                          f"tiles, the consumers keep {len(dots)} accumulators and the epilogue combines them")
    if extra:
        dk.remarks.append(f"{len(extra)} more output tile(s) of the accumulator's shape stored beside C from the "
                          "accumulator's registers (each thread its own elements, predicated on the bounds)")
    if feeding:
        dk.remarks.append(f"{len(feeding)} row reduction(s) of the result read by the stored tile, reduced in the "
                          "accumulator's registers before its elements (a lane quad holds a row)")
    rows = [o for o in side if reduced_dim(side_reduction(o, [tm, tn_c])) == 0]
    if rows:
        dk.remarks.append(f"{len(rows)} row reduction(s) of the result stored beside it, reduced in the "
                          "accumulator's registers (a lane quad holds a row)")
    if len(side) > len(rows):
        dk.remarks.append(f"{len(side) - len(rows)} column reduction(s) of the result stored beside it, reduced in "
                          "the accumulator's registers, across a warp's lanes (shuffles) and across the consumer "
                          "warps through shared memory (named barrier "
                          f"{EXCHANGE_BARRIER})")
    added = [o for o in side if o.name == ATOMIC_SINK]
    if added:  # (said apart: "stored" above counts them, each is added atomically instead)
        dk.remarks.append(f"{len(added)} of these reductions added atomically (each CTA tile's one partial per row "
                          "or column, by one thread: a relaxed device-scope atomic add between the atomic's "
                          "fences) instead of stored")
    if k_bounds is not None:
        dk.retile_safe = False  # the program's K range is its own: the kernel keeps the program's tiles
    single = kernel.attributes.get(SINGLE_TILE_AXES)
    if single is not None:
        axes = list(single.get_values())
        out_n = dk.epi_dot.n if dk.epi_dot is not None else tn  # (a second dot's N is the output's column tile)
        dk.single_tile = {"m": tm if 0 in axes else 0, "n": out_n if 1 in axes else 0}
        if not dk.plain_epilogue:
            dk.retile_safe = False  # the epilogue's own tile indices (e.g. a bias at 0) stay the program's
        what = " and ".join(f"{'rows' if a == 0 else 'columns'} (tile 0 of {tm if a == 0 else out_n})" for a in axes)
        dk.remarks.append(f"the program computes one output tile along its {what}: the kernel covers that extent "
                          "as one tile, and a launch with a larger output runs the program as written on the SIMT "
                          "path")
    split = kernel.attributes.get("tileorch.split_batch_tile")
    if split is not None:
        dk.remarks.append(f"the program's batch tile of {split.value.data} matrices runs as one matrix per work tile "
                          "(tileas-split-batch-tiles: the program treats its batch rows alike)")
    return dk


def _is_zero_index(v: SSAValue) -> bool:
    v = _strip_assume(v)
    return isinstance(v.owner, arith.ConstantOp) and v.owner.value.value.data == 0


def _main_accumulator(acc2: SSAValue) -> list[SSAValue]:
    """The consumer K loop's main accumulator beside a low-rank branch's own second accumulator ``acc2``
    (``GemmConfig.lora_own_acc``): the first result of the ``scf.for`` in ``acc2``'s block."""
    loop = next(o for o in acc2.owner.parent_block().ops if isinstance(o, scf.ForOp) and o.results
                and o.results[0].name_hint == "acc_out")
    return [loop.results[0]]


def _check_epilogue_dot_kernel(dk: DotKernel, fail) -> None:
    """What the GEMM kernel's second dot on the accumulator (:mod:`.epilogue_dot`) does not take beside it."""
    why = ("a computed A" if dk.a_prologue is not None else "a computed B" if dk.b_prologue is not None
           else "dots sharing A" if len(dk.more_accs) > (1 if dk.epi_dot.lora else 0)
           else "a batched GEMM" if dk.batched else "a transposed C" if dk.c_transposed
           else "the program's own tile coordinates" if dk.program_grid else "outputs beside C"
           if dk.side_stores or dk.tile_stores else "an atomic sink" if dk.store.name == ATOMIC_SINK
           else "a C column slice" if dk.c_view is not None else None)
    if why is not None:
        fail(dk.epi_dot.dot, f"a dot on the K loop's result: {why} beside it is not supported yet by the WGMMA "
                             "lowering")
    second = DTYPE_NAMES.get(str(dk.epi_dot.dot.rhs.type.get_element_type()))
    if dk.dtype != second:
        fail(dk.epi_dot.dot, f"a dot on the K loop's result: the first dot's operands are {dk.dtype} and the "
                             f"second's {second}: the kernel's two dots read one 16-bit operand type (f16 or bf16)")


def _c_orientation(st: Operation, indices: list, shape: list, tile: tuple[int, int], fail) -> tuple[bool, bool]:
    """(tile swapped, view swapped) of C's store: the tile ``[tile_m, tile_n]`` at (program id 0,
    program id 1), or the transposed tile ``[tile_n, tile_m]`` at (program id 1, program id 0)
    (``ct.store(C, (bn, bm), ct.transpose(acc))``); through a view of identity dimension order or
    one with its last two dimensions swapped (a column-major C read as its row-major transpose).
    Either swap alone stores ``acc^T`` into a row-major ``[N, M]`` array; both together (a
    transposed tile into a column-major C) are refused."""
    tm, tn = tile
    axes = (program_axis(indices[0]), program_axis(indices[1]))
    order = ints(st.view.type.order)
    rank = len(order)
    identity, swapped_last = list(range(rank)), list(range(rank - 2)) + [rank - 1, rank - 2]
    if order != identity and _mid_op(st):
        fail(st, MID_ORDER_REFUSAL.format(order=order).replace(" read ", " stored "))
    if order not in (identity, swapped_last):
        fail(st, f"a tile store through a view with dimension order {order} is not supported yet by the WGMMA "
                 "lowering (identity, or the last two dimensions swapped: a column-major C)")
    view_swapped = order != identity
    if axes == (0, 1):
        if shape != [tm, tn]:
            fail(st, f"the stored tile {list(st.tile.type.get_shape())} is not the {tm}x{tn} accumulator tile")
        tile_swapped = False
    elif axes == (1, 0):
        if shape != [tn, tm]:
            fail(st, f"the tile {list(st.tile.type.get_shape())} stored at (program id 1, program id 0) is not the "
                     f"{tn}x{tm} transposed accumulator tile")
        tile_swapped = True
    elif shape == [tm, tn] and not view_swapped:  # tile indices computed by the program (a program grid)
        tile_swapped = False
    else:
        fail(st, f"C must be stored as the {tm}x{tn} accumulator tile (at tile indices computed from program ids, "
                 "grid sizes and scalar arguments, through a view of identity order), or its transpose at "
                 "(program id 1, program id 0)")
    if tile_swapped and view_swapped:
        fail(st, f"a transposed tile stored through a view with dimension order {order} (a column-major C): not "
                 "supported yet by the WGMMA lowering (store the tile itself at (program id 0, program id 1))")
    return tile_swapped, view_swapped


def _check_product_stored(st: Operation, acc_shape: list[int], fail) -> None:
    """Refuse, in the program's terms, a kernel whose only tile stores are reductions of the product
    (``[tile_m, 1]`` / ``[1, tile_n]`` tiles: a loss, a row max or argmax), not the product itself."""
    if st.name == ATOMIC_SINK or not hasattr(st, "tile"):
        return
    shape = list(st.tile.type.get_shape())
    if len(shape) < 2 or any(d != 1 for d in shape[:-2]):
        return
    tm, tn = acc_shape
    if shape[-2:] in ([tm, 1], [1, tn]) and [tm, tn] not in ([tm, 1], [1, tn]):
        what = "row" if shape[-2:] == [tm, 1] else "column"
        fail(st, f"the product tile is not stored: this kernel stores only {what} reductions of it ({shape} "
                 f"tiles, e.g. a loss or a row max / argmax); the WGMMA GEMM stores the {tm}x{tn} product tile C "
                 "and reductions of it beside C, so a kernel without C is not supported yet by the WGMMA "
                 "lowering (store the product too, e.g. the logits, to take the tensor-core path)")


def _check_transposed_c(st: Operation, side: list, extra: list, batched: bool, fail) -> None:
    """What a transposed C does not combine with yet: reductions of the result stored beside it,
    more output tiles at the transposed tile's indices, and batched GEMMs."""
    if extra:
        fail(extra[0], "a second output tile at the indices of a transposed C is not supported yet by the WGMMA "
                       "lowering")
    if side:
        fail(side[0], "a row or column reduction of the result stored beside a transposed C (C^T, or a "
                      "column-major C) is not supported yet by the WGMMA lowering")
    if batched:
        fail(st, "a batched GEMM storing its result transposed (C^T, or a column-major C) is not supported yet by "
                 "the WGMMA lowering")


def _accumulates_into(d, dots: list):
    """The dot of ``dots`` whose result ``d`` starts from (its accumulator operand, through layout
    conversions), if any: one product split over two (A, B) pairs along K."""
    acc, _ = _through_layouts(d.acc)
    return next((o for o in dots if o is not d and acc is o.result), None)


def _same_arrays(first, second) -> bool:
    """Whether two dots read their A tiles from one array and their B tiles from one array (K tiles of
    one product: a K loop unrolled by hand)."""
    for x, y in ((first.lhs, second.lhs), (first.rhs, second.rhs)):
        lx, ly = (source_load(_through_layouts(v)[0]) for v in (x, y))
        if lx is None or ly is None:
            return False
        rx, ry = _memref_root(lx.view), _memref_root(ly.view)
        if rx is None or rx is not ry:
            return False
    return True


def _split_k_dot_why(first, second=None) -> str:
    """The refusal of a dot that adds its product to another dot's result, in the program's terms."""
    from tileorch.diagnostics import source_position

    pos = source_position(first.location)
    at = f" at line {pos.line.data}" if pos is not None else ""
    if second is not None and _same_arrays(first, second):
        return ("this dot adds another K tile of the same A and B to the result of the dot" + at + " (two K tiles "
                "per iteration: a K loop unrolled by hand), which the tensor-core tiers do not take yet: write "
                "one dot per iteration over every K tile (the TMA pipeline overlaps the steps)")
    return ("this dot adds its product to the result of the dot" + at + " (one product split over two A / B "
            "operand pairs along K, e.g. MLA's no-position and RoPE head-dim parts of the attention scores), which "
            "the tensor-core tiers do not take yet: they run one dot per product (concatenate the two parts along "
            "the head dim into one array)")


def _operand_value(v: SSAValue) -> SSAValue:
    """The value a dot operand is, through the layout conversions the tier put before each dot."""
    while isinstance(v.owner, Operation) and v.owner.name == "nv_tileas.convert_layout":
        v = v.owner.operands[0]
    return v


def _same_a(first: Operation, d: Operation, a: Operation | None) -> bool:
    """Dot ``d`` reads ``first``'s A: the same tile load ``a``, or the same value computed from it (``a =
    (x * s).astype(f16)`` read by both dots)."""
    if a is not None and _operand_source(d.lhs) is a:
        return True
    return _operand_value(d.lhs) is _operand_value(first.lhs)


OWN_A_REMARK = ("{n} dots each reading an A tile of its own in one K loop: each stage holds {n} A and {nb} B tile(s) "
                "(one TMA per tile on the stage's full barrier, the transaction count their sum), the consumers run "
                "one WGMMA batch per operand pair")
"""The remark of dots with an A each (:func:`own_a_dots`), before what the accumulators are."""


def dot_chain(dots: list) -> bool:
    """Whether each dot after the first accumulates onto the previous one's result (through layout
    conversions): ``acc = ct.mma(z, w2, ct.mma(x, w1, acc))``, one product over several operand pairs."""
    return len(dots) > 1 and all(_through_layouts(d.acc)[0] is p.result for p, d in zip(dots, dots[1:]))


def own_a_dots(dots: list) -> bool:
    """Whether every dot reads an A tile load of its own (none shared; no computed A): ``acc1 += x @ w1;
    acc2 += z @ w2``, the WGMMA kernel's A per dot (:attr:`GemmConfig.a_operands
    <tileorch.kernels.gemm.config.GemmConfig.a_operands>`)."""
    srcs = [_operand_source(d.lhs) for d in dots]
    if len(dots) < 2 or any(s is None or _operand_compute_op(d.lhs) is not None for s, d in zip(srcs, dots)):
        return False
    # (two K tiles of one A array per trip, a K loop unrolled by hand, keep their own refusal: _split_k_dot_why)
    roots = [_memref_root(s.view) if hasattr(s, "view") else None for s in srcs]
    return None not in roots and len({id(r) for r in roots}) == len(dots) == len({id(s) for s in srcs})


def _own_a_loads(dots: list, found: list, kinds: dict, fail) -> dict:
    """``{dot: (its A tile load, major)}`` of dots each reading an A of its own (:func:`own_a_dots`) from the
    A-role loads ``found`` (``(load, major)``): every load read by one dot, all of one major and one batch kind
    (all 2-D or all batched at program id 2; the WGMMA kernel reads every A through a tensor map laid out as
    A's)."""
    out = {}
    for d in dots:
        src = _operand_source(d.lhs)
        match = [x for x in found if x[0] is src]
        if not match:
            fail(d, "this dot's A is not one of the A tile loads at (program id 0, k) or A^T at (k, program id 0)")
        out[d] = match[0]
    first = out[dots[0]]
    for d in dots[1:]:
        ld, major = out[d]
        if major != first[1]:
            fail(ld, "dots with an A each read their A tiles in different layouts (one A^T, another A): the WGMMA "
                     "kernel reads every A alike")
        if kinds[ld] != kinds[first[0]] or kinds[ld] not in (True, False):
            fail(ld, "dots with an A each read them at other batch indices than program id 2 alike (or not "
                     "batched alike): not supported yet by the WGMMA lowering")
    return out


def _check_shared_a_dots(dots: list, fail, low_rank: bool = False, own_a: bool = False) -> None:
    """Several dots are lowered as dots sharing A (``silu(X @ Wg) * (X @ Wu)``), or, ``own_a``, as dots each
    reading an A of its own (:func:`own_a_dots`), into an accumulator each or chained into one
    (:func:`dot_chain`): each of the same tile shape (``low_rank``: the second, a LoRA branch's, of its own N), in the same K loop, reading the
    same A tile, each accumulating into its own loop-carried accumulator; at most as many as the
    accumulator registers hold at the narrowest tile (:data:`~tileorch.kernels.gemm.config.ACCUMULATOR_REGISTERS`)."""
    from tileorch.kernels.gemm.config import ACCUMULATOR_REGISTERS

    first = dots[0]
    most = ACCUMULATOR_REGISTERS // (64 // 2)  # m64n64 accumulators of 32 registers each
    if len(dots) > 2 and len(dots) * list(first.result.type.get_shape())[-1] // 2 > ACCUMULATOR_REGISTERS:
        fail(dots[2], f"{len(dots)} dots sharing A: {len(dots)} accumulators of {first.result.type.get_shape()} "
                      f"do not fit the {ACCUMULATOR_REGISTERS} accumulator registers of a consumer thread "
                      f"(at most {most} 64-column accumulators, 2 of 128 columns)")
    a = _operand_source(first.lhs)
    for d in dots[1:]:
        if d.parent_block() is not first.parent_block():
            fail(d, f"{len(dots)} dots in one kernel that are not in one K loop body (chained dots, as in attention, "
                    "take their own lowering)")
        if d.result.type != first.result.type and not low_rank:
            fail(d, f"dots sharing A must have one accumulator shape, got {first.result.type.get_shape()} and "
                    f"{d.result.type.get_shape()}")
        if not own_a and not _same_a(first, d, a):
            beside = _computed_a_beside_loaded_a(dots)
            if beside is not None:
                raise LocatedError(beside[0], _computed_a_beside_loaded_a_why(*beside))
            adds_to = _accumulates_into(d, dots)
            if adds_to is not None:
                raise LocatedError(d, _split_k_dot_why(adds_to, d))
            fail(d, f"{len(dots)} dots in one K loop that do not read the same A tile: the WGMMA lowering takes dots "
                    "sharing A (one A tile, a B and an accumulator per dot)")
        reads = (d.lhs, d.rhs) if own_a and dot_chain(dots) else d.operands  # (a chain's acc is the previous dot's)
        if any(x is first.result for x in reads) or any(x is d.result for x in first.operands):
            fail(d, "a dot reading another dot's result (chained dots) is not a dot sharing A")


def _computed_a_beside_loaded_a(dots: list) -> tuple[Operation, Operation] | None:
    """``(a dot whose A the program computes in the K loop, not from a dot's result, a dot reading its own loaded A)``
    of ``dots`` (an A per dot, one of them computed: ``x @ w1 + (z * s).astype(f16) @ w2``), else None."""
    computed = [d for d in dots if _operand_compute_op(d.lhs) is not None and not _reads_a_dot(d.lhs)]
    loaded = [d for d in dots if _operand_compute_op(d.lhs) is None and _operand_source(d.lhs) is not None]
    if not computed or not loaded:
        return None
    return computed[0], loaded[0]


def _reads_a_dot(v: SSAValue) -> bool:
    """Whether ``v`` is computed from a dot's result (a chain of dots, attention's P: not a computed operand)."""
    seen: set[int] = set()
    todo = [v]
    while todo:
        x = todo.pop()
        op = x.owner
        if not isinstance(op, Operation) or id(op) in seen:
            continue
        seen.add(id(op))
        if op.name.endswith(".dot"):
            return True
        todo.extend(op.operands)
    return False


def _computed_a_beside_loaded_a_why(computed: Operation, loaded: Operation) -> str:
    """The refusal of a computed A beside a dot with a loaded A of its own, in the program's terms."""
    from tileorch.diagnostics import source_position

    pos = source_position(loaded.location)
    at = f" at line {pos.line.data}" if pos is not None else ""
    op = _operand_compute_op(computed.lhs)
    return (f"this dot's A is computed in the K loop ({op.name.split('.', 1)[-1]}) beside the dot{at}, which reads an "
            "A tile of its own as loaded: the WGMMA kernel runs dots with an A each (every A a TMA tile of the "
            "stage) or one computed A (WGMMA's register A, the kernel's only A), not both yet; where the computation "
            "commutes with the dot (a per-row scale s: (z * s) @ w2 = s * (z @ w2)), give this dot an accumulator "
            "of its own and apply it after the loop (y = acc1 + s[:, None] * acc2); else compute the A into an "
            "array first (a kernel of its own) and pass that array as a loaded A")


def _check_shared_a_epilogue(second, atomics: list, side: list, fail) -> None:
    """What the epilogue of dots sharing A may not do yet: atomic adds and reductions of the result."""
    if atomics:
        fail(atomics[0], "an atomic epilogue of dots sharing A is not supported yet by the WGMMA lowering")
    if side:
        fail(side[0], "row/column reductions beside the result of dots sharing A are not supported yet by the "
                      "WGMMA lowering")


def _conditions(op: Operation, kernel: aa.FuncOp, fail) -> list[tuple[Operation, bool]]:
    """``(scf.if, in its then region)`` of every condition around ``op``, outermost first.  The
    tier's own loop over program ids (``tileas-tier{dynamic-persistent=true}``) is the scheduler's,
    not a condition; any other ``while`` loop around ``op`` is a located error."""
    from tileorch.transforms.tileas.dynamic_persistent import is_program_loop

    out = []
    child, parent = op, op.parent_op()
    while parent is not None and parent is not kernel:
        if isinstance(parent, scf.WhileOp) and not is_program_loop(parent):
            fail(parent, "the dot's K loop, its operand loads or its output store run in a while loop: not supported "
                         "yet by the WGMMA lowering")
        if isinstance(parent, scf.IfOp):
            out.append((parent, child.parent_region() is parent.true_region))
        child, parent = parent, parent.parent_op()
    return out[::-1]


def _tile_guard(store: Operation, outputs: list, mainloop: list, kernel: aa.FuncOp, fail) -> list[tuple[SSAValue, bool]]:
    """The conditions under which the program computes and stores its tile: ``(condition, taken)``
    of every ``scf.if`` around C's ``store`` (``if c: ...``; an early ``return`` leaves the rest of
    the program in the ``else`` region: ``taken`` False).  The kernel evaluates them per work tile
    and skips the tile's K steps in every agent and its store (:func:`_program_grid_tiles`), so
    the other ``outputs`` must run under exactly these conditions, and the ``mainloop`` ops (the K
    loop, dots, operand loads) under no condition the store does not also have (they only feed
    the store: skipping them where it does not run changes nothing)."""
    guard = _conditions(store, kernel, fail)
    key = [(id(i), t) for i, t in guard]
    for o in outputs:
        if [(id(i), t) for i, t in _conditions(o, kernel, fail)] != key:
            fail(o, "an output of the epilogue under other conditions than C's store: not supported yet by the "
                    "WGMMA lowering (its kernel computes and stores a tile's outputs under one condition)")
    for o in mainloop:
        extra = [i for i, t in _conditions(o, kernel, fail) if (id(i), t) not in key]
        if extra:
            fail(extra[0], "the dot's K loop or an operand load runs under a condition its output store does not "
                           "have: not supported yet by the WGMMA lowering (a tile's K steps and its store run under "
                           "one condition)")
    return [(i.cond, t) for i, t in guard]


def _operand_role(ld: Operation, dots: list, indices: list, shape: list, tile: tuple[int, int, int]):
    """``("a" | "b", major)`` of an operand load whose tile indices are not the scheduler's program
    ids, by the dot operand it feeds and where its K index (the K loop's variable) sits: A ``[tm,
    tk]`` at (row tile, k) is K-major, A^T ``[tk, tm]`` at (k, row tile) M-major, B ``[tk, tn]`` at
    (k, column tile) N-major, B^T ``[tn, tk]`` at (column tile, k) K-major; None otherwise."""
    tm, tn, tk = tile

    def fed(v: SSAValue) -> bool:  # the load reaches the dot through layouts and unit-dimension reshapes
        while True:
            v = _through_layouts(v)[0]
            op = v.owner
            if not (isinstance(op, Operation) and op.name == "nv_tileaa.reshape" and
                    [x for x in op.operands[0].type.get_shape() if x != 1] == [x for x in v.type.get_shape() if x != 1]):
                return source_load(v) is ld
            v = op.operands[0]

    for d in dots:
        if fed(d.lhs):
            if shape == [tm, tk] and _is_iv(indices[1]):
                return "a", "k"
            if shape == [tk, tm] and _is_iv(indices[0]):
                return "a", "m"
        if fed(d.rhs):
            if shape == [tk, tn] and _is_iv(indices[0]):
                return "b", "n"
            if shape == [tn, tk] and _is_iv(indices[1]):
                return "b", "k"
    return None


def _fed_sides(ld: Operation, dots: list) -> set[str]:
    """Which operands of ``dots`` the tile load ``ld`` reaches through layouts, permutes and unit-dimension
    reshapes (:func:`_operand_source`): ``"a"`` (a dot's lhs), ``"b"`` (a rhs); empty when it reaches none
    that way (e.g. through a conversion: a computed operand)."""
    return {side for d in dots for side, v in (("a", d.lhs), ("b", d.rhs)) if _operand_source(v) is ld}


def _k_coordinate(ld: Operation, fail) -> SSAValue:
    """The K tile index of an operand load (the one index that reads the K loop's iv)."""
    indices, _, _ = _batch_split(ld, list(ld.indices), list(ld.result.type.get_shape()), fail)
    ks = [v for v in indices if _is_iv(v)]
    if len(ks) != 1:
        fail(ld, _operand_index_why(ks))
    return ks[0]


def _tile_coordinate(ld: Operation, fail) -> SSAValue:
    """The tile index of an operand load beside its K index: A's row tile, B's column tile."""
    indices, _, _ = _batch_split(ld, list(ld.indices), list(ld.result.type.get_shape()), fail)
    rest = [v for v in indices if not _is_iv(v)]
    if len(rest) != 1:
        fail(ld, _operand_index_why([v for v in indices if _is_iv(v)]))
    return rest[0]


def _operand_index_why(ivs: list) -> str:
    """Why an operand tile load's indices are not (the K loop's variable, a tile index computed outside the loop):
    ``ivs``, the indices that are loop variables -- two of them is a K loop inside a loop over output tiles."""
    if len(ivs) > 1:
        return ("an operand tile load is indexed by the variables of two loops (the K loop inside a loop over output "
                "tiles): the WGMMA lowering computes one output tile per block, its row and column tile indices "
                "computed outside the K loop; put the output tile's index on a grid axis (ct.bid)")
    return ("an operand tile load must index K by the K loop's variable and its other dimension by a tile index "
            "computed outside the loop")


def _check_program_scalars(kernel: aa.FuncOp, acc: SSAValue, store: Operation, values: list, fail) -> None:
    """Each ``(op, value, what)`` of ``values`` must be a function of program ids, grid sizes
    (``num_blocks``), constants, scalar kernel arguments and one-element reads of input arrays
    (the kernel evaluates it per work tile, each agent for itself); a located error at ``op``
    names the first the epilogue lowering cannot evaluate."""
    for op, value, what in values:
        blk, env, _ = _scratch_env(kernel, f32, grid=True)
        lowering = EpilogueLowering(kernel.body.blocks.first, acc, store, env, Emitter(blk, 128))
        try:
            lowering.scalar(value)
        except LocatedError as exc:
            fail(op, f"{what} is not a function of program ids, grid sizes and scalar arguments that the WGMMA "
                     f"kernel can evaluate per tile ({exc.message.removeprefix(PASS + ': ')})")


def _program_grid_remarks(dk: DotKernel) -> None:
    """The remarks of a program-grid kernel: its coordinates and its guard."""
    if dk.coords is not None:
        dk.remarks.append("tile coordinates computed by the program (not program ids 0 and 1 directly): each agent "
                          "evaluates the program's own scalar ops per work tile, the producer A's row tile and B's "
                          "column tile for its TMA loads, the consumers C's tile for the epilogue")
    if dk.guard:
        dk.remarks.append(f"{len(dk.guard)} condition(s) on program ids and scalars around the GEMM (an 'if' or an "
                          "early 'return') become a per-tile predicate: every agent evaluates it; a tile it rejects "
                          "runs no K steps in the producer and the consumers alike (the pipeline stays balanced) "
                          "and stores nothing")
    dk.remarks.append("the scheduler walks the launch grid, one work tile per program (the program ids and "
                      "num_blocks the program reads are the launch's), on 1-CTA clusters, with the program's tiles")


def _scalar_sources(values: list, regions: bool = False):
    """Every op the scalar ``values`` are computed from (through any ops; with ``regions``, also
    every op nested in the regions of those ops), each once, in a depth-first order."""
    seen, todo = set(), list(values)
    while todo:
        v = todo.pop()
        if v in seen or not isinstance(v.owner, Operation):
            continue
        seen.add(v)
        op = v.owner
        yield op
        todo.extend(op.operands)
        if regions:
            for region in op.regions:
                todo.extend(r for inner in region.walk() for r in inner.results)


def _reads_program_id(values: list, axis: int) -> bool:
    """Whether the scalar ``values`` read the program id along ``axis`` (through any ops)."""
    return any(op.name == "nv_tileaa.get_program_id" and op.axis.value.data == axis
               for op in _scalar_sources(values, regions=True))


def _reads_program_id_2_only(values: list) -> bool:
    """Whether the scalar ``values`` (batch indices) read no program id but axis 2 and no grid extent:
    a batched kernel on the scheduler's own (m, n) tiles then evaluates them from its L alone."""
    return not any(op.name == "nv_tileaa.get_num_programs"
                   or (op.name == "nv_tileaa.get_program_id" and op.axis.value.data != 2)
                   for op in _scalar_sources(values))


def _is_zero_tile(v: SSAValue) -> bool:
    """``v`` is a tile of zeros (a dense constant or a splat of a zero scalar, through layout
    conversions, reshapes and broadcasts)."""
    from tileorch.transforms.tileas.fold_dot_accumulate import is_zero

    while isinstance(v.owner, Operation) and v.owner.name in ("nv_tileas.convert_layout", "nv_tileaa.reshape",
                                                                "nv_tileaa.broadcast", "nv_tileaa.expand_dims"):
        v = v.owner.operands[0]
    return is_zero(v)


def _chain_result(loop: scf.ForOp, dots: list, fail) -> SSAValue:
    """The K loop's result that carries a chain of dots (:func:`dot_chain`): the first dot accumulates into its
    iteration argument, and the loop yields the last dot's result there."""
    r = _loop_result(loop, dots[0], fail)
    if _yielded(loop, r) is not dots[-1].result:
        fail(dots[-1], "the K loop carries a value other than the last dot's result of a chain of dots "
                       "(acc = ct.mma(z, w2, ct.mma(x, w1, acc)))")
    return r


def _yielded(loop: scf.ForOp, r: SSAValue) -> SSAValue:
    """What ``loop`` yields for its result ``r`` in each K step, through layout conversions and pipeline stage
    reads."""
    yielded, _ = _through_layouts(loop.body.block.last_op.operands[r.index])
    while isinstance(yielded.owner, Operation) and yielded.owner.name == "nv_tileas.async.pipeline.consumer_read":
        # (the consumer's read of a stage yields what its region computes from the stage's tiles)
        yielded, _ = _through_layouts(yielded.owner.regions[0].block.last_op.operands[yielded.index])
    return yielded


def _carried_result(loop: scf.ForOp, dot: Operation, fail) -> SSAValue:
    """:func:`_loop_result`, where the dot accumulates into the loop's iteration argument: the loop must carry the
    dot's result itself to the next K step (the WGMMA kernel keeps the accumulator on the tensor cores; math on
    it after the dot, ``acc = ct.mma(a, b, acc) + x``, would be dropped)."""
    r = _loop_result(loop, dot, fail)
    acc, _ = _through_layouts(dot.acc)
    if isinstance(acc, BlockArgument) and acc.owner is loop.body.blocks.first and _yielded(loop, r) is not dot.result:
        fail(dot, "the accumulator is changed in the K loop after this dot adds its product to it (e.g. "
                  "acc = ct.mma(a, b, acc) + x): the WGMMA lowering accumulates the products of the K loop on the "
                  "tensor cores, so per-K-step math on the accumulator is not supported yet (math on the result after "
                  "the loop is)")
    return r


def _loop_result(loop: scf.ForOp, dot: Operation, fail) -> SSAValue:
    """The K loop's result that carries ``dot``'s accumulator: the one whose iteration argument
    the dot accumulates into."""
    acc, _ = _through_layouts(dot.acc)
    if isinstance(acc, BlockArgument) and acc.owner is loop.body.blocks.first and acc.index >= 1:
        return loop.results[acc.index - 1]
    if _reads_loop_carry(acc, loop):
        fail(dot, "the accumulator is changed in the K loop before this dot adds its product to it (e.g. "
                  "ct.mma(a, b, acc * decay)): the WGMMA lowering accumulates the products of the K loop on the tensor "
                  "cores, so per-K-step math on the accumulator is not supported yet (math on the result after the "
                  "loop is)")
    results = [r for r in loop.results if r.type == dot.result.type]
    if len(results) == 1:
        return results[0]
    if _is_zero_tile(dot.acc) and (bits := _truncated_int_product(dot)) is not None:
        fail(dot, f"this dot starts from zero in every K step and its int32 product is truncated to {bits} bits "
                  f"(cuTile's ct.matmul / @ of {bits}-bit integer tiles gives {bits}-bit integers) before it is added "
                  "to the loop's accumulator: the WGMMA lowering accumulates the int32 products of the K loop, which "
                  "is another sum (acc = ct.mma(a, b, acc) into an int32 acc is the int32 GEMM)")
    if _is_zero_tile(dot.acc):
        fail(dot, "this dot starts from zero in every K step and its product is changed (e.g. scaled by per-K-block "
                  "scales, DeepSeek-style fp8 block scaling) before it is added to the loop's accumulator: the WGMMA "
                  "lowering accumulates the products of the K loop on the tensor cores, so per-K-step math on the "
                  "product is not supported yet (scales per tensor, per row of A or per column of B apply to the "
                  "accumulator after the loop: acc = ct.mma(a, b, acc), then acc * scales)")
    fail(dot, "the dot does not accumulate into a tile the K loop carries")


def _truncated_int_product(dot: Operation) -> int | None:
    """The width an integer dot's product is truncated to when its only uses (through layout conversions) are
    ``nv_tileaa.trunci`` to that width (cuTile's ``ct.matmul`` of int8 tiles); else None."""
    from tileorch.transforms.int_truncation import truncated_width

    return truncated_width(dot.result, "nv_tileaa.trunci", ("nv_tileas.convert_layout",))


def _reads_loop_carry(v: SSAValue, loop: scf.ForOp) -> bool:
    """Whether ``v`` is computed in ``loop``'s body from one of the values the loop carries (its block
    arguments after the induction variable)."""
    body = loop.body.blocks.first
    seen, todo = set(), [v]
    while todo:
        x = todo.pop()
        if isinstance(x, BlockArgument):
            if x.owner is body and x.index >= 1:
                return True
            continue
        op = x.owner
        if id(op) in seen or not isinstance(op, Operation) or not loop.is_ancestor(op):
            continue
        seen.add(id(op))
        todo.extend(op.operands)
    return False


def _extra_tile_stores(stores: list, acc_shape: list[int], fail) -> list:
    """The stores after the first (C) when each writes an accumulator-shaped tile at C's tile
    indices (the same values, leading batch dimensions of extent 1 alike); a located error names
    the first that does not."""
    def key(st):
        idx, shape, batched = _batch_split(st, list(st.indices), list(st.tile.type.get_shape()), fail)
        return [_strip_assume(v) for v in idx], shape, batched

    def same(a, b) -> bool:  # one value, or the same literal (cuTile emits a constant per literal 0)
        return a is b or (constant_int(a) is not None and constant_int(a) == constant_int(b))

    c_idx, c_shape, c_batched = key(stores[0])
    for st in stores[1:]:
        idx, shape, batched = key(st)
        if shape != acc_shape or batched != c_batched or len(idx) != len(c_idx) or not all(
                same(a, b) for a, b in zip(idx, c_idx)):
            fail(st, f"a second output tile {list(st.tile.type.get_shape())} at other indices than C's, or not of the "
                     f"{acc_shape[0]}x{acc_shape[1]} accumulator's shape, is not supported yet by the WGMMA lowering "
                     "(more outputs of the accumulator's shape at C's tile, and row/column reductions, are)")
    return stores[1:]


def _padding_defined(load: Operation) -> bool:
    """Whether a tile load names the value of elements outside the array (not undetermined)."""
    attr = load.properties.get("padding_value") or load.attributes.get("padding_value")
    return attr is not None and str(attr.value.data) not in ("undef", "undetermined")


def column_stores(dk: DotKernel) -> list[Operation]:
    """The side stores of ``dk`` that write column reductions (``[1, tile_n]`` tiles)."""
    shape = list(dk.acc.type.get_shape())
    return [st for st in dk.side_stores if reduced_dim(side_reduction(st, shape)) == 1]


def _operand_dtype(t, signed: bool) -> str:
    """The kernel builder's name of a dot operand's element type (raises ValueError naming it)."""
    if isinstance(t, IntegerType) and t.width.data == 8:
        return INT8_NAMES[signed]
    name = _dtype(t)
    return {"f32": "tf32"}.get(name, name)


def _scratch_env(kernel: aa.FuncOp, acc_type, grid: bool = False) -> tuple[Block, KernelEnv, SSAValue]:
    """A block standing in for the lowered kernel (the tile kernel's parameters, the work tile's
    coordinates and origin, three more i32 and an i1 for the caller, the accumulator element,
    and with ``grid`` the launch grid's extents), its :class:`KernelEnv` and the element."""
    types = [_param_type(kernel, t) for t in kernel.function_type.inputs.data]
    blk = Block(arg_types=[*types, *([IntegerType(32)] * 8), IntegerType(1), acc_type, *[IntegerType(32)] * 3])
    n = len(types)
    a = list(blk.args)
    return blk, KernelEnv(a[:n], a[n:n + 3], a[n + 3:n + 5], a[-3:] if grid else None), a[-4]


def _check_epilogue(kernel: aa.FuncOp, acc: SSAValue, store: Operation, k_bounds=None,
                    element: bool = True, side: list = (), feeding: list = (), extra: list = (),
                    others: list = (), c_transposed: bool = False, c_swapped: bool = False,
                    grid: bool = False) -> bool:
    """Lower one element of the epilogue (and the K loop's own bounds, when it has them) into a
    scratch block: located errors for what cannot be lowered; whether the epilogue is independent
    of the tile shape.  ``grid``: the kernel walks the launch grid (the grid sizes are readable)."""
    elt = acc.type.element_type
    blk, env, acc_value = _scratch_env(kernel, elt if isinstance(elt, IntegerType) else f32, grid)
    rest = list(blk.args)[len(env.args) + 5:]
    lowering = EpilogueLowering(kernel.body.blocks.first, acc, store, env, Emitter(blk, 128))
    lowering.acc_element = lambda: acc_value
    lowering.others = {v: (lambda: acc_value) for v in others}
    lowering.store_swapped = c_swapped
    if element:
        row, col = Coord(rest[0], 0), Coord(rest[1], 1)
        for red in feeding:
            lowering.row_reduction(red, row, [(Coord(rest[2], 1), lambda: acc_value, rest[3])])
        if store.name == ATOMIC_SINK:
            lowering.atomic_element(row, col)
        elif c_transposed:
            lowering.transposed_store(row, col, c_swapped)
        else:
            lowering.element(row, col)
        for st in extra:
            lowering.tile_store(st, row, col)
        for st in side:
            red = side_reduction(st, list(acc.type.get_shape()))
            if reduced_dim(red) == 0:
                col = Coord(rest[2], 1)
                for r in feeding_reductions(sink_tile(st), list(acc.type.get_shape())):
                    lowering.row_reduction(r, row, [(col, lambda: acc_value, rest[3])])
                lowering.side_store(st, row, rest[3])
                continue
            # a column: this thread's fold, a shuffle, the partials' fold, the store
            at = Coord(rest[2], 1)
            x = lowering.fold(red, [(row, at, lambda: acc_value, rest[3])])
            x = lowering.combine(red, x, lowering.e.shuffle_xor(x, 4))
            lowering.reduced(red, at, x)
            lowering.side_store(st, at, rest[3])
    for bound in k_bounds or ():
        lowering.scalar(bound)
    return lowering.retile_safe


def _param_type(kernel: aa.FuncOp, t):
    if isinstance(t, PointerType):
        return GLOBAL_PTR
    if isinstance(t, IntegerType) or isinstance(t, Float32Type | Float16Type):
        return t
    raise LocatedError(kernel, f"convert-nv-tileas-to-cutlass: kernel parameter of type {t} is not supported yet")


TILE_NS = (64, 128, 192, 256)


def _accumulator_registers(dk: DotKernel, tile_n: int) -> int:
    """Accumulator registers per consumer thread at ``tile_n`` columns (as
    :attr:`GemmConfig.accumulator_registers <tileorch.kernels.gemm.config.GemmConfig.accumulator_registers>`
    counts them): ``tile_n / 2`` per dot, a LoRA branch's low-rank accumulator ``rank / 2``."""
    dots = 1 + len(dk.more_accs)
    return ((dots - 1) * tile_n + _low_rank(dk)) // 2 if _low_rank(dk) else dots * tile_n // 2


def _low_rank(dk: DotKernel) -> int:
    """A LoRA branch's rank whose product adds onto the main accumulator (``GemmConfig.lora_rank``), else 0
    (none, or one with an accumulator of its own: two ``tile_n`` wide accumulators after the K loop)."""
    ed = dk.epi_dot
    return ed.rank if ed is not None and ed.lora and not ed.own_accumulator else 0


def _low_rank_words(dk: DotKernel) -> str:
    """`` (one of them the low-rank [tile_m, R])`` for a LoRA branch: the accumulator count's shapes."""
    if not _low_rank(dk):
        return ""
    return f" (one of them the low-rank {dk.tile[0]}x{dk.epi_dot.rank})"


def _rows_at_tile_0(dk: DotKernel) -> bool:
    """The program reads and writes only its row tile 0: A's row index and the row index of C's store and of every
    store of the accumulator's shape beside it are the constant 0 (a decode GEMM whose grid walks N alone), A read
    K-major from a 2-D tile, no row or column reduction stored beside C.  Its tile may then grow along the rows
    alone: the rows it adds are past an output of at most the program's rows (the launcher checks)."""
    if dk.a_major != "k" or dk.batched or dk.side_stores or dk.a_gather or dk.epi_dot is not None:
        return False
    idx = list(getattr(dk.a_load, "indices", []))
    if len(idx) != 2 or constant_int(_strip_assume(idx[0])) != 0:
        return False
    for st in [dk.store, *dk.tile_stores]:
        sidx = list(getattr(st, "indices", []))
        if len(sidx) != 2 or constant_int(_strip_assume(sidx[0])) != 0:
            return False
    return True


def builder_tile(dk: DotKernel, cluster: int) -> tuple[tuple[int, int, int], int, list[str]]:
    """The (tile_m, tile_n, tile_k) per CTA and cluster the kernel builder runs for ``dk``, and the
    remarks saying where that differs from the program's tile.

    The builder's CTAs run 128-row tiles (a cluster's CTAs run neighbouring tiles and share B by
    multicast), so a 128-row program tile is taken as it is.  The K depth is the builder's (one 128-byte
    swizzle row per stage) when the K loop runs over all of K (its tile size is not observable); a
    program that chooses its own K range (``dk.k_bounds``) keeps a K tile of a 64- or 32-byte row
    (the 64- or 32-byte swizzle: :attr:`GemmConfig.k_row_bytes`).
    A 64-row program tile whose epilogue depends on the tile shape (program-grid coordinates, its
    own K range, tile-local index ranges) runs as it is on one consumer warp group (m64nNk16, one
    CTA per cluster).  Other M/N extents (64- or 256-row tiles on one CTA, 32-column tiles, ...)
    are retiled to 128 x the nearest supported N when the epilogue does not depend on the tile
    shape; otherwise a located error names the rule."""
    from tileorch.kernels.gemm.config import accumulator_limit

    tm, tn, tk = dk.tile
    es = {"e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1, "tf32": 4}.get(dk.dtype, 2)
    k_depth = 128 // es
    remarks = []
    dots = 1 + len(dk.more_accs)
    limit = accumulator_limit(_low_rank(dk), False)
    widest = max((v for v in TILE_NS if _accumulator_registers(dk, v) <= limit), default=0)  # registers' limit
    # the program's K tiles are observable: its own K range, or a gathered A (the gather's columns read the K index)
    if (dk.k_bounds is not None or dk.a_gather) and tk < k_depth and tk * es in (32, 64):
        k_depth = tk
        remarks.append(f"K tile {tk}: {tk * es}-byte K rows, the {tk * es}-byte swizzle for K-major TMA boxes and "
                       "WGMMA descriptors (" + ("the program chooses its own K range" if dk.k_bounds is not None else
                                                "a gathered A reads its columns at the program's K index") + ")")
    if tk != k_depth:
        remarks.append(f"K tile {tk} runs as {k_depth} (one 128-byte swizzle row of {dk.dtype} per pipeline stage)")
    if tm == 64 and tn in TILE_NS and tn <= widest and not dk.retile_safe:
        if column_stores(dk) and tn > 128:
            raise LocatedError(column_stores(dk)[0], f"convert-nv-tileas-to-cutlass: a column reduction of the "
                                                     f"program's 64x{tn} tile runs on one consumer warp group (128 "
                                                     "threads, one column each in the exchange): use tiles of at "
                                                     "most 128 columns, or 128 rows")
        remarks.append(f"the program's 64x{tn} tile runs as it is: one consumer warp group per CTA "
                       f"(wgmma m64n{tn}), 1 CTA per cluster")
        return (64, tn, k_depth), 1, remarks
    if tm < 64 and tn in TILE_NS and tn <= widest and not dk.retile_safe and _rows_at_tile_0(dk):
        # a decode shape (M = 1..16 tokens in a 16- or 32-row tile, its row tile index the constant 0): only the
        # rows grow, the columns (which the epilogue's tile shape reads) stay the program's; the launcher runs a
        # launch whose output has more than ``tm`` rows on the SIMT path (the single tile's check)
        if column_stores(dk) and tn > 128:
            raise LocatedError(column_stores(dk)[0], f"convert-nv-tileas-to-cutlass: a column reduction of the "
                                                     f"program's {tm}x{tn} tile runs on one consumer warp group "
                                                     "(128 threads, one column each in the exchange): use tiles of "
                                                     "at most 128 columns")
        remarks.append(f"the program's {tm}x{tn} tile is its only row tile (row index 0): it runs as a 64x{tn} "
                       f"tile on one consumer warp group (wgmma m64n{tn}), 1 CTA per cluster; the rows past the "
                       f"output's (at most {tm}) read zeros and are not stored")
        dk.single_tile = {"m": tm, "n": (dk.single_tile or {}).get("n", 0)}  # (the launcher checks M <= tm)
        return (64, tn, k_depth), 1, remarks
    if tm == 128 and tn in TILE_NS and tn <= widest:  # the builder's tile (a cluster only multicasts B between 128-row tiles)
        if dk.b_major == "n" and (tn // cluster) % 64:
            remarks.append(f"no B multicast: an N-major {tn}-column B tile does not split into {cluster} "
                           "64-column boxes (1 CTA per cluster)")
            cluster = 1
        return (128, tn, k_depth), cluster, remarks
    # the nearest supported width; a tile narrower than 128 columns is widened to 128 (the builder's
    # 128-row CTA tile with a 64-column N underuses the tensor cores: half the B reuse per A stage)
    new_n = min(next((v for v in TILE_NS if v >= max(tn, 128)), TILE_NS[-1]), widest)
    if tn > widest and not dk.retile_safe:
        raise LocatedError(dk.store, f"convert-nv-tileas-to-cutlass: {dots} accumulators of {tm}x{tn}"
                                     f"{_low_rank_words(dk)} need {_accumulator_registers(dk, tn)} registers per "
                                     "consumer thread, more than the "
                                     f"{limit} a consumer keeps for accumulators, and the epilogue "
                                     "depends on the tile shape, so it cannot be narrowed: use tiles of at most "
                                     f"{widest} columns")
    if not dk.retile_safe:
        raise LocatedError(dk.store, f"convert-nv-tileas-to-cutlass: the WGMMA kernel builder runs 128-row (or, "
                                     f"as written, 64-row) tiles per CTA and {'/'.join(map(str, TILE_NS))} columns; "
                                     f"the program's {tm}x{tn} tile "
                                     f"on {cluster} CTA(s) is not one of them, and its epilogue depends on the tile "
                                     "shape (program ids or tile-local ranges), so it cannot be retiled")
    if dk.b_major == "n" and (new_n // cluster) % 64:
        cluster = 1
    remarks.append(f"the program's {tm}x{tn} tile on {dk.cluster} CTA(s) runs as 128x{new_n} tiles per CTA on "
                   f"{cluster} CTA(s) (the tile shapes the WGMMA kernel builder takes"
                   f"{f', {dots} accumulators in the registers' if dots > 1 else ''}; the epilogue does not "
                   "depend on the tile shape)")
    return (128, new_n, k_depth), cluster, remarks


def configure(dk: DotKernel, schedule: str, override: dict | None = None):
    """The kernel builder's configuration for ``dk`` (the program's tiles, or the nearest the
    builder takes: :func:`builder_tile`, unless ``override`` names others), with as many pipeline
    stages as shared memory holds, up to the tier's depth.  ``dk.remarks`` receives the choices."""
    from tileorch.kernels.gemm.config import (ACCUMULATOR_REGISTERS, K_MAJOR_ONLY, GemmConfig, GemmConfigError,
                                              accumulator_limit)
    from tileorch.transforms.tileas.register_a_operand import register_a_chosen

    (tm, tn, tk), cluster, remarks = builder_tile(dk, num_ctas(dk.kernel))
    b_major, transpose_b = dk.b_major, False
    if dk.dtype in K_MAJOR_ONLY and dk.b_major == "n":
        b_major, transpose_b = "k", True
        remarks.append(f"{dk.dtype} WGMMA reads B K-major: the program's N-major B [K, N] is passed to the kernel as "
                       "a K-major copy made at launch (one extra pass over B; store B as [N, K] to avoid it)")
    if transpose_b and "b" in dk.batch_mid:
        raise LocatedError(dk.b_load, f"convert-nv-tileas-to-cutlass: {dk.dtype} WGMMA reads B K-major and this B "
                                      "tile of a unit middle dimension is N-major: the launch-time K-major copy does "
                                      "not take an array batched in its middle dimension (not supported yet; store "
                                      "B as [N, B, K])")
    a_major, transpose_a = dk.a_major, False
    if dk.dtype in K_MAJOR_ONLY and dk.a_major == "m":
        if "a" in dk.batch_mid:
            raise LocatedError(dk.a_load, f"convert-nv-tileas-to-cutlass: {dk.dtype} WGMMA reads A K-major and this "
                                          "M-major A tile of a unit middle dimension would need a launch-time K-major "
                                          "copy of an array batched in its middle dimension (not supported yet)")
        a_major, transpose_a = "k", True
        remarks.append(f"{dk.dtype} WGMMA reads A K-major: the program's M-major A [K, M] is passed to the kernel as "
                       "a K-major copy made at launch (one extra pass over A; store A as [M, K] to avoid it)")
    if dk.k_bounds is not None:
        if tk != dk.tile[2]:
            raise LocatedError(dk.store, f"convert-nv-tileas-to-cutlass: the K loop runs its own range of K tiles of "
                                         f"{dk.tile[2]}, and the WGMMA kernel's K tile is {tk} (one 128-byte row of "
                                         f"{dk.dtype}, or a 64- or 32-byte one); write the K loop with tiles of {tk} "
                                         "to run it on tensor cores")
        if cluster > 1:  # the CTAs of a cluster share B stages: they must walk the same K tiles
            cluster = 1
            remarks.append("no cluster: the program's K range may differ between neighbouring tiles (1 CTA)")
        if schedule == "streamk":
            schedule = "persistent"
            remarks.append("Stream-K not applied: the program chooses its own K range per tile (persistent schedule)")
    if dk.program_grid:
        if cluster > 1:
            cluster = 1
            remarks.append("no cluster: the program computes its own tiles (neighbouring programs need not share B; "
                           "1 CTA)")
        if schedule == "streamk":
            schedule = "persistent"
            remarks.append("Stream-K not applied: the program's tiles run whole, under its own coordinates and "
                           "conditions (persistent schedule)")
    if dk.batch_exprs is not None and not dk.program_grid and schedule == "streamk":
        schedule = "persistent"
        remarks.append("Stream-K not applied: the batch indices are evaluated per work tile (persistent schedule)")
    if (dk.more_b_loads or dk.more_a_loads) and schedule == "streamk":
        schedule = "persistent"
        remarks.append("Stream-K not applied: its fix-up carries one accumulator and the dots keep "
                       f"{1 + len(dk.more_accs)} (persistent schedule)" if dk.more_accs else
                       "Stream-K not applied: its fix-up reads one operand pair per stage (persistent schedule)")
    if dk.more_a_loads and transpose_a:
        raise LocatedError(dk.more_a_loads[0], f"convert-nv-tileas-to-cutlass: {dk.dtype} WGMMA reads A K-major and "
                                               "the dots with an A each read M-major As [K, M]: store them as [M, K] "
                                               "to run them on tensor cores")
    if dk.b_prologue is not None or dk.a_prologue is not None:
        _check_k_vectors(dk, tk)
        from tileorch.transforms.tileas.k_vector_tma import plan

        moving = _k_vectors(dk)
        dk.kvec_plan = plan(moving, dk.kernel.body.blocks.first, bool(int((override or {}).get("kvec_global", 0)))) \
            if moving and not dk.a_gather else ((), ())
        which = "a B" if dk.a_prologue is None else "an A" if dk.b_prologue is None else "A and B"
        if cluster > 1:
            cluster = 1
            remarks.append(f"no cluster: {which} computed in the K loop is not multicast (each CTA loads its raw "
                           "tile; 1 CTA)")
        if schedule == "streamk":
            schedule = "persistent"
            remarks.append(f"Stream-K not applied: {which} computed in the K loop runs the persistent schedule")
    dk.remarks.extend(remarks)
    epilogue = ("atomic" if dk.store.name == ATOMIC_SINK else "direct" if dk.out_dtype in DIRECT_OUT_DTYPES
                or dk.c_transposed else "tma")
    cfg = GemmConfig(tile_m=tm, tile_n=tn, tile_k=tk, stages=dk.depth, cluster_m=cluster,
                     schedule=schedule, dtype=dk.dtype, out_dtype=dk.out_dtype, b_major=b_major, epilogue=epilogue,
                     batched=dk.batched, a_major=a_major, transpose_b=transpose_b, b_dtype=dk.b_dtype,
                     transpose_a=transpose_a, grid_l=dk.grid_l, b_operands=1 + len(dk.more_b_loads),
                     a_operands=1 + len(dk.more_a_loads), one_accumulator=dk.one_accumulator,
                     k_segments=dk.k_segments,
                     c_transposed=dk.c_transposed, program_grid=dk.program_grid, k_used=dk.k_used,
                     b_shared=dk.b_shared, b_raw=dk.b_raw, a_raw=dk.a_raw,
                     c_ld=dk.c_view is not None or "c" in dk.batch_mid, batch_mid=dk.batch_mid,
                     a_regs=register_a_chosen(dk.a_raw, a_major, tk, _global_a_k_vectors(dk))
                     or dk.a_gather, a_gather=dk.a_gather, kvecs=",".join(v.entry for v in dk.kvec_plan[0]))
    cfg, why_pairs = pair_stages_chosen(cfg)  # (before a retiling's fit: the stage bytes it checks)
    if why_pairs:
        dk.remarks.append(why_pairs)
    if dk.epi_dot is not None:  # the second dot on the accumulator: its N is C's tile (epilogue_dot)
        epi_epilogue, why = n_loop_epilogue(dk.epi_loop, epilogue)
        overlap, why_overlap = n_loop_overlap(dk.epi_loop)
        dk.remarks.extend(r for r in (why, why_overlap) if r)
        cfg = replace(cfg, epi_n=dk.epi_dot.n, epi_major=dk.epi_dot.e_major, epilogue=epi_epilogue, cluster_m=1,
                      lora_rank=dk.epi_dot.rank if dk.epi_dot.lora else 0, lora_own_acc=dk.epi_dot.own_accumulator,
                      epi_loop=dk.epi_loop, epi_overlap=overlap,
                      schedule="persistent" if schedule == "streamk" else schedule)
    if dk.b_shared:
        if transpose_b:
            raise LocatedError(dk.b_load, f"convert-nv-tileas-to-cutlass: {dk.dtype} WGMMA reads B K-major and the B "
                                          "shared by every batch is N-major [K, N]: store it as [N, K] to run it on "
                                          "tensor cores")
        dk.remarks.append("one B matrix for every batch (a 2-D B, or B read at batch index 0): its tensor map has "
                          "one matrix and every work tile loads B at batch 0")
    if dk.more_b_loads and transpose_b:
        raise LocatedError(dk.more_b_loads[0], f"convert-nv-tileas-to-cutlass: {dk.dtype} WGMMA reads B K-major and "
                                               "the dots sharing A read N-major Bs [K, N]: store them as [N, K] "
                                               "(nn.Linear's layout) to run them on tensor cores")
    if override:
        # cluster, stages, raster, registers and the epilogue's kind keep the program's tile: only a
        # tile_n other than the kernel's retiles it
        if not dk.retile_safe and int(override.get("tile_n", cfg.tile_n)) != cfg.tile_n:
            raise LocatedError(dk.store, "convert-nv-tileas-to-cutlass: the epilogue depends on the program's tile "
                                         "shape (program ids or tile-local ranges); it cannot be retiled")
        own_n = cfg.tile_n  # (the low-rank allowance is for the program's own tile, not a wider one asked for)
        cfg = replace(cfg, **{k: v for k, v in override.items() if k in OVERRIDABLE})
        if int(override.get("b_shared", 0)) and not dk.b_shared:  # the launcher's B: batch stride 0
            if not cfg.batched or dk.more_b_loads or transpose_b or cfg.b_raw or dk.epi_dot is not None:
                raise LocatedError(dk.b_load, "convert-nv-tileas-to-cutlass: b_shared=1 (one B matrix for every "
                                              "batch) needs a batched GEMM of one B read in place as the kernel "
                                              "loads it")
            dk.remarks.append("B is one matrix broadcast over the batch (batch stride 0, b_shared=1 asked by the "
                              "launcher): its tensor map has one matrix and every work tile loads B at batch 0")
        # (b_shared=0 does not take a program's own shared B back: its B map holds one matrix, read at batch 0)
        cfg = replace(cfg, b_shared=bool(cfg.b_shared) or dk.b_shared)
        if cfg.pair_stages and "stages" in override:  # (the stages asked for hold whole pairs: as many per pair)
            cfg = per_pair_stages(cfg)
        # (c_ld=1: the launcher's C is a slice; a C batched in its middle dimension: rows L N apart)
        cfg = replace(cfg, c_ld=bool(cfg.c_ld) or dk.c_view is not None or "c" in dk.batch_mid)
        if dk.c_transposed and cfg.epilogue != "direct":  # the transposed stores replace the direct store
            cfg = replace(cfg, epilogue="direct")
        limit = accumulator_limit(cfg.lora_rank, cfg.lora_own_acc) if cfg.tile_n == own_n else ACCUMULATOR_REGISTERS
        if cfg.accumulator_registers > limit:  # the launcher's shape heuristic asked for more
            narrow = max(v for v in TILE_NS if (1 if cfg.one_accumulator else cfg.pairs) * v // 2 <= ACCUMULATOR_REGISTERS)
            cluster_ok = cfg.b_major == "k" or (narrow // cfg.cluster_m) % 64 == 0
            cfg = replace(cfg, tile_n=narrow, cluster_m=cfg.cluster_m if cluster_ok else 1)
            dk.remarks.append(f"tile_n {override.get('tile_n')} asked for runs as {narrow}: {cfg.pairs} "
                              f"accumulators of 64x{narrow} per consumer warp group fill its accumulator registers")
        if cfg.a_operands > 1 and cfg.tile_n > own_n and replace(cfg, stages=2).smem_bytes > SMEM_LIMIT:
            # (an operand pair per dot in each stage: the widest tile that keeps 2 stages)
            fit = max(v for v in (own_n, *TILE_NS) if own_n <= v <= cfg.tile_n
                      and replace(cfg, tile_n=v, stages=2).smem_bytes <= SMEM_LIMIT)
            dk.remarks.append(f"tile_n {cfg.tile_n} asked for runs as {fit}: {cfg.a_operands} operand pairs per "
                              f"stage {cfg.tile_n} wide leave no shared memory for 2 stages")
            cfg = replace(cfg, tile_n=fit, cluster_m=cfg.cluster_m if cfg.b_major == "k" or
                          (fit // cfg.cluster_m) % 64 == 0 else 1)
    if dk.fp8_dot is not None:  # two-level accumulation or not, said at the dot (after the override: its tile_n)
        from tileorch.transforms.tileas.fp8_promotion import asked, promotion

        fp8 = " x ".join(t for t in dict.fromkeys((dk.dtype, dk.b_dtype or dk.dtype)) if t in ("e4m3", "e5m2"))
        fast = dk.fp8_dot.properties.get("matmul_fast_accum")
        fast = fast is not None and bool(fast.value.data)
        if override and "fp8_promote" in override:  # a configuration given: its tile and its promotion, if they fit
            cfg, why = asked(cfg, int(override["fp8_promote"]), fp8, ACCUMULATOR_REGISTERS, fast)
        else:
            cfg, why = promotion(cfg, dk.retile_safe and not (override and "tile_n" in override), fp8,
                                 ACCUMULATOR_REGISTERS, fast)
        dk.remarks.append(format_error(dk.fp8_dot, why, "remark"))
    # (after the override: an overridden direct epilogue has no TMA staging buffer for the exchange)
    need = scratch_bytes(len(column_stores(dk)), 4 * cfg.consumer_groups, tn)
    if need and not in_staging(need, cfg.epilogue_bytes):  # the exchange needs shared memory of its own
        cfg = replace(cfg, scratch_bytes=need)
    if dk.epi_dot is not None and "stages" not in (override or {}):  # (the schedule's plan reserved E's and C's tiles)
        cfg, why = fitted_stages(cfg, _fits)
        if why:
            dk.remarks.append(why)
    elif "stages" not in (override or {}):  # (the schedule's plan reserved C's TMA store staging)
        cfg, why = direct_epilogue_stages(cfg, _fits)
        if why:
            dk.remarks.append(why)
    while cfg.stages > 1:
        try:
            cfg = cfg.check()
            if dk.b_prologue is not None:
                _computed_b_remark(dk, cfg)
            if dk.a_gather:
                dk.remarks.append(format_error(dk.a_load, gathered_a_remark(cfg, dk.a_prologue), "remark"))
            elif dk.a_prologue is not None:
                _computed_b_remark(dk, cfg, "a")
            return cfg
        except GemmConfigError as exc:
            if "shared memory" not in str(exc):
                raise LocatedError(dk.kernel, f"convert-nv-tileas-to-cutlass: {exc}") from None
            cfg = replace(cfg, stages=cfg.stages - 1)
    try:
        return cfg.check()
    except GemmConfigError as exc:
        raise LocatedError(dk.kernel, f"convert-nv-tileas-to-cutlass: {exc}") from None


def _fits(cfg) -> bool:
    """Whether the ``GemmConfig`` ``cfg`` passes its checks (its shared memory among them)."""
    from tileorch.kernels.gemm.config import GemmConfigError

    try:
        cfg.check()
    except GemmConfigError:
        return False
    return True


# --------------------------------------------------------------------------- the lowered kernel


def _append_parameters(fn: func.FuncOp, kernel: aa.FuncOp) -> list[SSAValue]:
    """Append the tile kernel's parameters to ``fn``; their values in ``fn``."""
    return _append_args(fn, [_param_type(kernel, t) for t in kernel.function_type.inputs.data])


GRID_PARAMS = ("grid_x", "grid_y", "grid_z")
"""The i32 parameters a program-grid kernel takes last: the launch grid of the tile program."""


def _append_args(fn: func.FuncOp, types: list, names: tuple[str, ...] = ()) -> list[SSAValue]:
    """Append parameters of ``types`` (named ``names``, when given) to ``fn``; their values."""
    entry = fn.body.blocks.first
    new = [entry.insert_arg(t, len(entry.args)) for t in types]
    for value, name in zip(new, names):
        value.name_hint = name
    old = fn.function_type
    fn.function_type = FunctionType.from_lists([*old.inputs.data, *types], list(old.outputs.data))
    arg_attrs = fn.arg_attrs
    if arg_attrs is not None:
        from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr

        fn.arg_attrs = ArrayAttr([*arg_attrs.data, *([DictionaryAttr({})] * len(types))])
    return new


def _named(block: Block, name: str) -> Operation:
    for op in block.ops:
        if op.results and op.results[0].name_hint == name:
            return op
    raise ValueError(f"kernel builder output has no %{name} in the epilogue block")


def _compile_epilogue(block: Block, frags: list[Operation], dk: DotKernel, args: list[SSAValue], cfg,
                      grid: list[SSAValue] | None = None) -> None:
    """Evaluate the program's epilogue for each accumulator element of ``block``'s warp group and
    hand the fragment stores the new accumulator; row and column reductions of the result are
    stored beside it (a column reduction exchanges partials in ``cfg``'s scratch).

    What every element needs (coordinates, row reductions the stored value reads, the column and
    row reductions' side stores) is emitted after ``row0``; then, with :func:`epilogue_rounds`, each
    fragment store (a 64-column staging round, or a direct store split into 64-column rounds) gets
    the elements of its own columns right before it, in a fresh fragment; otherwise all elements
    go into one fragment before the first store.  Atomic and transposed-C sinks store each element
    where it is computed (their fragment stores are dropped)."""
    m0, n0, row0 = _named(block, "m0"), _named(block, "n0"), _named(block, "row0")
    tmp = Block()
    e = Emitter(tmp, 128)
    tm = m0.operands[0]
    coords = tm.owner  # the work tile's (m, n, k, l)
    env = KernelEnv(args, [tm, n0.operands[0], coords.results[3]], [m0.results[0], n0.results[0]], grid)
    acc_in = frags[0].operands[0]
    tid = e.v(nvvm.SPECIAL_REGISTERS["tid.x"]())
    t = e.v(arith.AndIOp(tid, e.const(127)))
    warp = e.v(arith.ShRUIOp(t, e.const(5)))
    lane = e.v(arith.AndIOp(t, e.const(31)))
    row_wg = e.v(arith.SubiOp(row0.results[0], m0.results[0]))
    in_wg = e.add_i(e.mul_i(warp, e.const(16)), e.v(arith.ShRUIOp(lane, e.const(2))))
    row_first = e.add_i(row_wg, in_wg)
    rows = [Coord(row_first, 0), Coord(e.add_i(row_first, e.const(8)), 0)]
    col_in = e.mul_i(e.v(arith.AndIOp(lane, e.const(3))), e.const(2))
    lowering = EpilogueLowering(dk.kernel.body.blocks.first, dk.acc, dk.store, env, e, store_swapped=dk.c_swapped)
    program_rows = (dk.single_tile or {}).get("m", 0)
    if dk.tile_stores and 0 < program_rows < cfg.tile_m:  # a decode tile run as a 64-row tile: the other outputs
        lowering.tile_rows = program_rows  # are stored in the program's rows only (C: by the launcher's M <= rows)
    from tileorch.kernels.gemm.build import accumulator_results

    # the other accumulators of dots sharing A: the consumer loop's next results, element for element; a
    # low-rank branch's is the second dot's A, not the epilogue's, which reads the second dot's result (and,
    # with an accumulator of its own, the main one beside it: the consumer loop's first result)
    own = dk.epi_dot is not None and dk.epi_dot.own_accumulator
    others = dk.more_accs if dk.epi_dot is None else [dk.epi_dot.main_acc] if own else []
    others_in = (_main_accumulator(acc_in) if own else accumulator_results(acc_in)[1:]) if others else []
    if len(others_in) != len(others):
        raise ValueError(f"kernel builder output carries {1 + len(others_in)} accumulators, the program "
                         f"{1 + len(others)}")
    fields = len(acc_in.type.types)
    acc_field = acc_in.type.types.data[0]
    # the stored values: i32 for an i32 output, else f32 (the fragment store rounds to 16 bits); an
    # integer dot's i32 accumulator converted by the epilogue goes into a new f32 fragment
    out_field = IntegerType(32) if dk.out_dtype in ("s32", "s8") else f32
    atomic = dk.store.name == ATOMIC_SINK
    rounds = epilogue_rounds() and not atomic and not dk.c_transposed  # else the whole fragment first
    acc = acc_in
    if out_field != acc_field and not rounds:
        acc = e.v(llvm.UndefOp(llvm.LLVMStructType.from_type_list([out_field] * fields)))
    if atomic:
        from tileorch.dialects import llvm_ext
        from tileorch.transforms.tileaa_to_simt.pointers import RMW_BIN_OP, _order

        sem, scope, _ = _order(dk.store)
        if sem in ("release", "acq_rel"):
            e.add(llvm_ext.FenceOp("release", scope))
    columns = column_stores(dk)
    row_cols = None
    if dk.row_feeding or len(dk.side_stores) > len(columns):
        row_cols = _row_columns(e, block, dk, env, col_in, fields)

    def row_elements(half: int) -> list:
        """This thread's elements of row ``half``: (column, accumulator element, column inside)."""
        return [(col, lambda pos=DenseArrayBase.from_list(i64, [4 * g + 2 * half + j]):
                 e.v(llvm.ExtractValueOp(pos, acc_in, acc_field)), valid) for g, j, col, valid in row_cols]

    for red in dk.row_feeding:  # row reductions the stored value reads: before its elements
        for half in range(2):
            lowering.row_reduction(red, rows[half], row_elements(half))

    def groups(group_range, acc):
        """The elements of the fragment's 8-column groups ``group_range``: stored, added or inserted
        into ``acc`` (returned) for the fragment stores."""
        for g in group_range:
            if row_cols is not None:  # the row reductions' coordinates: their folds' values are reused
                cols = [row_cols[2 * g][2], row_cols[2 * g + 1][2]]
            else:
                col_g = e.add_i(col_in, e.const(8 * g))
                cols = [Coord(col_g, 1), Coord(e.add_i(col_g, e.const(1)), 1)]
            for half in range(2):
                for j in range(2):
                    k = 4 * g + 2 * half + j
                    pos = DenseArrayBase.from_list(i64, [k])
                    lowering.acc_element = lambda pos=pos: e.v(llvm.ExtractValueOp(pos, acc_in, acc_field))
                    lowering.others = {v: (lambda pos=pos, x=x: e.v(llvm.ExtractValueOp(pos, x, acc_field)))
                                       for v, x in zip(others, others_in)}
                    if atomic:  # one atomic add per accumulator element (red.global.add: the old value is unused)
                        ptr, value, mask = lowering.atomic_element(rows[half], cols[j])
                        mode = RMW_BIN_OP[dk.store.rmw_mode.value.data]

                        def red(b, ptr=ptr, value=value, mode=mode):
                            b.v(llvm_ext.AtomicRMWOp(mode, ptr, value, "monotonic", scope))

                        if mask is None:
                            red(e)
                        else:
                            e.if_(mask, lambda b, red=red: (red(b), None)[1])
                        continue
                    if dk.c_transposed:  # stored here at the transposed coordinates: the fragment store goes
                        lowering.transposed_store(rows[half], cols[j], dk.c_swapped)
                    else:
                        value = lowering.element(rows[half], cols[j])
                        acc = e.v(llvm.InsertValueOp(pos, acc, value))
                    for st in dk.tile_stores:  # more outputs of the accumulator's shape: this element
                        lowering.tile_store(st, rows[half], cols[j])
        return acc

    if not rounds:  # the whole fragment's values first, then the fragment stores
        acc = groups(range(fields // 4), acc)
    if atomic and sem in ("acquire", "acq_rel"):
        e.add(llvm_ext.FenceOp("acquire", scope))
    if columns:
        _column_reductions(e, lowering, dk, columns, cfg, block, tid, lane, rows, col_in, acc_in, acc_field)
    if len(dk.side_stores) > len(columns):  # row reductions: each row's elements live in one lane quad
        leader = e.v(arith.CmpiOp(e.v(arith.AndIOp(lane, e.const(3))), e.const(0), "eq"))
        done = set(dk.row_feeding)  # evaluated already
        for st in dk.side_stores:
            if st in columns:
                continue
            chain = [r for r in feeding_reductions(sink_tile(st), list(dk.acc.type.get_shape())) if r not in done]
            done.update(chain)
            for half in range(2):
                for red in chain:  # in program order: a logsumexp's max before the sum that reads it
                    lowering.row_reduction(red, rows[half], row_elements(half))
                lowering.side_store(st, rows[half], leader)
    move_before(tmp, row0.next_op)
    if rounds:
        frags = _split_direct_store(frags)
        for frag in frags:  # round by round: a round's values are computed right before its store
            first, columns = _frag_columns(frag)
            round_acc = e.v(llvm.UndefOp(llvm.LLVMStructType.from_type_list([out_field] * fields)))
            frag.operands[0] = groups(range(first // 8, (first + columns) // 8), round_acc)
            move_before(tmp, frag)
        return
    for frag in frags:
        if atomic or dk.c_transposed:  # the atomics (the transposed stores) are the epilogue's stores
            frag.detach()
            frag.erase()
        else:
            frag.operands[0] = acc


EPILOGUE_ROUNDS_ENV = "TILEORCH_EPILOGUE_ROUNDS"
ROUND_COLUMNS = 64
"""Accumulator columns per round of a round-by-round epilogue: one 64-column TMA box of the staging
buffer (``atom.stage_fragment``), and as many columns per direct store."""


def epilogue_rounds() -> bool:
    """Whether the tier's GEMM epilogue runs round by round (default; ``TILEORCH_EPILOGUE_ROUNDS=0``,
    read at each compile and part of the disk-cache key, computes the whole fragment first).

    Round by round, the program's epilogue ops of one round's :data:`ROUND_COLUMNS` accumulator
    columns (bias loads, activation, cast) are emitted right before that round's fragment store
    (the staging write + TMA store, or the direct stores), so at most one round's values are live
    beside the accumulator: a 128x256 tile's GELU epilogue no longer spills (ptxas -v, linear_gelu_bf16:
    460 B spill stores / 444 B loads -> 0).  Whole-fragment first (the old order) computes all
    ``tile_n / 2`` values of a thread before the first store."""
    return settings.value(EPILOGUE_ROUNDS_ENV) != "0"


def _frag_columns(frag: Operation) -> tuple[int, int]:
    """(first fragment column, columns) a fragment store writes."""
    if isinstance(frag, StageFragmentOp):
        return frag.first_column.value.data, frag.columns.value.data
    return frag.column_range()


def _split_direct_store(frags: list[Operation]) -> list[Operation]:
    """The fragment stores with each whole-fragment direct store (``atom.store_fragment`` of every
    column) split into one per :data:`ROUND_COLUMNS` columns, in place: the direct epilogue's rounds."""
    out = []
    for frag in frags:
        first, columns = _frag_columns(frag)
        if not isinstance(frag, StoreFragmentOp) or columns <= ROUND_COLUMNS:
            out.append(frag)
            continue
        for c in range(first, first + columns, ROUND_COLUMNS):
            part = StoreFragmentOp(operands=list(frag.operands), properties={
                **frag.properties, "first_column": IntegerAttr(c, i64),
                "columns": IntegerAttr(min(ROUND_COLUMNS, first + columns - c), i64)})
            part.attributes.update(frag.attributes)
            frag.parent_block().insert_op_before(part, frag)
            out.append(part)
        frag.detach()
        frag.erase()
    return out


def _row_columns(e: Emitter, block: Block, dk: DotKernel, env: KernelEnv, col_in: SSAValue, fields: int) -> list:
    """(g, j, column coordinate, i1 column-inside-the-array or None) of this thread's fragment
    columns ``8g + col_in + j``: a column past N is left out of a row reduction unless B's
    padding defines it."""
    n = _builder_arg(block, "n")
    out = []
    for g in range(fields // 4):
        col_g = e.add_i(col_in, e.const(8 * g))
        for j in range(2):
            col = Coord(col_g if j == 0 else e.add_i(col_g, e.const(1)), 1)
            valid = None if dk.padded_cols_defined else e.v(arith.CmpiOp(e.add_i(env.origin[1], col.value), n, "slt"))
            out.append((g, j, col, valid))
    return out


def _builder_entry(block: Block) -> Block:
    """The entry block of the kernel builder's function that holds ``block``."""
    fn = block.parent_op()
    while not isinstance(fn, func.FuncOp):
        fn = fn.parent_op()
    return fn.body.blocks.first


def _builder_arg(block: Block, name: str) -> SSAValue:
    """The kernel builder's parameter ``name`` (``m``, ``n``: the problem size) seen from ``block``."""
    return next(a for a in _builder_entry(block).args if a.name_hint == name)


def _column_reductions(e: Emitter, lowering: EpilogueLowering, dk: DotKernel, stores: list[Operation], cfg,
                       block: Block, tid: SSAValue, lane: SSAValue, rows: list[Coord], col_in: SSAValue,
                       acc_in: SSAValue, acc_field) -> None:
    """The column reductions ``stores`` write, for this warp group's fragment (:mod:`column_reduction`):
    rows outside the array are left out unless A's padding defines them."""
    entry = _builder_entry(block)
    smem = next(op.results[0] for op in entry.ops if op.name == DynamicSmemOp.name)
    m = _builder_arg(block, "m")
    valid = [None, None]
    if not dk.padded_rows_defined:
        valid = [e.v(arith.CmpiOp(e.add_i(lowering.env.origin[0], r.value), m, "slt")) for r in rows]
    columns = []
    for g in range(cfg.tile_n // 8):
        col_g = e.add_i(col_in, e.const(8 * g))
        for j in range(2):
            col = Coord(col_g if j == 0 else e.add_i(col_g, e.const(1)), 1)
            entries = []
            for half in range(2):
                pos = DenseArrayBase.from_list(i64, [4 * g + 2 * half + j])
                entries.append((rows[half], lambda pos=pos: e.v(llvm.ExtractValueOp(pos, acc_in, acc_field)),
                                valid[half]))
            columns.append((col, entries))
    consumer = e.v(arith.SubiOp(tid, e.const(128)))  # warp group 0 is the producer
    staging, offset = None, cfg.scratch_offset
    if cfg.scratch_bytes == 0:  # the exchange runs in the TMA epilogue's staging buffer
        staging = e.v(arith.CmpiOp(e.v(arith.AndIOp(tid, e.const(127))), e.const(0), "eq"))
        offset = cfg.stages * cfg.stage_bytes
    lower_column_reductions(lowering, stores, list(dk.acc.type.get_shape()), Fragment(columns), lane, consumer,
                            scratch_pointer(e, smem, offset), 4 * cfg.consumer_groups, staging)


def _program_k_range(f: func.FuncOp, dk: DotKernel, args: list[SSAValue], grid: list[SSAValue] | None) -> None:
    """Run the program's K loop (``dk.k_bounds``) in every work unit: the trip count replaces the
    kernel builder's ``kend`` (``kbeg`` stays 0) in the producer's and each consumer's walk, and the
    producer's K coordinate of iteration ``kt`` becomes tile ``first + stride * kt``; trip count,
    first tile and stride are evaluated per work unit with the work tile's coordinates standing in
    for the program ids (:meth:`~tileorch.transforms.tileas.k_range.KLoop.emit`).  An empty range
    (trip count 0) runs no stage: the consumers store the zero accumulator's epilogue."""
    from tileorch.dialects.cutlass.tile_scheduler import WorkTileInfoToCoordMNKLOp

    for kbeg in [op for op in f.walk() if isinstance(op, arith.ConstantOp) and op.results[0].name_hint == "kbeg"]:
        block = kbeg.parent_block()
        coords = next(o for o in block.ops if isinstance(o, WorkTileInfoToCoordMNKLOp))
        kend = next(o for o in block.ops if o.results and o.results[0].name_hint == "kend")
        tmp = Block()
        e = Emitter(tmp, 128)
        tile = [coords.results[0], coords.results[1], coords.results[3]]
        env = KernelEnv(args, tile, tile[:2], grid)
        lowering = EpilogueLowering(dk.kernel.body.blocks.first, dk.acc, dk.store, env, e,
                                    store_swapped=dk.c_swapped)
        trip, first, stride = dk.k_bounds.emit(e, lambda v: lowering._i32(lowering.scalar(v)))
        for op in list(tmp.ops):
            op.detach()
            block.insert_op_before(op, kend)
        kend.results[0].replace_all_uses_with(trip)
        trip.name_hint, first.name_hint, stride.name_hint = "kend", "k_first", "k_stride"
        kend.detach()
        kend.erase()
        # the producer: the K coordinate of stage kt is (first + stride * kt) * tile_k
        for loop in [o for o in block.ops if isinstance(o, scf.ForOp)]:
            for kc in [o for o in loop.walk() if o.results and o.results[0].name_hint == "kc"]:
                kt = kc.operands[0]
                scaled = arith.MuliOp(kt, stride)
                tile_k = arith.AddiOp(first, scaled.result)
                tile_k.result.name_hint = "k_tile"
                kc.parent_block().insert_op_before(scaled, kc)
                kc.parent_block().insert_op_before(tile_k, kc)
                kc.operands[0] = tile_k.result


def _program_grid_tiles(f: func.FuncOp, dk: DotKernel, args: list[SSAValue], grid: list[SSAValue]) -> None:
    """Give each agent's work tile the program's own coordinates and guard (a program-grid kernel:
    the work tile ``(m, n, l)`` is program ``(x, y, z)`` of the launch grid).

    In every agent's walk, right after the work tile's coordinates are read, the program's scalar
    ops are evaluated for that program: the producer's A row tile (``m0``) and B column tile
    (``n0``) of its TMA loads, each consumer's C tile (``m0``/``n0`` of its epilogue); with a
    guard, its predicate.  The predicate empties the tile's K range (upper bound = lower bound)
    in the producer and in every consumer alike (each evaluates the same predicate of the same
    work tile, so all agents acquire, fill, wait for and release the same stages: the pipeline
    stays balanced) and replaces the consumers' "store this tile" condition."""
    from tileorch.dialects.cutlass.tile_scheduler import WorkTileInfoToCoordMNKLOp

    for coords in [op for op in f.walk() if isinstance(op, WorkTileInfoToCoordMNKLOp)]:
        block = coords.parent_block()
        named = {op.results[0].name_hint: op for op in block.walk()
                 if op.results and op.results[0].name_hint in ("m0", "n0", "store")}
        producer = named["m0"].parent_block() is block  # the consumers compute m0/n0 in their store's if
        tmp = Block()
        e = Emitter(tmp, 128)
        tile = [coords.results[0], coords.results[1], coords.results[3]]
        lowering = EpilogueLowering(dk.kernel.body.blocks.first, dk.acc, dk.store, KernelEnv(args, tile, tile[:2], grid),
                                    e, store_swapped=dk.c_swapped)
        if dk.coords is not None:
            rows, cols = (dk.coords["a"], dk.coords["b"]) if producer else (dk.coords["c"] or (None, None))
            for name, v in (("m0", rows), ("n0", cols)):
                if v is not None:
                    named[name].operands[0] = lowering._i32(lowering.scalar(v))
        pred = None
        if dk.batch_exprs is not None:
            pred = _batch_indices_per_tile(coords.results[3], producer, dk.batch_exprs, lowering, e)
        for cond, taken in dk.guard:
            c = lowering.scalar(cond)
            if not taken:
                c = e.v(arith.XOrIOp(c, e.v(arith.ConstantOp(IntegerAttr(1, i1)))))
            pred = c if pred is None else e.v(arith.AndIOp(pred, c))
        anchor = coords.next_op
        for op in list(tmp.ops):
            op.detach()
            block.insert_op_before(op, anchor)
        if pred is None:
            continue
        pred.name_hint = "tile_guard"
        loop = next(op for op in block.ops if isinstance(op, scf.ForOp))
        lb, ub = loop.lb, loop.ub
        kend = arith.SelectOp(pred, ub, lb)
        kend.result.name_hint = "kend_guarded"
        block.insert_op_before(kend, loop)
        loop.operands[1] = kend.result
        for op in block.ops:  # the consumer's "any K tile ran" test before its last release
            if isinstance(op, arith.CmpiOp) and list(op.operands) == [lb, ub]:
                op.operands[1] = kend.result
        if not producer:
            store = named["store"]
            store.results[0].replace_all_uses_with(pred)
            store.detach()
            store.erase()


_TMA_LOAD = "nvvm.cp.async.bulk.tensor.shared.cluster.global"
_TMA_STORE = "nvvm.cp.async.bulk.tensor.global.shared.cta"


def _flat_batch_index(lowering: EpilogueLowering, e: Emitter, view: SSAValue, lead: list) -> tuple[SSAValue, SSAValue,
                                                                                                  SSAValue]:
    """``(flat, inner_ok, all_ok)`` for the batch indices ``lead`` of the array ``view`` was made from:
    the i32 index ``(..((i0 * e1 + i1) * e2 + i2)..)`` over its extents ``e1, e2, ..`` (its matrix in the
    array's batch dimensions flattened into one: the launcher's 3-D tensor map,
    :func:`tileorch.launchers.cutile.gemm_problem_batched`); whether every index after the first is
    in its dimension (``0 <= i_j < e_j``: else the flat index names another matrix); whether every
    one is, the first included."""
    mk = _memref_root(view)
    dims = [d.data for d in mk.result.type.shape.data]
    dynamic = list(mk.shape)

    def extent(axis: int) -> SSAValue:
        if dims[axis] >= 0:
            return e.v(arith.ConstantOp(IntegerAttr(dims[axis], i32)))
        return lowering._i32(lowering.scalar(dynamic[sum(1 for d in dims[:axis] if d < 0)]))

    def within(idx: SSAValue, axis: int) -> SSAValue:  # 0 <= idx < extent as one unsigned compare
        return e.v(arith.CmpiOp(idx, extent(axis), "ult"))

    flat = inner = None
    if not lead:  # a 2-D operand: its one matrix
        zero, true = e.v(arith.ConstantOp(IntegerAttr(0, i32))), e.v(arith.ConstantOp(IntegerAttr(1, i1)))
        return zero, true, true
    for axis, v in enumerate(lead):
        idx = lowering._i32(lowering.scalar(v))
        if flat is None:
            flat, first = idx, within(idx, 0)
            continue
        ok = within(idx, axis)
        inner = ok if inner is None else e.v(arith.AndIOp(inner, ok))
        flat = e.v(arith.AddiOp(e.v(arith.MuliOp(flat, extent(axis))), idx))
    true = e.v(arith.ConstantOp(IntegerAttr(1, i1)))
    inner = true if inner is None else inner
    return flat, inner, e.v(arith.AndIOp(first, inner))


def _batch_indices_per_tile(tl: SSAValue, producer: bool, exprs: dict, lowering: EpilogueLowering,
                            e: Emitter) -> SSAValue:
    """Replace the work tile's batch index ``tl`` where the builder uses it as a batch coordinate (the
    producer's TMA loads of A and of B, a consumer's TMA store of C or its direct store's C matrix
    offset) by the operand's own flat batch index (:func:`_flat_batch_index`), evaluated per work tile
    from the program's batch indices; ``tl`` stays the program id 2 the program's other scalars read.
    An A or B tile whose batch indices leave their dimensions loads at batch -1 (the TMA's zero fill).
    Returns C's "every batch index in its dimension": the caller folds it into the tile's predicate,
    in every agent alike (a C tile outside the array runs no K steps and is not stored)."""
    flat = {}

    def value(role: str) -> tuple:
        if role not in flat:
            _, view, lead = exprs[role]
            index, inner, every = _flat_batch_index(lowering, e, view, lead)
            if role != "c":
                index = e.v(arith.SelectOp(inner, index, e.v(arith.ConstantOp(IntegerAttr(-1, i32)))))
            index.name_hint = f"batch_{role}"
            flat[role] = (index, every)
        return flat[role]

    c_ok = value("c")[1]
    for use in list(tl.uses):
        op, role = use.operation, None
        if producer and op.name == _TMA_LOAD:
            hint = op.operands[0].name_hint or ""
            role = "a" if hint.startswith("adst") else "b" if hint.startswith("bdst") else None
        elif not producer and op.name == _TMA_STORE:
            role = "c"
        elif not producer and isinstance(op, arith.ExtUIOp) and any(
                isinstance(u.operation, arith.MuliOp) and any((x.operation.results and x.operation.results[0].name_hint
                                                               == "c_b") for x in u.operation.results[0].uses)
                for u in op.results[0].uses):
            role = "c"  # the direct epilogue's C matrix offset l * M * N
        if role is not None:
            op.operands[use.index] = value(role)[0]
    return c_ok


def lower_kernel(ctx: Context, module: ModuleOp, kernel: aa.FuncOp, schedule: str,
                 override: dict | None = None) -> None:
    from tileorch.kernels.gemm.build import build_gemm_kernel, shared_consumer_remark
    from tileorch.transforms.tileas.epilogue_dot import compute_epilogue_a
    from tileorch.transforms.tileas.register_a_operand import compute_register_a

    dk = analyze_dot_kernel(kernel)
    cfg = configure(dk, schedule, override)
    lowered = build_gemm_kernel(cfg)
    if remark := shared_consumer_remark(cfg):
        dk.remarks.append(remark)
    new_funcs = [op for op in lowered.ops if isinstance(op, func.FuncOp)]
    takes_params = (not dk.plain_epilogue or dk.epi_dot is not None or dk.k_bounds is not None or dk.program_grid or dk.batch_exprs is not None
                    or dk.b_prologue is not None or dk.a_prologue is not None)
    grid = None
    if not dk.plain_epilogue and dk.store.name != ATOMIC_SINK and not dk.c_transposed:
        how = "staged + TMA-stored" if cfg.epilogue == "tma" else "stored"
        dk.remarks.append(
            f"epilogue round by round: {cfg.tile_n // ROUND_COLUMNS} rounds of {ROUND_COLUMNS} accumulator columns, "
            f"each computed, converted and {how} before the next ({EPILOGUE_ROUNDS_ENV}=0: the whole fragment first)"
            if epilogue_rounds() else
            f"epilogue of the whole fragment computed before its first store ({EPILOGUE_ROUNDS_ENV}=0)")
    for f in new_funcs:
        if takes_params:
            args = _append_parameters(f, kernel)
        if dk.program_grid:
            grid = _append_args(f, [IntegerType(32)] * 3, GRID_PARAMS)
        if not dk.plain_epilogue:
            groups: dict[Block, list[Operation]] = {}
            for op in f.walk():
                if isinstance(op, StageFragmentOp | StoreFragmentOp):
                    groups.setdefault(op.parent_block(), []).append(op)
            for block, frags in groups.items():
                _compile_epilogue(block, frags, dk, args, cfg, grid)
        if dk.kvec_plan[0]:  # the producer's TMA loads of K vectors: their box coordinates
            from tileorch.transforms.tileas.k_vector_tma import fill_producer_coordinates

            fill_producer_coordinates(f, dk, cfg, list(dk.kvec_plan[0]), args, grid)
        if dk.b_prologue is not None:
            stage_computed_b(f, dk, cfg, args, grid)
        if dk.epi_dot is not None:
            compute_epilogue_a(f, dk.epi_dot, dk, args, grid)
        if dk.a_prologue is not None and cfg.a_regs:
            compute_register_a(f, dk, cfg, args, grid)
        elif dk.a_prologue is not None:
            stage_computed_b(f, dk, cfg, args, grid, "a")
        if dk.k_bounds is not None:
            _program_k_range(f, dk, args, grid)
        if dk.program_grid or dk.batch_exprs is not None:
            _program_grid_tiles(f, dk, args, grid)
        f.detach()
        record = {**cfg.as_dict(), "args": dk.operand_args, "epilogue_ops": takes_params,
                  "retile_safe": dk.retile_safe, "remarks": dk.remarks, "single_tile": dk.single_tile,
                  "grid_axes": launch_grid_record(dk)}
        if dk.views:
            record[VIEWS_KEY] = dk.views
        if dk.c_view is not None:
            record[C_VIEW_KEY] = dk.c_view
        f.attributes[CONFIG_ATTR] = encode_record(record)
        f.attributes["tileorch.tile_kernel"] = StringAttr(kernel.sym_name.data)
        module.body.block.insert_op_before(f, kernel)
    kernel.detach()
    kernel.erase(safe_erase=False)
    for key, value in lowered.attributes.items():
        module.attributes.setdefault(key, value)


def launch_grid_record(dk: DotKernel) -> dict:
    """How the user's launch grid maps onto the output's tiles, for the launcher to compute exactly the tiles of the
    programs launched (:mod:`~tileorch.transforms.tileas.launch_grid_axes`): ``{"axes": [[launch axis or WHOLE or
    LINEAR, tiles per program] of the row tiles, the column tiles, the batch], "tile": [C's tile rows, columns]}``."""
    tn_c = dk.epi_dot.n if dk.epi_dot is not None else dk.tile[1]
    return {"axes": [list(x) for x in launch_grid_axes.read(dk.kernel)], "tile": [dk.tile[0], tn_c]}


def _k_vectors(dk: DotKernel, *prologues) -> list[Operation]:
    """The vectors a computed operand's map loads at indices that change along the K loop (of
    ``prologues``; none named: A's and B's)."""
    from tileorch.transforms.tileas.operand_prologue import reads_loop_value

    entry, memo = dk.kernel.body.blocks.first, {}
    prologues = prologues or (dk.a_prologue, dk.b_prologue)
    vectors = [ld for pro in prologues if pro is not None for ld in pro.vectors]
    # one load feeding both operands' maps (``a * g[k]`` and ``b * g[k]``) is one vector: one TMA slot, counted once
    return list(dict.fromkeys(ld for ld in vectors if any(reads_loop_value(x, entry, memo) for x in ld.operands)))


def _global_a_k_vectors(dk: DotKernel) -> int:
    """The vectors indexed by the K tile A's map reads from global memory (not TMA-loaded by the producer)."""
    tma = {id(v.load) for v in dk.kvec_plan[0]}
    return len([ld for ld in _k_vectors(dk, dk.a_prologue) if id(ld) not in tma])


def _check_k_vectors(dk: DotKernel, tile_k: int) -> None:
    """A vector loaded at the K loop's index (a group's scale row) is read by the consumers at their
    own K tile ``kt``: the program's K loop must be the kernel's (K tiles of ``tile_k`` from 0)."""
    positional = [op for pro in (dk.a_prologue, dk.b_prologue) if pro is not None
                  for op in getattr(pro, "positional", ())]
    if positional:  # element positions are the program's tile's: the launcher must not retile the kernel
        dk.retile_safe = False
    if positional and dk.tile[2] != tile_k:
        raise LocatedError(positional[0], f"convert-nv-tileas-to-cutlass: a computed operand reads the K loop's index "
                                          f"or the tile's element positions (a K-tail mask), and the program's K tile "
                                          f"({dk.tile[2]}) is not the WGMMA kernel's ({tile_k}: one 128-byte row of "
                                          f"{dk.dtype}): write the K loop with tiles of {tile_k} to run it on tensor "
                                          "cores")
    if positional and dk.k_bounds is not None and (dk.k_bounds.start_c, dk.k_bounds.step_c) != (0, 1):
        # (the consumers' K index is the iteration count i; the program's index is start + step * i)
        raise LocatedError(positional[0], "convert-nv-tileas-to-cutlass: a computed operand reading the K loop's "
                                          "index in a K loop with its own range other than range(0, n, 1) is not "
                                          "supported yet by the WGMMA lowering")
    moving = _k_vectors(dk)
    if not moving:
        return
    if dk.tile[2] != tile_k:
        raise LocatedError(moving[0], f"convert-nv-tileas-to-cutlass: this vector is loaded at the K loop's index, "
                                      f"and the program's K tile ({dk.tile[2]}) is not the WGMMA kernel's "
                                      f"({tile_k}: one 128-byte row of {dk.dtype}): write the K loop with tiles of "
                                      f"{tile_k} to run it on tensor cores")
    if dk.k_bounds is not None:
        raise LocatedError(moving[0], "convert-nv-tileas-to-cutlass: a vector loaded at the K loop's index in a K "
                                      "loop with its own range is not supported yet by the WGMMA lowering")


def _computed_b_remark(dk: DotKernel, cfg, role: str = "b") -> None:
    from tileorch.diagnostics import format_error
    from tileorch.kernels.gemm.config import TRANSFORM_BARRIER

    pro, load = (dk.a_prologue, dk.a_load) if role == "a" else (dk.b_prologue, dk.b_load)
    tile, raw = ((f"{cfg.tile_m}x{cfg.tile_k}", cfg.a_raw_bytes) if role == "a" else
                 (f"{cfg.tile_k}x{cfg.tile_n}", cfg.b_raw_bytes))
    ops = ", ".join(dict.fromkeys(o.name.split(".", 1)[1] for o in pro.ops)) or "a copy"
    tiles = (("B" if cfg.a_regs else "A and B") + " operand tiles, "
             + " and ".join(x for x, on in (("raw B", cfg.b_raw), ("raw A", cfg.a_raw)) if on))
    why = ""
    if role == "a":
        from tileorch.transforms.tileas.register_a_operand import staged_a_reason

        why = (f" (staged in shared memory, not WGMMA's register A operand: "
               f"{staged_a_reason(cfg, _global_a_k_vectors(dk))})")
    how = (f"the producer TMA-loads the raw {tile} tile ({raw} bytes, unswizzled) and the consumer warp groups "
           f"({128 * cfg.consumer_groups} threads) evaluate the program's ops into the stage's {role.upper()} operand "
           f"tile in the swizzled layout the WGMMA reads (fence.proxy.async, then named barrier {TRANSFORM_BARRIER})"
           f"{why}")
    if role == "a" and cfg.a_regs:
        from tileorch.transforms.tileas.register_a_operand import register_a_remark

        how = register_a_remark(cfg)
    dk.remarks.append(format_error(
        pro.top.owner,
        f"dot operand {role.upper()} computed in the K loop ({ops} of an {load.result.type.element_type} tile): "
        f"{how}; {cfg.stages} stages of {cfg.stage_bytes} bytes ({tiles} tiles"
        f"{f'; the {dk.depth} the tier asked for do not fit the shared memory' if cfg.stages < dk.depth else ''}), "
        "1 CTA per cluster, "
        f"the {cfg.schedule} schedule{_vectors_remark(dk, pro)}", "remark"))


def _vectors_remark(dk: DotKernel, pro) -> str:
    vectors = pro.vectors
    if not vectors:
        return ""
    moving = [ld for ld in _k_vectors(dk) if ld in vectors]
    fixed = len(vectors) - len(moving)
    parts = []
    if fixed:
        parts.append(f"{fixed} vector(s) that do not change along K loaded from global memory once per work tile, "
                     "before the K loop, at the thread's element positions")
    tma = [v for v in dk.kvec_plan[0] if v.load in vectors]
    refused = [(ld, why) for ld, why in dk.kvec_plan[1] if ld in vectors]
    by_global = [ld for ld in moving if not any(v.load is ld for v in tma)]
    if by_global:
        from tileorch.transforms.tileas.computed_operand_switches import prefetch_enabled

        when = ("one K step ahead (the K loop carries them; the first step's before the loop: "
                "TILEORCH_COMPUTED_OPERAND=prefetch)" if prefetch_enabled() else "at the top of the K step they feed")
        parts.append(f"{len(by_global)} vector(s) indexed by the K tile loaded from global memory in each K step "
                     f"(once per distinct element position of the thread), {when}")
    if tma or refused:
        from tileorch.transforms.tileas.k_vector_tma import remark

        parts.append(remark(tma, refused))
    return "; " + " and ".join(parts)


def stage_computed_b(fn: func.FuncOp, dk: DotKernel, cfg, args: list[SSAValue], grid: list[SSAValue] | None = None,
                     role: str = "b") -> None:
    """Insert the program's ops computing B (:attr:`DotKernel.b_prologue`; with ``role = "a"`` A,
    :attr:`DotKernel.a_prologue`, alike over the ``tile_m x tile_k`` tile) into every consumer warp
    group's K step, before the fence the kernel builder left after ``%braw_off`` (``%araw_off``)
    (:func:`tileorch.kernels.gemm.build._computed_b`).

    The ``tile_k x tile_n`` operand is ``tile_k * tile_n / 8`` 16-byte units (8 elements along B's
    contiguous dimension: N of an N-major B, K of a K-major one); consumer thread ``t`` (of
    ``128 * consumer_groups``) takes units ``t, t + T, ..``: it reads the unit's 8 raw elements from
    the stage's unswizzled raw tile (32-bit words), evaluates the program's ops on each
    (:class:`~tileorch.transforms.tileas.operand_prologue.OperandLowering`) at the element's
    coordinates in the program's tile, rounds them pairwise to the operand type
    (``cvt.rn.{f16,bf16}x2.f32``) and writes the unit where the WGMMA reads it (the operand's 128-byte
    swizzle, or a K-major row's: physical address ``lin ^ (((lin >> 7) & m) << 4)``).

    A thread's units are the same every K step, so their coordinates and byte offsets, and the
    vectors the ops read that do not change along K (a per-output-channel scale), are computed once
    per work tile before the K loop; a vector indexed by the K tile (a group's scale row) is loaded
    in the loop (the loop's ``kt`` stands for the program's K index: same K tile, checked by
    :func:`configure`).  Each distinct coordinate is one value, so a vector element the thread's
    units share is loaded once."""
    from xdsl.dialects.builtin import i8

    from tileorch.dialects.cutlass.tile_scheduler import WorkTileInfoToCoordMNKLOp
    from tileorch.transforms.tileas.operand_prologue import (CachingEmitter, OperandLowering, raw_element,
                                                             reads_loop_value)
    from tileorch.dialects.cutlass.named_barrier import NamedBarrierArriveAndWaitOp
    from tileorch.transforms.tileas.computed_operand_switches import (OWN_ROWS_BARRIER, own_rows_enabled,
                                                                      pairs_enabled, prefetch_enabled)
    from tileorch.transforms.tileas.k_vector_tma import kvec_slots
    from tileorch.transforms.tileas.prefetch_k_vectors import prefetch_k_vectors

    if role == "a":
        pro, load, name = dk.a_prologue, dk.a_load, "araw_off"
        res, cw, mn_major = cfg.a_raw_element_bytes, cfg.a_raw_chunk_columns, cfg.a_major == "m"
        rows = cfg.tile_k if mn_major else cfg.tile_m
        units = cfg.tile_m * cfg.tile_k // 8
    else:
        pro, load, name = dk.b_prologue, dk.b_load, "braw_off"
        res, cw, mn_major = cfg.raw_element_bytes, cfg.raw_chunk_columns, cfg.b_major == "n"
        rows = cfg.tile_k if mn_major else cfg.tile_n
        units = cfg.tile_k * cfg.tile_n // 8
    smem = next(op.results[0] for op in fn.walk() if isinstance(op, DynamicSmemOp))
    anchors = [op for op in fn.walk() if op.results and op.results[0].name_hint == name]
    if not anchors:
        raise ValueError(f"kernel builder output has no %{name} (a computed operand's slot)")
    threads = 128 * cfg.consumer_groups
    upr = cw // 8  # units per row
    upc = rows * upr  # units per chunk
    mask = (cw * 2) // 16 - 1
    elt = load.result.type.element_type
    fast = s8_to_f16_only(pro) and cfg.dtype == "f16"
    pairs = pairs_enabled()
    entry = dk.kernel.body.blocks.first
    k_ivs = {id(b.args[0]) for b in k_loop_blocks(dk)}
    loop_memo: dict = {}
    hoistable = {id(ld) for ld in pro.vectors
                 if not any(reads_loop_value(x, entry, loop_memo) for x in ld.operands)}
    top_shape = list(pro.top.type.get_shape())
    transposed_top = "nv_tileaa.permute" in pro.seen  # the program's tile is the operand's transpose

    # rows: warp group w's threads take the contiguous half of the units its WGMMAs read (K-major: rows
    # 64 w .. 64 w + 63; M-major: 64-column chunk w), 128 apart
    own_rows = role == "a" and not cfg.b_raw and cfg.consumer_groups == 2 and own_rows_enabled()
    per_group = units // cfg.consumer_groups

    def unit_of(tt: int, i: int) -> int:
        return (tt // 128) * per_group + tt % 128 + 128 * i if own_rows else tt + threads * i

    def split(tt: int, i: int) -> tuple[int, int, int]:
        u = unit_of(tt, i)
        return u // upc, (u % upc) // upr, u % upr  # chunk, row, 8-element column

    for anchor in anchors:
        raw_off = anchor.results[0]
        op_off = anchor.operands[0]  # %bop_off
        fence = anchor.next_op
        while not isinstance(fence, nvvm.FenceProxyOp):  # (a computed A's slot may follow B's)
            fence = fence.next_op
        body = anchor.parent_block()
        kloop = body.parent_op()
        tile = next(o for o in kloop.parent_block().ops if isinstance(o, WorkTileInfoToCoordMNKLOp))
        env = KernelEnv(args, [tile.results[0], tile.results[1], tile.results[3]], [], grid)
        pre_block, head_block, tmp = Block(), Block(), Block()
        pe, e = CachingEmitter(pre_block, 128), CachingEmitter(tmp, 128)
        low = OperandLowering(entry, None, dk.store, env, e)
        low.roots = {id(r) for r in pro.roots}
        low.k_ivs, low.kt = k_ivs, body.args[0]
        low.vectors, low.pre, low.hoistable = pro.vector_values, pe, hoistable
        low.head = CachingEmitter(head_block, 128)
        low.kvec_slots = kvec_slots(body, dk.kvec_plan[0], smem)
        tid = pe.v(nvvm.SPECIAL_REGISTERS["tid.x"]())
        t = pe.v(arith.SubiOp(tid, pe.const(128)))  # the consumer warp groups follow the producer's
        coord_values: dict = {}

        def coordinate(table: tuple, make) -> SSAValue:
            """One value per distinct function of the thread index (the element's row or column)."""
            hit = coord_values.get(table)
            if hit is None:
                hit = coord_values[table] = make()
            return hit

        def ptr(off: SSAValue) -> SSAValue:
            return e.v(llvm.GEPOp(smem, [llvm.GEP_USE_SSA_VAL], i8, ssa_indices=[off], result_type=smem.type))

        if own_rows:  # (t >> 7) * per_group + (t & 127): this warp group's first unit
            own = pe.add_i(pe.mul_i(pe.v(arith.ShRUIOp(t, pe.const(7))), pe.const(per_group)),
                           pe.v(arith.AndIOp(t, pe.const(127))))
        for i in range(units // threads):
            u = pe.add_i(own, pe.const(128 * i)) if own_rows else pe.add_i(t, pe.const(threads * i))
            chunk = pe.v(arith.DivUIOp(u, pe.const(upc)))
            rem = pe.v(arith.RemUIOp(u, pe.const(upc)))
            row = pe.v(arith.DivUIOp(rem, pe.const(upr)))
            c8 = pe.v(arith.RemUIOp(rem, pe.const(upr)))
            lin = pe.add_i(pe.add_i(pe.mul_i(chunk, pe.const(rows * cw * 2)), pe.mul_i(row, pe.const(cw * 2))),
                           pe.mul_i(c8, pe.const(16)))
            raw_lin = pe.add_i(pe.add_i(pe.mul_i(chunk, pe.const(rows * cw * res)),
                                        pe.mul_i(row, pe.const(cw * res))), pe.mul_i(c8, pe.const(8 * res)))
            sw = pe.v(arith.ShLIOp(pe.v(arith.AndIOp(pe.v(arith.ShRUIOp(lin, pe.const(7))), pe.const(mask))),
                                   pe.const(4)))
            swizzled = pe.v(arith.XOrIOp(lin, sw))
            raw_base = e.add_i(raw_off, raw_lin)
            words = _load_words(e, [ptr(e.add_i(raw_base, e.const(16 * v))) for v in range(-(-2 * res // 4))], 2 * res)
            phys = e.add_i(op_off, swizzled)
            if fast:  # four i8 -> f16 pairs of the unit's 8 bytes
                e.store_vector(_s8_to_f16_pairs(e, words), i32, ptr(phys))  # one 16-byte store
                continue
            row_table = tuple(split(tt, i)[1] for tt in range(threads))
            row_c = coordinate(("row", row_table), lambda: row)
            out = []
            for x in range(8):
                col_table = tuple(split(tt, i)[0] * cw + split(tt, i)[2] * 8 + x for tt in range(threads))
                col_c = coordinate(("col", col_table), lambda: pe.add_i(
                    pe.add_i(pe.mul_i(chunk, pe.const(cw)), pe.mul_i(c8, pe.const(8))), pe.const(x)))
                # the element in the dot's operand tile: B (k, n), A (m, k); an N- or M-major tile's rows are K
                pair = (row_c, col_c) if mn_major == (role == "b") else (col_c, row_c)
                pair = pair[::-1] if transposed_top else pair
                coords = ((Coord(pe.const(0), None),) * (len(top_shape) - 2)
                          + tuple(Coord(c, None) for c in pair))
                low.element = raw_element(e, words[x * res // 4], x, res, elt)
                out.append(low.at(pro.top, coords))
            pack = pack_bits if pairs else pack16
            e.store_vector([pack(e, out[2 * q], out[2 * q + 1], cfg.dtype) for q in range(4)], i32, ptr(phys))
        if own_rows:  # the fence's barrier: this warp group's own, over its 128 threads
            barrier = fence.next_op
            assert isinstance(barrier, NamedBarrierArriveAndWaitOp), barrier
            wg = anchors.index(anchor)  # one anchor per consumer warp group (any two distinct ids will do)
            barrier.detach()
            barrier.erase()
            fence.parent_block().insert_op_after(NamedBarrierArriveAndWaitOp(OWN_ROWS_BARRIER + wg, 128), fence)
        head_ops = list(head_block.ops)
        move_before(pre_block, kloop)
        move_before(head_block, body.first_op)  # K-indexed vectors: before the consumer's wait
        move_before(tmp, fence)
        if head_ops and prefetch_enabled():  # loaded one K step ahead, carried by the loop
            prefetch_k_vectors(kloop, head_ops)


def pack_bits(e: Emitter, lo: SSAValue, hi: SSAValue, dtype: str) -> SSAValue:
    """:func:`pack16` (``TILEORCH_COMPUTED_OPERAND=pairs``), except that two values already of the
    operand's 16-bit type that are not a rounding of an f32 (an f16 product, a ``maximum`` of f16
    elements) are packed as their bits (``lo`` in the low half): no conversion to f32 and back."""
    from tileorch.transforms.tileas.pack16 import rounded_from

    def bits(v: SSAValue) -> SSAValue | None:
        if str(v.type) != dtype or rounded_from(v) is not v:
            return None
        return e.v(arith.ExtUIOp(e.v(arith.BitcastOp(v, IntegerType(16))), i32))

    lo_bits, hi_bits = bits(lo), bits(hi)
    if lo_bits is None or hi_bits is None:
        return pack16(e, lo, hi, dtype)
    return e.v(arith.OrIOp(lo_bits, e.v(arith.ShLIOp(hi_bits, e.const(16)))))


def _load_words(e: Emitter, ptrs: list[SSAValue], count: int) -> list[SSAValue]:
    """``count`` consecutive 32-bit words from shared memory (2: one 8-byte vector load at ``ptrs[0]``;
    4 or 8: 16-byte vector loads at each pointer, 16 bytes apart), as i32 values."""
    from xdsl.dialects.builtin import VectorType

    out = []
    for p in ptrs:
        n = min(4, count - len(out))
        vec = e.v(llvm.LoadOp(p, VectorType(i32, [n]), alignment=4 * n))
        out += [e.v(llvm_ext.ExtractElementOp(vec, e.const(j))) for j in range(n)]
    return out


def s8_to_f16_only(pro) -> bool:
    """The computed operand is one ``sitofp`` of the i8 tile to f16 (a W8A16 weight's ``astype``):
    :func:`_s8_to_f16_pairs` converts it four elements in five instructions, exactly."""
    return (len(pro.ops) == 1 and pro.ops[0].name == "nv_tileaa.sitofp" and str(pro.top.type.element_type) == "f16"
            and all(str(r.type.element_type) == "i8" for r in pro.roots))


def _s8_to_f16_pairs(e: Emitter, words: list[SSAValue]) -> list[SSAValue]:
    """The f16 pairs (element 2q in the low half) of the 8 int8 values in ``words`` (4 each, the
    first in the low byte): each byte's sign bit flipped (``x + 128``, unsigned) and placed below the
    byte 0x64 (the f16 ``1024 + x + 128``, exact: f16 counts by 1 in [1024, 2048)) by ``prmt``, then
    ``1152`` subtracted from both halves (``sub.f16x2``, exact)."""
    bias = e.const(0x64806480)
    out = []
    for w in words:
        flipped = e.v(arith.XOrIOp(w, e.const(0x80808080 - (1 << 32))))
        for sel in (0x4140, 0x4342):
            spread = e.v(llvm.InlineAsmOp(f"prmt.b32 $0, $1, $2, {sel:#x};", "=r,r,r", [flipped, e.const(0x64646464)],
                                          [i32]))
            out.append(e.v(llvm.InlineAsmOp("sub.f16x2 $0, $1, $2;", "=r,r,r", [spread, bias], [i32])))
    return out


def parse_override(text: str) -> dict:
    """``"tile_n=256,stages=4"`` -> ``{"tile_n": 256, "stages": 4}`` (ints where they parse)."""
    out: dict = {}
    for item in filter(None, (x.strip() for x in text.split(","))):
        key, _, value = item.partition("=")
        if key not in OVERRIDABLE + LAUNCH_OVERRIDES:
            raise ValueError(f"config override {key!r} is not one of {', '.join(OVERRIDABLE + LAUNCH_OVERRIDES)}")
        out[key] = int(value) if value.lstrip("-").isdigit() else value
        if key in _FLAG_OVERRIDES and out[key] not in (0, 1):
            raise ValueError(f"config override {key}={value!r}: {key} takes 0 or 1")
    return out


_FLAG_OVERRIDES = ("c_ld", "b_shared", "kvec_global")
"""The override words that are switches: ``0`` or ``1`` (a value else is a located error, not Python's own)."""


def read_config(fn: Operation):
    """The :class:`GemmConfig` and the record stored on a lowered function."""
    from tileorch.kernels.gemm.config import GemmConfig

    record = config_record(fn)
    if record is None:
        raise ValueError(f"{fn.name} has no {CONFIG_ATTR}")
    fields = {f.name for f in dataclasses.fields(GemmConfig)}
    return GemmConfig(**{k: v for k, v in record.items() if k in fields}), record
