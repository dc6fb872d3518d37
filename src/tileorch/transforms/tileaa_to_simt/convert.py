"""``convert-nv-tileaa-to-simt``: any ``nv_tileaa`` kernel -> a plain SIMT ``func.func`` kernel.

The general path below the tile tier, for kernels the warp-specialized GEMM lowering
(``convert-nv-tileas-to-cutlass``) does not take: elementwise math, reductions, scans,
softmax/layernorm-style rows, transposes, dots (on mma.sync tensor cores).  Contract:

* one CTA per tile program, ``32 * num_worker_warps`` threads (``nv_tileaa.kernel_spec``,
  default 4 warps; without the program's hint, sized to its tiles), as the function's
  ``nv_tileaa.simt_layout`` says; the grid is the tile program grid (``get_program_id`` = ``%ctaid``);
  except a one-warp program without barriers or shared memory: one program per warp, several
  warps per CTA (``warp_programs.py``: an extra trailing parameter, the launch picks the warps),
  and several programs per warp when one program loads under 2 KiB (their loads issued together,
  their whole-warp reductions folded at once);
* a tile is *blocked* over the threads as the layout passes decided (``#nv_tileaa.blocked``
  attributes of ``tileas-assign-load-store-layouts`` / ``tileas-remove-layout-conversions``,
  ``transforms/tileas/simt_layouts.py``, read by ``layout.py``; reported as a remark by the
  driver): each thread owns runs of ``v`` contiguous elements of the row-major
  order (``v`` from 16 bytes over the element size of the function's contiguous global
  accesses), consecutive threads consecutive runs, so elementwise chains stay in registers and
  global loads/stores coalesce into 16-byte vector accesses (``ld.global.v4``) wherever a run is
  in bounds and aligned (checked at run time; scalar masked accesses otherwise); the vector
  loads of a tile are predicated ``ld.global.v4.b32`` issued together before any branch that
  unpacks them (``Emitter.load_words_if``), so a ragged tile keeps all its loads in flight; a
  tile ending past the array along its last dimension by a multiple of the run (rows of 1000 in
  a tile of 1024) moves one predicated vector per run, the padding past the end (the immediates
  of the ``mov`` before each load: no select) (``_whole_tile(ragged_last=True)``,
  ``TILEORCH_RAGGED_ROWS=0``: off), and the run-by-run path
  enters its element-by-element branch only for a run some element of which lies inside;
* ``reduce`` folds each thread's elements, then combines across lanes with warp shuffles
  (``shfl.sync.bfly``) and across warps through shared memory, when the tile's dimensions are
  powers of two (any other shape: through the scratch as below); a one-element result is
  held by every thread (``Tile.replicated``), so broadcasting it back is free;
* ``scan`` is a parallel prefix in registers (``scan.py``: in-thread, ``shfl.sync.up`` across
  lanes, one shared-memory step across warps) for power-of-two shapes;
* ``dot`` runs on tensor cores, warp-level ``mma.sync`` over its operands staged in shared memory
  in fragment-friendly form (``mma.py``: f16, bf16, tf32/f32, i8, fp8 on sm_80+/sm_89+), else (other
  types, older targets) as one scalar FMA loop per accumulator slot over the operands staged as below;
* ``broadcast``, ``permute``, ``extract``, ``extract_slice``, ``cat`` and ``scan`` (other shapes)
  exchange their operands through one shared-memory scratch array (``bar.sync`` before each
  write and after each write phase; element ``f`` at position ``f + f / 32``, so strided reads
  do not all hit one bank); ``reshape``/``expand_dims`` are free unless they carry
  ``nv_tileaa.source_layout`` (a conversion the layout passes kept: one exchange); a broadcast
  or conversion of a tile each thread can recompute (a range, a splat, an integer cast of those,
  an index tile load: ``rematerialize.py``) is recomputed instead of exchanged;
* an f32 ``divf`` (default rounding) whose divisor is one register for all of a thread's
  elements (a row's sum broadcast back) divides through one reciprocal per thread, three FMA per
  element, bit for bit ``div.rn`` (zero numerators included: a ragged row's padding), with one
  branch per thread to ``div.rn`` where an operand lies out of range (``uniform_division.py``,
  ``TILEORCH_UNIFORM_DIV=0``: off);
* element types: i1 (a byte in memory), i8, i16, i32, i64, f16, f32, f64 held as themselves;
  bf16, tf32 and fp8 (e4m3, e5m2: sm_89+) held as f32 (see ``emit.reg_type``); any other element
  type is a located "not supported yet" error naming it;
* out-of-bounds tile elements load the view's padding value and are not stored; a
  ``tiled_store`` is followed by ``bar.sync`` so later loads of the CTA see it;
* scalars (program ids, loop counters, shapes) are uniform SSA values; ``scf`` loops and
  branches carry tiles as one value per slot; a loop that writes no memory loads its tiles one
  iteration ahead, two iterations per trip so the carried tiles need no copy (``prefetch.py``).

* ``assert`` and ``print`` (cuTile's ``ct.assert_``, ``ct.printf``/``ct.print``) call the PTX
  system calls ``__assertfail`` and ``vprintf`` (``asserts.py``, ``prints.py``: thread 0 prints
  each tile block's text once, the tiles gathered through the scratch).

Unsupported ops get a located "not supported yet by convert-nv-tileaa-to-simt" error.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, scf
from xdsl.dialects.builtin import (BFloat16Type, DenseArrayBase, DenseIntOrFPElementsAttr, Float16Type, Float32Type,
                                   Float64Type, FloatAttr, FloatTF32Type,
                                   FunctionType, IntegerAttr, IntegerType, ModuleOp, StringAttr, TensorType, UnitAttr,
                                   VectorType,
                                   f32, i1, i8, i16, i32, i64)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from tileorch import settings
from tileorch.diagnostics import LocatedError
from tileorch.dialects import llvm_ext, nvvm
from tileorch.dialects.nv_tileaa import FuncOp as TileFuncOp
from tileorch.dialects.nv_tileaa import directed_rounding
from tileorch.dialects.nv_tileaa.attrs import MemRefType, MemTokenType, PointerType, TiledViewType
from tileorch.dialects.nv_tileaa.blocked import SOURCE_LAYOUT
from tileorch.dialects.nv_tileaa.ops import dot_signedness
from tileorch.dialects.nv_tileaa.tile_ops import CASTS
from tileorch.transforms.dense_splat import splat_value
from tileorch.transforms.math_mode import takes_approx
from tileorch.lazy_import import lazy_module
from tileorch.transforms.tileaa_to_simt import (asserts, cluster_split, combined_atomics, early_prefetch,
                                                gather_occupancy, occupancy_cap, rematerialize, store_barriers,
                                                store_chunks, thread_local_reduce, thread_partials, uniform_division, warp_programs)
from tileorch.transforms.tileaa_to_simt.emit import (FLOAT_BITS, GLOBAL_PTR, SHARED_PTR, Emitter, Tile, binary,
                                                     byte_size, cmpi, float_attr, global_type, integer_attr,
                                                     is_float, is_fp8, load_op,
                                                     memory_type, predicated_form, reg_type, strides_of,
                                                     supported_element)
from tileorch.transforms.tileaa_to_simt.hoist import MAX_HOISTED_WORDS, loads_first, split_loads_first
from tileorch.transforms.tileaa_to_simt.layout import SimtLayout
from tileorch.transforms.tileaa_to_simt.mma import MmaDotLowering, MmaPlan, plan_dot
from tileorch.transforms.tileaa_to_simt.ordered_views import OrderedViewLowering, ordered
from tileorch.transforms.tileaa_to_simt.pointers import PointerLowering
from tileorch.transforms.tileaa_to_simt.predicated_tails import predicated_tails
from tileorch.transforms.tileaa_to_simt.prefetch import (PAST_STORES_ATTR, WRITES, prefetch_depth, prefetchable_loads,
                                                        stores_in, unrolled)
from tileorch.transforms.tileaa_to_simt.row_cache_lowering import ATTR as ROW_CACHE_ATTR, RowCacheLowering
from tileorch.transforms.tileaa_to_simt.scan import ScanLowering
from tileorch.transforms.tileaa_to_simt.unrolled_trips import trip_counter
from tileorch.transforms.tileas.simt_layouts import gathers, vectorizable_access

PASS = "convert-nv-tileaa-to-simt"
CUTILE_TYPE_NAMES = {"f4E2M1FN": "float4_e2m1fn", "f8E8M0FNU": "float8_e8m0fnu"}
"""cuTile's names of the element types the SIMT lowering does not hold (its located error names both)."""
PRINT_STRINGS_ATTR = "tileorch.print_strings"
PRINT_LOCK_ATTR = "tileorch.print_lock"
"""On a lowered kernel that prints: its format strings and whether it takes the print lock (``prints.py``
writes them, ``prints.add_globals`` turns them into globals and removes them).  Here so that a kernel without prints is lowered without importing ``prints.py``
and what it needs (the print-format parser, the print planner, the bounded-wait sites: ~3 ms of a cold
compile's imports): :data:`_prints` is imported on the first print lowered, or on the first module
that carries this attribute."""
_prints = lazy_module("tileorch.transforms.tileaa_to_simt.prints")
MAX_STATIC_SMEM = 48 * 1024
MAX_DYNAMIC_SMEM = 227 * 1024
"""Shared memory a Hopper CTA may opt into (dynamic shared memory above the 48 KiB of static)."""
DYNAMIC_SMEM_ATTR = "tileorch.dynamic_smem"
"""On a SIMT kernel whose scratch exceeds :data:`MAX_STATIC_SMEM`: the bytes of dynamic shared
memory its launch must give it (the scratch is then an external ``[0 x i8]`` shared array)."""
MAX_SLOTS = 512
"""Register slots per tile per thread (a 128 x 512 f32 tile on 128 threads); bigger tiles are
refused rather than compiled into a kernel that spills everything."""
MAX_FMA_DOT_SLOTS = 256
"""Accumulator slots per thread of a dot on scalar FMA loops (one K loop per slot, every slot
live across all of them): a 256x256 f32 accumulator on 128 threads (512 slots) made ptxas run
for minutes and grow past 4 GiB; such a dot is refused (a located error) instead."""

SCRATCH = "__tileorch_simt_scratch"
PREDICATED_INDEX_ENV = "TILEORCH_PREDICATED_INDEX_LOADS"
"""``0``: a recomputed index element is loaded inside a branch (see ``load_element``)."""
ONE_ELEMENT_LOADS_ENV = "TILEORCH_SIMT_ONE_ELEMENT_LOADS"
"""``0``: a one-element tile load (a cross entropy's label, a scalar read from a device array) is
loaded by thread 0 alone and handed to the others through shared memory where it is used (a barrier
pair: every thread waits for that load there, e.g. before a row loop's first tile loads).  By default
each thread loads the element itself (one request per warp, the same address) and holds it as a
replicated value: no barrier, and the load's wait comes at its first use."""
RAGGED_ROWS_ENV = "TILEORCH_RAGGED_ROWS"
"""``0``: a tile access whose tile ends past the array along its last dimension goes run by run
(each run tested for a vector, else element by element); by default, when the extent left is a
multiple of the run (a row of 1000 f16 in a tile of 1024), one predicated vector access per run,
padding for the runs past the end (``_whole_tile(ragged_last=True)``)."""


def _unsupported(op: Operation, why: str = "") -> LocatedError:
    extra = f": {why}" if why else ""
    return LocatedError(op, f"'{op.name}' is not supported yet by {PASS}{extra}")


@dataclass
class Memref:
    """An ``nv_tileaa.make_memref`` value once lowered: base pointer, element type, i32 sizes and
    strides (shared with the epilogue lowering of :mod:`tileorch.transforms.tileas.epilogue`)."""

    ptr: SSAValue
    element: Attribute
    shape: list[SSAValue]
    strides: list[SSAValue]
    static_strides: list[int]
    """The strides the type states (-1: dynamic)."""


@dataclass
class View:
    """An ``nv_tileaa.block_tile`` value once lowered: its memref and the view type's tile, step
    and dimension order."""

    memref: Memref
    tile: list[int]
    step: list[int]
    order: list[int]


def _identity(e: Emitter, attr: Attribute, typ: Attribute) -> SSAValue:
    typ = reg_type(typ)
    if isinstance(attr, FloatAttr):
        return e.v(arith.ConstantOp(FloatAttr(attr.value.data, typ)))
    if isinstance(attr, IntegerAttr):
        return e.v(arith.ConstantOp(IntegerAttr(attr.value.data, typ)))
    raise ValueError(f"reduction identity {attr}")


def _padding(e: Emitter, kind: str, typ: Attribute) -> SSAValue:
    typ = reg_type(typ)
    if is_float(typ):
        value = {"zero": 0.0, "neg_zero": -0.0, "undef": 0.0, "nan": float("nan"), "neg_inf": float("-inf"),
                 "pos_inf": float("inf")}[kind]
        return e.fconst(value, typ)
    return e.const(0, typ)


def _padding_words(kind: str, elt: Attribute, count: int) -> list[int] | None:
    """The 32-bit words (little-endian) of ``count`` elements of padding ``kind`` as ``elt`` is
    stored (f16, bf16, f32, f64: what ``_padding`` then ``FunctionLowering._to_memory`` give),
    or None for other element types (their padded words are selected instead)."""
    import struct

    value = {"zero": 0.0, "neg_zero": -0.0, "undef": 0.0, "nan": float("nan"), "neg_inf": float("-inf"),
             "pos_inf": float("inf")}.get(kind)
    if value is None:
        return None
    if isinstance(elt, Float16Type):
        raw = struct.pack("<e", value) * count
    elif isinstance(elt, BFloat16Type):  # the f32 bits' top half (exact for 0, +-inf; NaN: 0x7FC0)
        raw = struct.pack("<I", struct.unpack("<I", struct.pack("<f", value))[0] >> 16)[:2] * count
    elif isinstance(elt, Float32Type):
        raw = struct.pack("<f", value) * count
    elif isinstance(elt, Float64Type):
        raw = struct.pack("<d", value) * count
    else:
        return None
    if len(raw) % 4:
        return None
    return [struct.unpack("<I", raw[k:k + 4])[0] for k in range(0, len(raw), 4)]


class FunctionLowering(PointerLowering, OrderedViewLowering, ScanLowering, MmaDotLowering, RowCacheLowering):
    """Lower one ``nv_tileaa.func`` into a ``func.func`` kernel."""

    store_groups = 0
    """Runs per store group (``store_chunks.py``, set by the pass when ``TILEORCH_SIMT_STORE_CHUNK`` is on and
    the function's accesses are unordered): > 0 splits a tile store's in-bounds test into one branch per
    group of that many runs, so that ``store_chunks.interleave_stores`` can place each group after the
    loads it needs; 0 (the default): one branch per tile store."""

    def __init__(self, fn: TileFuncOp, sm: int | None = None):
        self.fn = fn
        self.sm = sm  # the target's compute capability (nv_tileaa.compute_capability), when the module names it
        self.layout: SimtLayout = SimtLayout.of_function(fn)  # as the layout passes decided it
        self.threads = self.layout.threads
        self.vals: dict[SSAValue, object] = {}
        self.scratch_bytes = 0
        self.scratch_op: Operation | None = None  # the innermost op that last raised scratch_bytes
        self._scratch_seen = 0
        self.rematerialized = 0
        self.uniform_divisions = 0
        self.thread_local_reductions = 0
        self._stage_end = 0
        self.smem: SSAValue | None = None
        self.has_loads = any(op.name in ("nv_tileaa.tiled_load", "nv_tileaa.load") for op in fn.walk())
        self._ordered_writes: set | str | None = None
        self._writes_seen: set[Operation] = set()
        """The writes a read is ordered after by its token (``store_barriers.py``), once asked."""
        self.unbarriered_stores: set[Operation] = set()
        """Weak tile stores a load may follow, lowered without the barrier after them (``store_barriers.py``)."""
        self.split = cluster_split.split_loop(fn)
        """The reduction loop split over a cluster's CTAs (``cluster_split.py``), or None."""
        self.rank = self.nranks = self.rank0 = None
        self.per_warp = 1
        """Programs each warp runs (``warp_programs.py``); ``self.copy``: the one being lowered."""
        self.copy = 0
        self.combine: combined_atomics.Plan | None = None
        """Several instances per CTA, their final atomics combined (``combined_atomics.py``), or None."""
        self.combine_off: str | None = None
        self.instance: SSAValue | None = None
        """Program id x of the instance being lowered (``combined_atomics.py``), or None."""
        self.programs: SSAValue | None = None
        self.early_ahead: dict = {}
        """(program copy, loop) -> its first loads' slots, issued early (``early_prefetch.py``)."""
        self.packed: dict[SSAValue, tuple] = {}
        """A loaded tile -> (the 32-bit words it was loaded as, unpack(emitter, words) -> slots):
        a prefetching loop carries the words and unpacks them where the tile is used."""

    # -- values -----------------------------------------------------------------------------
    def get(self, v: SSAValue):
        if v not in self.vals:
            raise LocatedError(v.owner if isinstance(v.owner, Operation) else self.fn,
                               f"{PASS}: value used before it was lowered")
        return self.vals[v]

    def tile(self, v: SSAValue) -> Tile:
        t = self.get(v)
        if not isinstance(t, Tile):
            raise LocatedError(v.owner if isinstance(v.owner, Operation) else self.fn,
                               f"{PASS}: expected a tile value")
        return t

    def slots_of(self, t: TensorType, op: Operation) -> int:
        n = 1
        for d in t.get_shape():
            if d < 0:
                raise _unsupported(op, "dynamic tile shapes")
            n *= d
        s = self.layout.slots(t.get_shape())
        if s > MAX_SLOTS:
            raise LocatedError(op, f"a tile of {n} elements is too large: {s} registers per thread on {self.threads} "
                                   f"threads (at most {MAX_SLOTS}); use smaller tiles ('{op.name}' in {PASS})")
        return s

    def flatten_type(self, t: Attribute, op: Operation) -> list[Attribute]:
        if isinstance(t, TensorType):
            return [reg_type(t.element_type)] * self.slots_of(t, op)
        if isinstance(t, MemTokenType):
            return []
        if isinstance(t, IntegerType) or is_float(t) or t == i1 or isinstance(t, PointerType):
            return [reg_type(t)]
        raise _unsupported(op, f"values of type {t} in loops and branches")

    def flatten(self, v: SSAValue) -> list[SSAValue]:
        """The registers of ``v`` as loops and branches carry them (a tile's slots, a scalar);
        a view or memref, which this lowering keeps as values of the compile (not registers),
        is a located error at the loop or branch that carries it."""
        x = self.get(v)
        if isinstance(x, Tile):
            return list(x.slots)
        if x is None:
            return []
        if not isinstance(x, SSAValue):
            raise self._not_carried(v)
        return [x]

    _CARRIERS = ("scf.for", "scf.yield", "scf.if", "scf.while", "scf.condition")

    def _not_carried(self, v: SSAValue) -> LocatedError:
        users = [u.operation for u in v.uses if u.operation.name in self._CARRIERS]
        at = users[0] if users else v.owner if isinstance(v.owner, Operation) else v.owner.parent_op()
        if at is not None and at.name in ("scf.yield", "scf.condition") and at.parent_op() is not None:
            at = at.parent_op()  # the loop or branch whose region yields it
        return LocatedError(at, f"{PASS}: a {v.type.name} value cannot be carried through a loop or a branch "
                                "(this lowering keeps views and memrefs as compile-time values, not registers): "
                                "make the view inside the loop, or pass its memref's operands instead")

    def unflatten(self, types: list[Attribute], values: list[SSAValue], op: Operation) -> list:
        out, i = [], 0
        for t in types:
            if isinstance(t, TensorType):
                n = self.slots_of(t, op)
                out.append(Tile(tuple(t.get_shape()), t.element_type, list(values[i:i + n])))
                i += n
            elif isinstance(t, MemTokenType):
                out.append(None)
            else:
                out.append(values[i])
                i += 1
        return out

    # -- entry ------------------------------------------------------------------------------
    def run(self) -> tuple[func.FuncOp, int]:
        """The lowered kernel and its scratch bytes.  A one-warp program whose hoisted loads
        bring little runs several programs per warp (``warp_programs.programs_per_warp``) when
        the lowered kernel packs into warps; otherwise it is lowered again, one per warp.  Every
        op's element types are checked first (:meth:`check_types`): the planning before the
        lowering sizes tiles by their element types and must not meet one it cannot size."""
        for op in self.fn.walk():  # (an argument's view is named at the op that reads or writes it)
            if op.name != "nv_tileaa.make_memref":
                self.check_types(op)
        per_warp = self._programs_per_warp()
        if per_warp == 1:
            return self._run()
        self.per_warp = per_warp
        new, scratch = self._run()
        if new.attributes.get(warp_programs.PROGRAMS_PER_WARP_ATTR) is not None:
            return new, scratch
        again = FunctionLowering(self.fn, self.sm)
        result = again._run()
        self.scratch_op = again.scratch_op
        return result

    def _programs_per_warp(self) -> int:
        if self.threads != 32 or self.split is not None or not warp_programs.enabled():
            return 1
        moved, _ = split_loads_first(self.fn.body.blocks[0].ops, self._load_words)
        loads = [op for op in moved if op.name == "nv_tileaa.tiled_load"]
        words = sum(self._load_words(op) for op in loads)
        return warp_programs.programs_per_warp(words * 4 * self.threads, words, MAX_HOISTED_WORDS)

    def _run(self) -> tuple[func.FuncOp, int]:
        fn = self.fn
        arg_types = []
        for t in fn.function_type.inputs.data:
            if isinstance(t, PointerType):
                arg_types.append(GLOBAL_PTR)
            elif (isinstance(t, IntegerType) and supported_element(t)) or str(t) in ("f16", "f32", "f64"):
                arg_types.append(t)
            else:
                raise LocatedError(fn, f"{PASS}: kernel parameter of type {t} is not supported yet")
        if fn.function_type.outputs.data:
            raise LocatedError(fn, f"{PASS}: a kernel returns no values")
        self._plan_instances()
        if self.combine is not None:  # the programs along x and the instances per CTA (combined_atomics.py)
            arg_types += [i32, i32]
        entry = Block(arg_types=arg_types)
        self.rematerialized = 0  # shape ops recomputed in registers (rematerialize.py)
        self.rematerialized_tiles: dict = {}  # (program copy, source, op name, shape, block) -> Tile
        self.assert_strings: dict[str, str] = {}  # text -> symbol of the asserts' strings (asserts.py)
        self.print_strings: dict[str, str] = {}  # text -> symbol of the prints' formats (prints.py)
        self.print_buffer = None  # the prints' vprintf argument buffer (prints.py)
        self.print_lock = False
        self.entry_block = entry
        self.uniform_divisions = 0  # divisions by one shared register (uniform_division.py)
        self.thread_local_reductions = 0  # reductions whose result needs no exchange (thread_local_reduce.py)
        self.prefetched_past_stores: set[int] = set()  # loops with stores that prefetch (prefetch.past_stores)
        e = Emitter(entry, self.threads, share_constants=True, appends_only=True,
                    fold_constants=True)  # (its emitters only append)
        e.tid = e.v(nvvm.SPECIAL_REGISTERS["tid.x"]())
        v = 2
        while v <= self.layout.max_run():
            e.scaled_tid[v] = e.mul_i(e.tid, e.const(v))
            v *= 2
        self.smem = e.v(llvm.AddressOfOp(SCRATCH, SHARED_PTR))
        for old, new in zip(fn.body.blocks[0].args, entry.args):
            self.vals[old] = new
        self.row_cache_setup(e)  # (row_cache_lowering.py: a two-pass row's tiles kept in shared memory)
        ops = list(loads_first(fn.body.blocks[0].ops, self._load_words))
        if self.split is not None:
            self._lower_split(e, ops)
        elif self.per_warp > 1:
            self._lower_copies(e)
        elif self.combine is not None:
            self._lower_instances(e, ops, entry.args[-2], entry.args[-1])
        else:
            self.lower_ops(e, ops)
        new = func.FuncOp(fn.sym_name.data, FunctionType.from_lists(arg_types, []), Region(entry))
        new.attributes["nvvm.kernel"] = UnitAttr()
        asserts.record_strings(new, self.assert_strings)
        if self.print_strings or self.print_lock:  # (prints.record writes nothing otherwise)
            _prints.record(new, self)
        if self.rematerialized:
            new.attributes[rematerialize.ATTR] = IntegerAttr(self.rematerialized, i32)
        if self.uniform_divisions:
            new.attributes[uniform_division.ATTR] = IntegerAttr(self.uniform_divisions, i32)
        if self.thread_local_reductions:
            new.attributes[thread_local_reduce.ATTR] = IntegerAttr(self.thread_local_reductions, i32)
        if self.prefetched_past_stores:
            new.attributes[PAST_STORES_ATTR] = IntegerAttr(len(self.prefetched_past_stores), i32)
        if self.split is not None:
            new.attributes[cluster_split.CLUSTER_SPLIT_ATTR] = IntegerAttr(cluster_split.max_cluster(), i32)
        if self.unbarriered_stores:
            new.attributes[store_barriers.ATTR] = IntegerAttr(len(self.unbarriered_stores), i32)
        if self.combine is not None:
            new.attributes[combined_atomics.ATTR] = IntegerAttr(len(self.combine.atomics), i32)
            new.attributes[combined_atomics.REASSOC_ATTR] = IntegerAttr(self.combine.reassociated, i32)
        elif self.combine_off is not None:
            new.attributes[combined_atomics.OFF_ATTR] = StringAttr(self.combine_off)
        threads = self.threads
        if (self.row_cache_group is None and self.combine is None  # (combined: its own instance loop and grid)
                and warp_programs.eligible(new, self.threads, self.scratch_bytes)):
            # one program (or per_warp programs) per warp, several warps per CTA
            warp_programs.pack_warp_programs(new, self.per_warp)
            threads = 32 * warp_programs.MAX_WARP_PROGRAMS
        new.attributes["nvvm.maxntid"] = DenseArrayBase.from_list(i32, [threads, 1, 1])
        ctas = gather_occupancy.min_ctas(threads) if gathers(self.fn) else None
        if ctas is not None:  # two latencies in a row: resident warps hide them (gather_occupancy.py)
            new.attributes["nvvm.minctasm"] = IntegerAttr(ctas, i32)
            new.attributes[gather_occupancy.ATTR] = IntegerAttr(ctas, i32)
        full = (combined_atomics.min_ctas(threads, any(op.name == "nv_tileaa.dot" for op in self.fn.walk()))
                if self.combine is not None else None)
        if full is not None and (ctas is None or full > ctas):  # (the instance loop's registers: combined_atomics.py)
            new.attributes["nvvm.minctasm"] = IntegerAttr(full, i32)
            new.attributes[combined_atomics.MIN_CTAS_ATTR] = IntegerAttr(full, i32)
        return new, self.row_cache_finish(new, self.scratch_bytes)

    # -- several instances per CTA, their final atomics combined (combined_atomics.py) ----------
    def _plan_instances(self) -> None:
        """``self.combine``: the plan when the kernel is one CTA per program (no cluster split, not several
        programs per warp, no row kept in shared memory) and its final atomics may be combined; else the
        reason they may not (``self.combine_off``) or nothing."""
        from tileorch.transforms.tileaa_to_simt.row_smem_cache import FILL, READ

        self.combine = self.combine_off = None
        if self.split is not None or self.per_warp > 1:
            return
        plan, why = combined_atomics.plan(self.fn)
        if plan is not None and any(FILL in op.attributes or READ in op.attributes for op in self.fn.walk()):
            plan, why = None, "a row is kept in shared memory"
        self.combine, self.combine_off = plan, why

    def _lower_instances(self, e: Emitter, ops: list[Operation], programs: SSAValue, per_cta: SSAValue) -> None:
        """The kernel body as ``per_cta`` instances in turn (program id x ``%ctaid.x + k * %nctaid.x``, those below
        ``programs``: the grid's CTAs sweep the instances together), a CTA barrier after each where the body uses
        the shared scratch; the combined atomics' values folded over the instances (loop-carried registers from
        the operation's identity) and the atomics made once after the loop, their pointers and masks computed
        once before it (``combined_atomics.py``)."""
        plan = self.combine
        self.programs = programs
        self.lower_ops(e, [op for op in ops if op in plan.invariant])
        body = [op for op in ops if op not in plan.invariant and op not in plan.after]
        types = [t for a in plan.atomics for t in self.flatten_type(a.value.type, a)]
        inits = []
        for a in plan.atomics:
            for t in self.flatten_type(a.value.type, a):
                ident = combined_atomics.identity(a.rmw_mode.value.data, t)
                inits.append(e.fconst(ident, t) if is_float(t) else e.const(ident, t))
        cta = e.v(nvvm.SPECIAL_REGISTERS["ctaid.x"]())
        ctas = e.v(nvvm.SPECIAL_REGISTERS["nctaid.x"]())
        held: dict = {}  # atomic -> its value's Tile as the body lowered it (shape, element, replicated)

        def instance(b: Emitter, k: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
            inst = b.add_i(cta, b.mul_i(k, ctas))

            def run(bb: Emitter) -> list[SSAValue]:
                self.instance = inst
                self.lower_ops(bb, body)
                self.instance = None
                last = bb.block.last_op
                if self.scratch_bytes and (last is None or last.name != nvvm.BarrierOp.name):
                    bb.barrier()  # the next instance rewrites the scratch; its accesses follow this one's
                out, i = [], 0
                for a in plan.atomics:
                    held[a] = self.get(a.value)
                    for x in self.flatten(a.value):
                        out.append(self._fold(bb, a.rmw_mode.value.data, acc[i], x))
                        i += 1
                return out

            return b.if_(b.v(cmpi(inst, programs, "ult")), run, lambda bb: acc, types=types)

        folded = e.for_(e.const(0), per_cta, e.const(1), inits, instance)
        mine, i = {}, 0  # each atomic's folded value (two atomics may fold one value: min and max of x)
        for a in plan.atomics:
            n = len(self.flatten_type(a.value.type, a))
            value = held[a]
            mine[a] = (Tile(value.shape, value.element, folded[i:i + n], value.replicated)
                       if isinstance(value, Tile) else folded[i])
            i += n
        for op in ops:
            if op in plan.after:
                if op in mine:
                    self.vals[op.value] = mine[op]
                self.lower_ops(e, [op])

    @staticmethod
    def _fold(e: Emitter, rmw: str, acc: SSAValue, x: SSAValue) -> SSAValue:
        """``acc <rmw> x`` in registers, as the atomic's operation computes it."""
        if rmw == "addf":
            return e.v(arith.AddfOp(acc, x))
        op = {"add": arith.AddiOp, "max": arith.MaxSIOp, "min": arith.MinSIOp, "umax": arith.MaxUIOp,
              "umin": arith.MinUIOp, "and": arith.AndIOp, "or": arith.OrIOp, "xor": arith.XOrIOp}[rmw]
        return e.v(op(acc, x))

    # -- several programs per warp (warp_programs.py) ------------------------------------------
    def _lower_copies(self, e: Emitter) -> None:
        """The kernel body once per program of the warp: the hoisted loads of every program,
        then the other ops op by op for all programs (``_lower_lockstep``) when each may run
        past the grid, else each program's other ops in turn, program ``k > 0``'s under
        ``id < programs``."""
        moved, rest = split_loads_first(self.fn.body.blocks[0].ops, self._load_words)
        ret = [op for op in rest if op.name == "nv_tileaa.return"]
        rest = [op for op in rest if op.name != "nv_tileaa.return"]
        base = dict(self.vals)
        per_copy = []
        for k in range(self.per_warp):
            self.vals, self.copy = dict(base), k
            self.lower_ops(e, moved)
            per_copy.append(self.vals)
        if all(self._lockstep_op(op) for op in rest):
            self._lower_lockstep(e, rest, per_copy)
        else:
            for k, vals in enumerate(per_copy):
                self.vals, self.copy = vals, k
                if k == 0:  # the warp runs when its first program is one
                    self.lower_ops(e, rest)
                    continue
                e.if_(self._copy_live(e), lambda b: (self.lower_ops(b, rest), None)[1])
        self.lower_ops(e, ret)

    def _copy_live(self, e: Emitter) -> SSAValue:
        """i1: the program being lowered is one of the grid's (``id < programs``)."""
        return e.v(cmpi(self._program_x(e), e.v(nvvm.SPECIAL_REGISTERS["nctaid.x"]()), "ult"))

    _STORES = ("nv_tileaa.tiled_store",)

    def _lockstep_op(self, op: Operation) -> bool:
        """``op`` may run for every program of the warp, past the grid too (then a tiled store,
        bounds-checked, runs under ``id < programs``): region-free (a reduce's combiner aside),
        no pointer load or atomic (unchecked addresses), no write but a tiled store."""
        if op.name in self._STORES:
            return True
        if op.name in WRITES or op.name in ("nv_tileaa.load",):
            return False
        return not op.regions or op.name == "nv_tileaa.reduce"

    def _lower_lockstep(self, e: Emitter, ops: list[Operation], per_copy: list[dict]) -> None:
        """Lower ``ops`` op by op for every program of the warp (program ``k``'s values in
        ``per_copy[k]``): a reduction of all of them at once where ``_reduce_copies`` can, a tiled
        store of program ``k > 0`` under ``id < programs``."""
        for op in ops:
            if op.name == "nv_tileaa.reduce" and self._reduce_copies(e, op, per_copy):
                continue
            for k, vals in enumerate(per_copy):
                self.vals, self.copy = vals, k
                if k == 0 or op.name not in self._STORES:
                    self.lower_ops(e, [op])
                else:
                    e.if_(self._copy_live(e), lambda b, op=op: (self.lower_ops(b, [op]), None)[1])

    def _reduce_copies(self, e: Emitter, op: Operation, per_copy: list[dict]) -> bool:
        """The same whole-tile reduction of ``R`` programs (a power of two up to 32), one warp
        each, at once (else False, nothing emitted).  After each lane's in-thread folds, the
        first ``log2 R`` butterfly steps (lane bits 0, 1, ...) each halve the programs a lane
        holds: the lower lane of a pair keeps the lower half, gives the upper half to its
        partner and folds the partner's copy of its own half in (one shuffle per value instead
        of two); the remaining steps fold one program per lane; program ``k``'s result is then in
        the lanes whose low bits spell ``k`` (bit 0 its highest) and one ``shfl.sync.idx``
        gives it to every lane.  Every fold pairs the same lanes, in the same order, as the
        program's own reduction would: the result is bit for bit the same."""
        r = len(per_copy)
        srcs_of = [[vals[v] for v in op.operands] for vals in per_copy]
        if r < 2 or r & (r - 1) or r > 32 or not all(isinstance(t, Tile) for srcs in srcs_of for t in srcs):
            return False
        shape = srcs_of[0][0].shape
        dim = op.dim.value.data
        if (self.threads != 32 or not shape or any(not _pow2(d) for d in shape) or self.ragged(shape)
                or _numel(shape) != shape[dim] or _numel(shape) < 32 * self.vec(shape)):
            return False  # not one whole-tile reduction over every lane of the warp
        body = op.regions[0].blocks[0]
        dmask = (1 << (_numel(shape).bit_length() - 1)) - 1
        held = []  # the programs' partials this lane holds, in program order
        for srcs in srcs_of:
            (partial,) = self._thread_partials(e, srcs, dmask, body).values()
            held.append(partial)
        bits = r.bit_length() - 1
        for bit in range(5):
            upper = self._lane_bit(e, bit)
            if bit < bits:
                half = len(held) // 2
                low, high = held[:half], held[half:]
                held = [self._butterfly(e, body, upper, bit,
                                        [e.v(arith.SelectOp(upper, h, l_)) for l_, h in zip(lo, hi)],
                                        [e.v(arith.SelectOp(upper, l_, h)) for l_, h in zip(lo, hi)])
                        for lo, hi in zip(low, high)]
            else:
                held = [self._butterfly(e, body, upper, bit, held[0])]
        (mine,) = held
        out_shape = tuple(op.results[0].type.get_shape())
        for k, vals in enumerate(per_copy):
            lane = sum(((k >> (bits - 1 - j)) & 1) << j for j in range(bits))  # k's bits, reversed
            at = e.const(lane)
            for res, x, t in zip(op.results, mine, srcs_of[k]):
                vals[res] = Tile(out_shape, t.element, [e.shuffle_idx(x, at)] * self.layout.slots(out_shape), True)
        return True

    def _program_x(self, e: Emitter) -> SSAValue:
        """Program id x of the program being lowered: ``%ctaid.x`` (the warp's index once
        packed) times the programs per warp, plus the copy; the instance's (``combined_atomics.py``)."""
        if self.instance is not None:
            return self.instance
        ctaid = e.v(nvvm.SPECIAL_REGISTERS["ctaid.x"]())
        if self.per_warp == 1:
            return ctaid
        return e.add_i(e.mul_i(ctaid, e.const(self.per_warp)), e.const(self.copy))

    # -- a reduction loop split over a cluster (cluster_split.py) ------------------------------
    def _lower_split(self, e: Emitter, ops: list[Operation]) -> None:
        """Lower the kernel body with its reduction loop split over the cluster's CTAs: the ops
        up to the loop on every CTA, the loop on each rank's share of the iterations, the fold of
        the ranks' accumulators into rank 0, then the rest of the program on rank 0 only."""
        self.rank = e.v(nvvm.SPECIAL_REGISTERS["cluster.ctarank"]())
        self.nranks = e.v(nvvm.SPECIAL_REGISTERS["cluster.nctarank"]())
        self.rank0 = e.v(cmpi(self.rank, e.const(0), "eq"))
        at = ops.index(self.split.loop)
        self.lower_ops(e, ops[:at + 1])
        rest = [op for op in ops[at + 1:] if op.name != "nv_tileaa.return"]

        def program_rest(b: Emitter):
            self.lower_ops(b, rest)
            return None

        e.if_(self.rank0, program_rest)
        self.lower_ops(e, [op for op in ops[at + 1:] if op.name == "nv_tileaa.return"])

    def _split_inits(self, e: Emitter, op: scf.ForOp) -> list[SSAValue]:
        """The loop's flattened initial values: rank 0 the program's, other ranks the folds'
        identities."""
        out = []
        for v, fold in zip(op.iter_args, self.split.folds):
            for x in self.flatten(v):
                if fold is None:
                    out.append(x)
                    continue
                ident = cluster_split.identity(fold)
                c = e.fconst(ident, x.type) if is_float(x.type) else e.const(int(ident), x.type)
                out.append(e.v(arith.SelectOp(self.rank0, x, c)))
        return out

    def _split_bounds(self, e: Emitter, lb: SSAValue, ub: SSAValue, st: SSAValue) -> tuple[SSAValue, SSAValue]:
        """This rank's first iteration and step: ``lb + rank * step`` and ``step * nranks``, where neither
        wraps.  A step of 2^(width - 5) or more (at most 32 iterations; negative: none) is not split
        (rank 0 runs every iteration: ``step * nranks`` could wrap); a first iteration past the type's
        largest value (``lb`` near it, ``lb + rank * step`` wrapped negative and ran about 2^31
        iterations) is ``ub``: the rank has none.  The rank is sign-extended to an int64 counter's type
        (``rank * step`` of i32 and i64 was an internal error)."""
        typ = st.type
        rank = self.rank if typ == self.rank.type else e.sext(self.rank, typ)
        nranks = self.nranks if typ == self.nranks.type else e.sext(self.nranks, typ)
        width = typ.width.data if isinstance(typ, IntegerType) else 64  # (an index counter: 64 bits)
        big = e.v(cmpi(st, e.const(1 << (width - 5), typ), "uge"))
        first = e.add_i(lb, e.mul_i(rank, st))
        wrapped = e.v(cmpi(first, lb, "slt"))
        idle = e.v(arith.OrIOp(wrapped, e.v(arith.AndIOp(big, e.v(cmpi(rank, e.const(0, typ), "ne"))))))
        return e.v(arith.SelectOp(idle, ub, first)), e.v(arith.SelectOp(big, st, e.mul_i(st, nranks)))

    def _cluster_fold(self, e: Emitter, op: scf.ForOp, flat: list[SSAValue]) -> list[SSAValue]:
        """Fold every rank's accumulators into rank 0's (through distributed shared memory,
        between two cluster barriers); the flattened loop results rank 0 continues with."""
        items, pos = [], 0
        for r, fold in zip(op.results, self.split.folds):
            n = len(self.flatten_type(r.type, op))
            if fold is not None:
                items += [(pos + i, fold) for i in range(n)]
            pos += n
        sizes = [max(4, byte_size(flat[i].type)) for i, _ in items]  # slot s of thread t: base_s + t * size_s
        bases = [sum(sizes[:s]) * self.threads for s in range(len(items))]
        self.scratch_bytes = max(self.scratch_bytes, sum(sizes) * self.threads)
        e.barrier()  # the loop's last exchange through the scratch is read by every thread first

        def slot_ptr(b: Emitter, s: int) -> SSAValue:
            index = b.add_i(b.const(bases[s]), b.mul_i(b.tid, b.const(sizes[s])))
            return b.gep(self.smem, index, i8, SHARED_PTR)

        for s, (i, _) in enumerate(items):
            e.store(flat[i], slot_ptr(e, s))
        e.add(nvvm.ClusterArriveOp(aligned=True))
        e.add(nvvm.ClusterWaitOp(aligned=True))

        def fold_ranks(b: Emitter):
            def body(bb: Emitter, r: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
                out = []
                for s, ((_, fold), acc) in enumerate(zip(items, accs)):
                    remote = bb.v(nvvm.MapaOp(slot_ptr(bb, s), r, nvvm.PTR_SHARED_CLUSTER))
                    generic = bb.v(llvm_ext.AddrSpaceCastOp(remote, llvm.LLVMPointerType()))
                    out.append(self.scalar_op(bb, fold, [acc, bb.load(generic, acc.type)], acc.type))
                return out

            return b.for_(b.const(1), self.nranks, b.const(1), [flat[i] for i, _ in items], body)

        folded = e.if_(self.rank0, fold_ranks, lambda b: [flat[i] for i, _ in items],
                       types=[flat[i].type for i, _ in items])
        e.add(nvvm.ClusterArriveOp(aligned=True))  # the other ranks' shared memory stays until read
        e.add(nvvm.ClusterWaitOp(aligned=True))
        out = list(flat)
        for (i, _), v in zip(items, folded):
            out[i] = v
        return out

    _READS = ("nv_tileaa.tiled_load", "nv_tileaa.load", "nv_tileaa.atomic_rmw", "nv_tileaa.atomic_cas")

    def _load_may_follow(self, op: Operation) -> bool:
        """Whether a global read of the CTA may run after the store ``op`` (then the store is
        followed by a barrier, so that the read sees it): ``op`` is in a loop, or an op after
        it (in its block or after an enclosing op) reads global memory."""
        cur = op
        while cur is not None and cur is not self.fn:
            if cur.name in ("scf.for", "scf.while"):
                return True
            nxt = cur.next_op
            while nxt is not None:
                if any(inner.name in self._READS for inner in nxt.walk()):
                    return True
                nxt = nxt.next_op
            cur = cur.parent_op()
        return False

    def _load_words(self, op: Operation) -> int:
        """32-bit registers per thread that the tile of the load ``op`` holds until used."""
        t = op.results[0].type
        return -(-self.slots_of(t, op) * byte_size(global_type(t.element_type)) // 4)

    def lower_ops(self, e: Emitter, ops) -> None:
        ops = list(ops)
        early = self._early_points(ops)
        self._issue_early(e, early.get(-1, ()))
        for i, op in enumerate(ops):
            if early:
                self._issue_early(e, early.get(i - 1, ()) if i else ())
            self.bulk_before(e, op)  # (row_bulk_fill.py: the row's copies issued before its first fill)
            try:
                self.lower_op(e, op)
                if self.scratch_bytes > self._scratch_seen:  # (an enclosing op's call sees it recorded)
                    self.scratch_op, self._scratch_seen = op, self.scratch_bytes
            except NotImplementedError as exc:
                raise _unsupported(op, str(exc)) from None
            except LocatedError:
                raise
            except Exception as exc:  # noqa: BLE001 - never a traceback for user input
                raise LocatedError(op, f"internal error in {PASS} ({type(exc).__name__}: {exc}); "
                                       "the input probably does not verify") from None

    # -- dispatch ---------------------------------------------------------------------------
    def check_types(self, op: Operation) -> None:
        """Every element type ``op`` touches is one this lowering holds in registers (see
        ``supported_element``): else a located "not supported" error naming the type."""
        for v in (*op.operands, *op.results):
            t = v.type
            elt = t.element_type if isinstance(t, TensorType) else t.element if isinstance(t, MemRefType) else t
            if not (isinstance(elt, IntegerType) or is_float(elt)):
                continue
            if not supported_element(elt):
                cutile = CUTILE_TYPE_NAMES.get(str(elt))
                named = f"cuTile's ct.{cutile}; " if cutile else ""
                raise LocatedError(op, f"element type {elt} is not supported yet by {PASS} ({named}in '{op.name}'; "
                                       "supported: i1, i8, i16, i32, i64, f16, bf16, f32, f64, tf32, "
                                       "f8E4M3FN, f8E5M2)")
            if is_fp8(elt) and self.sm is not None and self.sm < 89:
                raise LocatedError(op, f"element type {elt} needs sm_89 or newer (PTX e4m3x2/e5m2x2 "
                                       f"conversions), the target is sm_{self.sm} (in '{op.name}')")

    def op_nv_tileaa_assert(self, e: Emitter, op: Operation) -> None:
        asserts.lower_assert(self, e, op)

    def op_nv_tileaa_print(self, e: Emitter, op: Operation) -> None:
        _prints.lower_print(self, e, op)

    def lower_located(self, e: Emitter, op: Operation) -> None:
        """:meth:`lower_op`, an unsupported op (``NotImplementedError``) reported at ``op``'s line."""
        try:
            self.lower_op(e, op)
        except NotImplementedError as exc:
            raise _unsupported(op, str(exc)) from None

    def lower_op(self, e: Emitter, op: Operation) -> None:
        self.check_types(op)
        name = op.name
        handler = getattr(self, "op_" + name.replace(".", "_"), None)
        if handler is not None:
            handler(e, op)
            return
        if name.startswith("arith.") or name in ELEMENTWISE:
            self.elementwise(e, op)
            return
        raise _unsupported(op)

    # tokens, hints
    def op_nv_tileaa_create_mem_token(self, e, op):
        self.vals[op.results[0]] = None

    op_nv_tileaa_join_mem_token = op_nv_tileaa_create_mem_token

    def op_nv_tileaa_assume(self, e, op):
        self.vals[op.results[0]] = self.get(op.operands[0])

    def op_nv_tileaa_pragma(self, e, op):
        for r, v in zip(op.results, op.operands):
            self.vals[r] = self.get(v)

    def op_nv_tileaa_return(self, e, op):
        self.bulk_drain(e, op.parent_block())  # (row_bulk_fill.py: no bulk copy outlives the CTA)
        e.add(func.ReturnOp())

    # program ids
    def op_nv_tileaa_get_program_id(self, e, op):
        if op.operands:
            raise _unsupported(op, "program ids delivered by a dynamic scheduler")
        axis = "xyz"[op.axis.value.data]
        if axis == "x" and self.split is None:
            self.vals[op.results[0]] = self._program_x(e)
            return
        reg = "clusterid.x" if axis == "x" else f"ctaid.{axis}"
        self.vals[op.results[0]] = e.v(nvvm.SPECIAL_REGISTERS[reg]())

    def op_nv_tileaa_get_num_programs(self, e, op):
        axis = "xyz"[op.axis.value.data]
        if axis == "x" and self.programs is not None:  # (combined_atomics.py: the programs along x)
            self.vals[op.results[0]] = self.programs
            return
        reg = "nclusterid.x" if axis == "x" and self.split is not None else f"nctaid.{axis}"
        self.vals[op.results[0]] = e.v(nvvm.SPECIAL_REGISTERS[reg]())

    # views
    def op_nv_tileaa_make_memref(self, e, op):
        mt: MemRefType = op.results[0].type
        dyn_shape, dyn_strides = iter(op.shape), iter(op.strides)

        def resolve(static: int, dyn, what: str) -> SSAValue:
            if static >= 0:
                if static >= 2**31:  # index arithmetic is 32-bit here
                    raise LocatedError(op, f"static {what} {static} does not fit the 32-bit index arithmetic of "
                                           f"the SIMT lowering")
                return e.const(static)
            v = self.get(next(dyn))
            return v if v.type == i32 else e.v(arith.TruncIOp(v, i32)) if v.type.width.data > 32 else e.v(arith.ExtSIOp(v, i32))

        shape = [resolve(s, dyn_shape, "size") for s in mt.get_shape()]
        strides = [resolve(s, dyn_strides, "stride") for s in mt.get_strides()]
        self.vals[op.results[0]] = Memref(self.get(op.ptr), mt.element, shape, strides, list(mt.get_strides()))

    def op_nv_tileaa_block_tile(self, e, op):
        vt: TiledViewType = op.results[0].type
        from tileorch.dialects.nv_tileaa.attrs import ints

        self.vals[op.results[0]] = View(self.get(op.memref), ints(vt.tile), ints(vt.step), ints(vt.order))

    def op_nv_tileaa_get_dim_size(self, e, op):
        src = self.get(op.source)
        i = op.index.value.data
        if isinstance(src, View):
            dim = src.order[i]
            extent = src.memref.shape[dim]
            step = src.step[i]
            if src.tile[i] != step:
                raise _unsupported(op, "overlapping tiles (step different from the tile)")
            # tiles along the dimension: ceil(extent / step)
            r = e.v(arith.DivSIOp(e.v(arith.AddiOp(extent, e.const(step - 1))), e.const(step)))
        else:
            r = src.shape[i]
        self.vals[op.results[0]] = self._cast_int(e, r, op.results[0].type)

    def op_nv_tileaa_get_dim_stride(self, e, op):
        src = self.get(op.source)
        mem = src.memref if isinstance(src, View) else src
        self.vals[op.results[0]] = self._cast_int(e, mem.strides[op.index.value.data], op.results[0].type)

    @staticmethod
    def _cast_int(e: Emitter, v: SSAValue, typ: Attribute) -> SSAValue:
        if v.type == typ:
            return v
        if not isinstance(typ, IntegerType):
            return e.v(arith.IndexCastOp(v, typ))
        wider = typ.width.data > v.type.width.data
        return e.v(arith.ExtSIOp(v, typ) if wider else arith.TruncIOp(v, typ))

    # -- global memory ----------------------------------------------------------------------
    def _element_address(self, e: Emitter, view: View, idx: list[SSAValue], coords: list[SSAValue]):
        """(pointer, in-bounds predicate) of tile element ``coords`` of tile ``idx``."""
        mem = view.memref
        offset, ok = None, None
        for i, c in enumerate(coords):
            dim = view.order[i]
            base = e.mul_i(idx[i], e.const(view.step[i]))
            g = e.add_i(base, c)
            inb = e.v(cmpi(g, mem.shape[dim], "slt"))
            nonneg = e.v(cmpi(g, e.const(0), "sge"))
            inb = e.v(binary(arith.AndIOp, inb, nonneg))
            ok = inb if ok is None else e.v(binary(arith.AndIOp, ok, inb))
            term = e.mul_i(e.sext(g, i64), e.sext(mem.strides[dim], i64))
            offset = term if offset is None else e.add_i(offset, term)
        elem = global_type(mem.element)
        ptr = e.gep(mem.ptr, offset, elem, GLOBAL_PTR)
        return ptr, ok

    # -- layout ---------------------------------------------------------------------------
    def vec(self, shape) -> int:
        """Run length of a tile of ``shape`` (``SimtLayout.vec_of``)."""
        return self.layout.vec_of(tuple(shape))

    def flat(self, e: Emitter, slot: int, shape) -> SSAValue:
        """Flat row-major index of ``slot`` of this thread in a tile of ``shape``."""
        return e.flat(slot, self.vec(shape))

    def ragged(self, shape) -> bool:
        """Whether some slots of a tile of ``shape`` hold no element (past its end)."""
        return self.layout.slots(tuple(shape)) * self.threads != _numel(shape)

    # -- global memory, by runs ---------------------------------------------------------------
    def _run_address(self, e: Emitter, view: View, idx: list[SSAValue], coords: list[SSAValue]):
        """The run of tile elements from ``coords`` along the tile's last dimension:
        (pointer of its first element, in-bounds predicate of the other dimensions, global
        coordinate of the first element along the last dimension (i32), that dimension's
        extent and stride (i32), whether that stride is statically 1)."""
        mem = view.memref
        offset, ok = None, None
        last = len(coords) - 1
        g_last = None
        for i, c in enumerate(coords):
            dim = view.order[i]
            base = e.mul_i(idx[i], e.const(view.step[i]))
            g = e.add_i(base, c)
            if i == last:
                g_last = g
            else:
                inb = e.v(binary(arith.AndIOp, e.v(cmpi(g, mem.shape[dim], "slt")),
                                 e.v(cmpi(g, e.const(0), "sge"))))
                ok = inb if ok is None else e.v(binary(arith.AndIOp, ok, inb))
            # the stride's extension stays an op even when constant: LLVM then emits the same gather
            # code as before the folds (Emitter.fold_constants)
            term = e.mul_i(e.sext(g, i64), e.v(arith.ExtSIOp(mem.strides[dim], i64)))
            offset = term if offset is None else e.add_i(offset, term)
        ptr = e.gep(mem.ptr, offset, global_type(mem.element), GLOBAL_PTR)
        dim = view.order[last]
        unit = mem.static_strides[dim] == 1
        return ptr, ok, g_last, mem.shape[dim], mem.strides[dim], unit

    @staticmethod
    def _and(e: Emitter, a: SSAValue | None, b: SSAValue | None) -> SSAValue | None:
        if a is None:
            return b
        if b is None:
            return a
        return e.v(binary(arith.AndIOp, a, b))

    def _run_element(self, e: Emitter, run, j: int, elem: Attribute, extra: SSAValue | None):
        """(pointer, predicate) of element ``j`` of ``run`` (see ``_run_address``)."""
        ptr, ok, g, extent, stride, _ = run
        gj = g if j == 0 else e.add_i(g, e.const(j))
        inb = e.v(binary(arith.AndIOp, e.v(cmpi(gj, extent, "slt")), e.v(cmpi(gj, e.const(0), "sge"))))
        p = ptr if j == 0 else e.gep(ptr, e.mul_i(e.const(j, i64), e.sext(stride, i64)), elem, GLOBAL_PTR)
        return p, self._and(e, self._and(e, ok, inb), extra)

    def _run_is_vector(self, e: Emitter, run, width: int, elem: Attribute, extra: SSAValue | None) -> SSAValue:
        """The run of ``width`` elements can move as one vector: every element in bounds (and in
        the tile: ``extra``), the last dimension's stride 1 and the first element's address
        aligned to the vector's size."""
        ptr, ok, g, extent, stride, unit = run
        fits = e.v(binary(arith.AndIOp, e.v(cmpi(g, e.const(0), "sge")),
                          e.v(cmpi(e.add_i(g, e.const(width)), extent, "sle"))))
        nbytes = width * byte_size(elem)
        addr = e.v(llvm.PtrToIntOp(ptr, i64))
        aligned = e.v(cmpi(e.v(binary(arith.AndIOp, addr, e.const(nbytes - 1, i64))), e.const(0, i64), "eq"))
        cond = self._and(e, self._and(e, ok, fits), aligned)
        if not unit:
            cond = e.v(binary(arith.AndIOp, cond, e.v(cmpi(stride, e.const(1), "eq"))))
        return self._and(e, cond, extra)

    def _run_touches(self, e: Emitter, run, width: int, extra: SSAValue | None) -> SSAValue:
        """Some element of the run of ``width`` lies in the array (and in the tile: ``extra``):
        else its scalar path would test every element to move none (the runs past a ragged
        row's end), so the scalar path is entered only where this holds."""
        _, ok, g, extent, _, _ = run
        inside = e.v(arith.AndIOp(e.v(cmpi(g, extent, "slt")),
                                  e.v(cmpi(e.add_i(g, e.const(width)), e.const(0), "sgt"))))
        return self._and(e, self._and(e, ok, inside), extra)

    @staticmethod
    def _memory_form(elt: Attribute):
        """(loaded -> register value, register value -> stored) of an element type whose memory
        form (``global_type``) differs from its register type (``reg_type``), else None."""
        if isinstance(elt, BFloat16Type):
            return Emitter.bf16_bits_to_f32, Emitter.f32_to_bf16_bits
        if is_fp8(elt):
            return (lambda b, raw: b.f8_bits_to_f32(raw, elt)), (lambda b, v: b.f32_to_f8_bits(v, elt))
        if elt == i1:
            return (lambda b, raw: b.v(arith.TruncIOp(raw, i1))), (lambda b, v: b.v(arith.ExtUIOp(v, memory_type(i1))))
        return None

    @classmethod
    def _from_memory(cls, b: Emitter, raw: SSAValue, elt: Attribute) -> SSAValue:
        """A loaded element (``global_type``) in its register type (``reg_type``)."""
        form = cls._memory_form(elt)
        return form[0](b, raw) if form else raw

    @classmethod
    def _to_memory(cls, b: Emitter, v: SSAValue, elt: Attribute) -> SSAValue:
        """An element in its register type -> the value stored (``global_type``)."""
        form = cls._memory_form(elt)
        return form[1](b, v) if form else v

    @classmethod
    def _load_global(cls, b: Emitter, ptr: SSAValue, elt: Attribute) -> SSAValue:
        return cls._from_memory(b, b.load_global(ptr, global_type(elt)), elt)

    def _indices(self, e: Emitter, op, values) -> list[SSAValue]:
        return [self._cast_int(e, self.get(v), i32) for v in values]

    def _runs(self, e: Emitter, op, shape, slots: int):
        """(first slot, width, flat index of the first element, in-tile predicate or None) of
        each run a global access of a ``shape`` tile moves: ``width`` contiguous elements of
        the tile's last dimension (a vector access where ``op`` allows one)."""
        v = self.vec(shape)
        width = min(v, vectorizable_access(op))
        ragged, n = self.ragged(shape), _numel(shape)
        for s0 in range(0, slots, width):
            f0 = e.flat(s0, v)
            yield s0, width, f0, (e.in_range(f0, n) if ragged else None)

    def _rows_path(self, shape) -> bool:
        """A tile of ``shape`` whose whole-tile path exists also gets the ragged-row path
        (``_whole_tile(ragged_last=True)``): runs of more than one element, not switched off
        (:data:`RAGGED_ROWS_ENV`)."""
        return self.vec(shape) > 1 and settings.value(RAGGED_ROWS_ENV) != "0"

    def _whole_tile(self, e: Emitter, op, view: View, idx: list[SSAValue], shape, mt: Attribute,
                    ragged_last: bool = False):
        """The fast path of a global access of a whole ``shape`` tile: ``(condition, runs,
        address(coords) -> pointer)`` or None when the tile's shape does not allow it.

        ``ragged_last``: also the ragged-row path, for a tile that may end past the array along
        its last dimension (a row of 1000 in a tile of 1024): two more members, its condition
        (the whole tile's, but for that bound: the extent left from the tile's origin along it a
        multiple of the run, so that each run lies wholly inside or wholly outside) and
        ``inside(b, coords)``: the run at ``coords`` lies inside (one compare).  Both paths
        share the thread's pointer.

        For power-of-two dimensions and a tile with no empty slot, the coordinates of this
        thread's run ``r`` are ``unravel(tid * v) + unravel(r * v * T)`` (the two flat indices
        share no bit), so every run's address is this thread's first element's plus a constant
        combination of the strides.  The condition (uniform over the CTA) says that the whole
        tile lies in the array and, for vector runs, that the tile's origin and every stride
        of a dimension the tile spans are multiples of the vector's size and the last stride
        is 1: then every run moves as one unpredicated access, no per-run test."""
        v = self.vec(shape)
        width = min(v, vectorizable_access(op))
        if width != v or not shape or any(not _pow2(d) for d in shape) or self.ragged(shape):
            return None
        if ragged_last and not self._rows_path(shape):
            return None
        mem = view.memref
        esize = byte_size(mt)
        nbytes = v * esize
        cond = None
        origin = None  # i64 element offset of the tile's origin
        strides64 = []
        limit = rows_ok = None  # ragged_last: the extent left along the last dimension, its test
        for i, d in enumerate(shape):
            dim = view.order[i]
            g0 = e.mul_i(idx[i], e.const(view.step[i]))
            ok = e.v(arith.AndIOp(e.v(cmpi(g0, e.const(0), "sge")),
                                  e.v(cmpi(e.add_i(g0, e.const(d)), mem.shape[dim], "sle"))))
            if ragged_last and i == len(shape) - 1:
                limit = e.v(arith.SubiOp(mem.shape[dim], g0))
                rem = e.v(arith.AndIOp(limit, e.const(v - 1)))
                rows_ok = e.v(arith.AndIOp(e.v(cmpi(g0, e.const(0), "sge")),
                                           e.v(cmpi(rem, e.const(0), "eq"))))
                # the other dimensions' bounds and stride alignments (all before the last), this one's test
                rows_ok = self._and(e, cond, rows_ok)
            cond = self._and(e, cond, ok)
            st = e.sext(mem.strides[dim], i64)
            strides64.append(st)
            term = e.mul_i(e.sext(g0, i64), st)
            origin = term if origin is None else e.add_i(origin, term)
            if v > 1 and d > 1 and i < len(shape) - 1 and mem.static_strides[dim] * esize % nbytes:
                bad = mem.static_strides[dim] >= 0  # a static stride that breaks the alignment
                if bad:
                    return None
                rem = e.v(arith.AndIOp(st, e.const(nbytes // esize - 1, i64)))
                cond = self._and(e, cond, e.v(cmpi(rem, e.const(0, i64), "eq")))
        if v > 1:
            last = view.order[len(shape) - 1]
            extra = []
            if mem.static_strides[last] != 1:
                extra.append(e.v(cmpi(mem.strides[last], e.const(1), "eq")))
            base = e.gep(mem.ptr, origin, mt, GLOBAL_PTR)
            addr = e.v(llvm.PtrToIntOp(base, i64))
            extra.append(e.v(cmpi(e.v(arith.AndIOp(addr, e.const(nbytes - 1, i64))), e.const(0, i64), "eq")))
            for x in extra:
                cond = self._and(e, cond, x)
                if ragged_last:
                    rows_ok = self._and(e, rows_ok, x)
        mine = e.unravel(e.flat(0, v), shape)
        offset = origin
        for c, st in zip(mine, strides64):
            offset = e.add_i(offset, e.mul_i(e.sext(c, i64), st))
        ptr = e.gep(mem.ptr, offset, mt, GLOBAL_PTR)
        runs = []
        for r in range(self.layout.slots(shape) // v):
            f = r * v * self.threads
            coords = []
            for st_ in reversed(shape):
                coords.append(f % st_)
                f //= st_
            runs.append((r * v, coords[::-1]))

        def address(b: Emitter, coords) -> SSAValue:
            off = None
            for c, st in zip(coords, strides64):
                if c == 0:
                    continue
                term = b.v(arith.MuliOp(b.const(c, i64), st))
                off = term if off is None else b.v(arith.AddiOp(off, term))
            return ptr if off is None else b.gep(ptr, off, mt, GLOBAL_PTR)

        if not ragged_last:
            return cond, runs, address

        def inside(b: Emitter, coords) -> SSAValue:
            end = b.add_i(mine[-1], b.const(coords[-1] + v))
            return b.v(cmpi(end, limit, "sle"))

        return cond, runs, address, rows_ok, inside

    def op_nv_tileaa_tiled_load(self, e, op):
        if ordered(op):  # acquire / relaxed: element by element, ordered (ordered_views.py)
            self.ordered_tiled_load(e, op)
            return
        rt: TensorType = op.results[0].type
        shape = tuple(rt.get_shape())
        if _numel(shape) == 1 and settings.value(ONE_ELEMENT_LOADS_ENV) != "0":  # every thread loads it
            v = self.load_element(e, op, [e.const(0)] * len(shape))
            self.vals[op.results[0]] = Tile(shape, rt.element_type, [v] * self.slots_of(rt, op), True)
            self.vals[op.results[1]] = None
            return
        view: View = self.get(op.view)
        elt = rt.element_type
        mt = global_type(elt)
        idx = self._indices(e, op, op.indices)
        pad_kind = op.padding_value.value.data if op.padding_value is not None else "zero"
        slots = self.slots_of(rt, op)
        pad = _padding(e, str(pad_kind), elt)

        def vector_at(b: Emitter, ptr: SSAValue, width: int) -> list[SSAValue]:
            vec = b.v(load_op(ptr, VectorType(mt, [width]), width * byte_size(mt)))
            return [self._from_memory(b, b.v(llvm_ext.ExtractElementOp(vec, b.const(j))), elt)
                    for j in range(width)]

        def unpack(b: Emitter, words: list[SSAValue], width: int) -> list[SSAValue]:
            return [self._from_memory(b, x, elt) for x in b.words_to_elements(words, mt, width)]

        def scalar(b: Emitter, run, width: int, extra, raw: bool = False) -> list[SSAValue]:
            """The run's elements one by one, each predicated on the bounds (the padding
            outside); ``raw``: as loaded (``global_type``), not widened."""
            fill = self._to_memory(b, pad, elt) if raw else pad
            # predicated_tails.py: the padding in memory form is what a predicated load leaves
            mem_fill = (fill if raw else self._to_memory(b, pad, elt)) \
                if predicated_tails() and predicated_form(mt) is not None else None
            vals = []
            for j in range(width):
                p, ok = self._run_element(b, run, j, mt, extra)
                got = b.load_element_if(ok, p, mt, mem_fill) if mem_fill is not None else None
                if got is not None:
                    vals.append(got if raw else self._from_memory(b, got, elt))
                    continue
                get = (lambda bb, p=p: [bb.load_global(p, mt)]) if raw else (lambda bb, p=p: [self._load_global(bb, p, elt)])
                vals.append(b.if_(ok, get, lambda bb: [fill], [mt if raw else reg_type(elt)])[0])
            return vals

        width = min(self.vec(shape), vectorizable_access(op))
        nw = _words(width, mt) if width > 1 else 0
        whole = self._whole_tile(e, op, view, idx, shape, mt, ragged_last=bool(nw) and self._rows_path(shape))

        if nw:
            # Packed words: every vector load is a predicated ld.global.v{n}.b32 issued before
            # any branch (Emitter.load_words_if), the branches (whole tile / per run; vector /
            # scalar elements) yield the 32-bit words, and the elements are unpacked after the
            # last merge: no load waits for another, and a 16-bit element costs half a register
            # until it is used.
            def by_runs(e: Emitter) -> list[SSAValue]:
                runs = []
                for _, w_, f0, extra in self._runs(e, op, shape, slots):
                    run = self._run_address(e, view, idx, e.unravel(f0, shape))
                    fast = self._run_is_vector(e, run, width, mt, extra)
                    runs.append((run, extra, fast, e.load_words_if(fast, run[0], nw)))
                out = []
                fill = e.elements_to_words([self._to_memory(e, pad, elt)] * width, mt)
                for run, extra, fast, words in runs:
                    def slow(b: Emitter, run=run, extra=extra) -> list[SSAValue]:
                        return b.if_(self._run_touches(b, run, width, extra),
                                     lambda bb: bb.elements_to_words(scalar(bb, run, width, extra, raw=True), mt),
                                     lambda bb: list(fill), [i32] * nw)

                    out.extend(e.if_(fast, lambda b, words=words: list(words), slow, [i32] * nw))
                return out

            rows = whole is not None and len(whole) == 5

            def by_rows(b: Emitter) -> list[SSAValue]:
                """Whole runs, some past the row's end (padding): one predicated vector load each,
                whose destination words hold the padding where the run is not loaded."""
                _, runs2, address2, cond2, inside = whole
                words_fill = None if str(pad_kind) in ("zero", "undef") else _padding_words(str(pad_kind), elt, width)
                fill = None if str(pad_kind) in ("zero", "undef") or words_fill is not None else \
                    b.elements_to_words([self._to_memory(b, pad, elt)] * width, mt)
                issued2 = []
                for _, coords in runs2:
                    ok = b.v(arith.AndIOp(cond2, inside(b, coords)))
                    got = b.load_words_if(ok, address2(b, coords), nw, words_fill)
                    issued2 += got if fill is None else [b.v(arith.SelectOp(ok, w, f)) for w, f in zip(got, fill)]
                return b.if_(cond2, lambda bb: issued2, by_runs, [i32] * len(issued2))

            def from_global(e: Emitter) -> list[SSAValue]:
                if whole is None:
                    return by_runs(e)
                cond, runs, address = whole[:3]
                issued = [x for _, coords in runs for x in e.load_words_if(cond, address(e, coords), nw)]
                return e.if_(cond, lambda b: issued, by_rows if rows else by_runs, [i32] * len(issued))

            count = len(range(0, slots, width)) * nw
            words = self.row_cache_read(e, op, nw, count, from_global, self._pad_fix(op, view, idx, shape, width, nw))
            if words is None:
                words = self.row_cache_fill_load(e, op, nw, count, from_global)
            def unpack_all(b: Emitter, words: list[SSAValue]) -> list[SSAValue]:
                return [x for r in range(0, len(words), nw) for x in unpack(b, words[r:r + nw], width)]

            out = unpack_all(e, words)
            self.packed[op.results[0]] = (words, unpack_all)
        else:
            def by_runs(e: Emitter) -> list[SSAValue]:
                out = []
                for _, w_, f0, extra in self._runs(e, op, shape, slots):
                    run = self._run_address(e, view, idx, e.unravel(f0, shape))
                    if w_ == 1:
                        out.extend(scalar(e, run, 1, extra))
                        continue
                    fast = self._run_is_vector(e, run, w_, mt, extra)

                    def slow(b: Emitter, run=run, w_=w_, extra=extra) -> list[SSAValue]:
                        return b.if_(self._run_touches(b, run, w_, extra), lambda bb: scalar(bb, run, w_, extra),
                                     lambda bb: [pad] * w_, [reg_type(elt)] * w_)

                    out.extend(e.if_(fast, lambda b, run=run, w_=w_: vector_at(b, run[0], w_), slow,
                                     [reg_type(elt)] * w_))
                return out

            if whole is None:
                out = by_runs(e)
            else:
                cond, runs, address = whole
                v = self.vec(shape)

                def at_once(b: Emitter) -> list[SSAValue]:
                    vals = []
                    for _, coords in runs:
                        p = address(b, coords)
                        vals.extend(vector_at(b, p, v) if v > 1 else [self._load_global(b, p, elt)])
                    return vals

                out = e.if_(cond, at_once, by_runs, [reg_type(elt)] * slots)
        self.vals[op.results[0]] = Tile(shape, elt, out)
        self.vals[op.results[1]] = None

    def op_nv_tileaa_tiled_store(self, e, op):
        if ordered(op):  # release / relaxed: element by element, ordered (ordered_views.py)
            self.ordered_tiled_store(e, op)
            return
        view: View = self.get(op.view)
        tile = self.tile(op.tile)
        elt = tile.element
        mt = global_type(elt)
        idx = self._indices(e, op, op.indices)

        def vector_to(b: Emitter, ptr: SSAValue, values) -> None:
            b.store_vector([self._to_memory(b, value, elt) for value in values], mt, ptr)

        def by_runs(e: Emitter, lo: int = 0, hi: int | None = None) -> None:
            for s0, width, f0, extra in self._runs(e, op, tile.shape, len(tile.slots)):
                if s0 < lo or (hi is not None and s0 >= hi):
                    continue
                run = self._run_address(e, view, idx, e.unravel(f0, tile.shape))
                values = tile.slots[s0:s0 + width]

                def scalar(b: Emitter, run=run, values=values, extra=extra):
                    for j, value in enumerate(values):
                        p, ok = self._run_element(b, run, j, mt, extra)
                        if predicated_tails() and predicated_form(mt) is not None:
                            b.store_element_if(ok, self._to_memory(b, value, elt), p)
                            continue
                        b.if_(ok, lambda bb, p=p, v=value: bb.store_global(self._to_memory(bb, v, elt), p))

                if width == 1:
                    scalar(e)
                    continue

                def slow(b: Emitter, run=run, scalar=scalar, width=width, extra=extra) -> None:
                    b.if_(self._run_touches(b, run, width, extra), scalar)

                e.if_(self._run_is_vector(e, run, width, mt, extra),
                      lambda b, run=run, values=values: vector_to(b, run[0], values), slow)

        whole = self._whole_tile(e, op, view, idx, tile.shape, mt, ragged_last=self._rows_path(tile.shape))
        rows = whole is not None and len(whole) == 5

        def by_rows(b: Emitter, lo: int = 0, hi: int | None = None) -> None:
            """Whole runs, some past the row's end: each stored as a vector where it lies inside."""
            _, runs2, address2, cond2, inside = whole
            v = self.vec(tile.shape)

            def each(bb: Emitter) -> None:
                for s0, coords in runs2:
                    if lo <= s0 and (hi is None or s0 < hi):
                        bb.if_(inside(bb, coords), lambda b3, s0=s0, coords=coords: vector_to(
                            b3, address2(b3, coords), tile.slots[s0:s0 + v]))

            b.if_(cond2, each, lambda bb: by_runs(bb, lo, hi))

        if whole is None:
            by_runs(e)
        else:
            cond, runs, address = whole[:3]
            v = self.vec(tile.shape)

            def at_once(b: Emitter, lo: int = 0, hi: int | None = None) -> None:
                for s0, coords in runs:
                    if s0 < lo or (hi is not None and s0 >= hi):
                        continue
                    p = address(b, coords)
                    if v > 1:
                        vector_to(b, p, tile.slots[s0:s0 + v])
                    else:
                        b.store_global(self._to_memory(b, tile.slots[s0], elt), p)

            slow = by_rows if rows else by_runs
            span = self.store_groups * v
            if span and len(tile.slots) > span:  # store_chunks.py: one in-bounds branch per group of runs
                for lo in range(0, len(tile.slots), span):
                    e.if_(cond, lambda b, lo=lo: at_once(b, lo, lo + span), lambda b, lo=lo: slow(b, lo, lo + span))
            else:
                e.if_(cond, at_once, slow)
        if self.has_loads and self._load_may_follow(op):
            if self._store_ordered(op):
                e.barrier()
            else:  # (store_barriers.py: no read is ordered after it by its token)
                self.unbarriered_stores.add(op)
        self.vals[op.results[0]] = None

    def _store_ordered(self, op: Operation) -> bool:
        """Whether a read of the kernel is ordered after the weak tile store ``op`` by its memory token (then the
        barrier after it stays: ``store_barriers.py``); always True under ``TILEORCH_STORE_BARRIERS=always``."""
        if not store_barriers.by_tokens() or not self.fn.is_ancestor(op):  # (a copy outside the kernel: unknown)
            return True
        if self._ordered_writes is None or op not in self._writes_seen:  # (a store made since: walk again)
            self._ordered_writes = store_barriers.ordered_writes(self.fn)
            self._writes_seen = {w for w in self.fn.walk() if w.name in store_barriers.WRITES}
        return store_barriers.ordered_after(self.fn, op, self._ordered_writes)

    # -- shared-memory exchange -------------------------------------------------------------
    def _stage(self, e: Emitter, tiles: list[Tile], pad: bool = True) -> list[int]:
        """Write ``tiles`` to the scratch (after a barrier), then barrier; byte offsets.
        ``pad=False`` (dot operands, read along rows or broadcast) stores them unpadded."""
        e.barrier()
        offsets, at = [], 0
        # tid + tid / 32; slot s adds s * threads * 33 / 32 (threads is a multiple of 32)
        base = self._padded(e, e.tid) if pad else e.tid
        stride = self.threads * 33 // 32 if pad else self.threads
        for t in tiles:
            at = -(-at // 16) * 16
            offsets.append(at)
            elem = memory_type(reg_type(t.element))
            vec = self.vec(t.shape)
            for s, v in enumerate(t.slots):
                if vec > 1:
                    f = e.flat(s, vec)
                    p = self._padded(e, f) if pad else f
                else:
                    p = base if s == 0 else e.add_i(base, e.const(s * stride))
                val = e.v(arith.ExtUIOp(v, elem)) if t.element == i1 else v
                e.store(val, e.gep(self._at(e, at, elem), p, elem, SHARED_PTR))
            at += _padded_size(len(t.slots) * self.threads) * byte_size(elem)
        self.scratch_bytes = max(self.scratch_bytes, at)
        self._stage_end = at
        e.barrier()
        return offsets

    @staticmethod
    def _padded(e: Emitter, flat: SSAValue) -> SSAValue:
        """Scratch position of element ``flat``: one pad element after every 32, so that
        strided reads (transposes, column reductions) spread over the 32 shared-memory banks."""
        return e.add_i(flat, e.v(arith.ShRUIOp(flat, e.const(5))))

    def _write(self, e: Emitter, offset: int, elt: Attribute, flat: SSAValue, value: SSAValue) -> None:
        elem = memory_type(reg_type(elt))
        val = e.v(arith.ExtUIOp(value, elem)) if elt == i1 else value
        e.store(val, e.gep(self._at(e, offset, elem), self._padded(e, flat), elem, SHARED_PTR))

    def _at(self, e: Emitter, offset: int, elem: Attribute) -> SSAValue:
        if offset == 0:
            return self.smem
        return e.gep(self.smem, e.const(offset), i8, SHARED_PTR)

    def _read(self, e: Emitter, offset: int, elt: Attribute, flat: SSAValue, pad: bool = True) -> SSAValue:
        elt = reg_type(elt)
        elem = memory_type(elt)
        pos = self._padded(e, flat) if pad else flat
        v = e.load(e.gep(self._at(e, offset, elem), pos, elem, SHARED_PTR), elem)
        return e.v(arith.TruncIOp(v, i1)) if elt == i1 else v

    def _gather(self, e: Emitter, out_shape: tuple[int, ...], fn, step: int = 1) -> list:
        """For each slot of an ``out_shape`` tile (every ``step``-th slot): ``fn(e, coords)``
        (coords clamped in range)."""
        n = _numel(out_shape)
        slots = self.layout.slots(tuple(out_shape))
        out = []
        ragged = self.ragged(out_shape)
        for s in range(0, slots, step):
            coords = None if ragged else e.unravel_slot(s, self.vec(out_shape), out_shape)
            if coords is None:
                f = self.flat(e, s, out_shape)
                if ragged:
                    f = e.v(arith.SelectOp(e.in_range(f, n), f, e.const(0)))
                coords = e.unravel(f, out_shape)
            out.append(fn(e, coords))
        return out

    def _rematerialize(self, e: Emitter, op, shape: tuple[int, ...], src: Tile) -> bool:
        """Lower the shape op ``op`` (a broadcast or converting ``expand_dims``/``reshape``)
        by recomputing its result's elements in this thread (``rematerialize.py``) instead of
        an exchange through shared memory; False (nothing emitted) when its source is not
        recomputable.  Along the last dimension of a broadcast from a column, one element per
        run (its ``v`` slots share it)."""
        # under TILEORCH_REMATERIALIZE_FLOAT_LOADS, a shape op of a source already recomputed to this
        # shape in this block, by this program (a warp's programs: ``self.copy``), takes that tile (its
        # loads made then, before any write since).  Keyed by the emitted block too: a loop body lowered
        # twice (``prefetch.unrolled``'s two iterations a trip, ``prefetch_depth``'s rotation) lowers
        # one IR block into several, and the second iteration's tile is not the first's
        memo = ((self.copy, op.operands[0], op.name, shape, op.parent_block(), e.block)
                if rematerialize.float_loads() else None)
        if memo is not None and memo in self.rematerialized_tiles:
            self.vals[op.results[0]] = self.rematerialized_tiles[memo]
            return True
        if not rematerialize.enabled() or not rematerialize.recomputable(op.results[0], op):
            return False
        self.rematerialized += 1

        def pick(b, coords):
            return rematerialize.element_at(self, b, op.results[0], coords)

        v = self.vec(shape)
        if v > 1 and op.name == "nv_tileaa.broadcast" and src.shape[-1] == 1:
            per_run = self._gather(e, shape, pick, step=v)
            self.vals[op.results[0]] = Tile(shape, src.element, [x for x in per_run for _ in range(v)])
        else:
            self.vals[op.results[0]] = Tile(shape, src.element, self._gather(e, shape, pick))
        if memo is not None:
            self.rematerialized_tiles[memo] = self.vals[op.results[0]]
        return True

    def load_element(self, e: Emitter, op, coords: list[SSAValue]) -> SSAValue:
        """Element ``coords`` of the tile ``tiled_load`` ``op`` loads, loaded by this thread
        (bounds-checked; the view's padding outside), in its register type.  A 32- or 64-bit
        integer (a gather's row index) is one predicated load and a select, no branch
        (``TILEORCH_PREDICATED_INDEX_LOADS=0``: a branch around a plain load, as before session 19)."""
        view: View = self.get(op.view)
        elt = op.results[0].type.element_type
        idx = self._indices(e, op, op.indices)
        pad_kind = op.padding_value.value.data if op.padding_value is not None else "zero"
        pad = _padding(e, str(pad_kind), elt)
        ptr, ok = self._element_address(e, view, idx, coords)
        mt = global_type(elt)
        if (isinstance(elt, IntegerType) and byte_size(mt) in (4, 8) and reg_type(elt) == mt
                and settings.value(PREDICATED_INDEX_ENV) != "0"):
            # one predicated load (no branch): a thread's index elements are all issued before
            # the first is used, as its vector runs are (``Emitter.load_words_if``)
            words = e.load_words_if(ok, ptr, byte_size(mt) // 4)
            value = words[0] if byte_size(mt) == 4 else e.words_to_elements(words, mt, 1)[0]
            return e.v(arith.SelectOp(ok, value, pad))
        return e.if_(ok, lambda b: [self._load_global(b, ptr, elt)], lambda b: [pad], [reg_type(elt)])[0]

    def op_nv_tileaa_broadcast(self, e, op):
        src = self.tile(op.source)
        rt = op.results[0].type
        shape = tuple(rt.get_shape())
        if src.replicated:  # every thread holds the value
            self.vals[op.results[0]] = Tile(shape, src.element, [src.slots[0]] * self.slots_of(rt, op))
            return
        if self._rematerialize(e, op, shape, src):
            return
        (off,) = self._stage(e, [src])
        if src.numel == 1:  # one value for every slot
            v = self._read(e, off, src.element, e.const(0))
            self.vals[op.results[0]] = Tile(shape, src.element, [v] * self.slots_of(rt, op))
            return

        def pick(b, coords):
            src_coords = [c if d != 1 else b.const(0) for c, d in zip(coords, src.shape)]
            return self._read(b, off, src.element, b.ravel(src_coords, src.shape))

        v = self.vec(shape)
        if v > 1 and src.shape[-1] == 1:
            # along the last dimension: the v slots of a run lie in one row (v divides the
            # row), so they share one value: one read per run
            per_run = self._gather(e, shape, pick, step=v)
            self.vals[op.results[0]] = Tile(shape, src.element, [x for x in per_run for _ in range(v)])
            return
        self.vals[op.results[0]] = Tile(shape, src.element, self._gather(e, shape, pick))

    def op_nv_tileaa_expand_dims(self, e, op):
        """One exchange through the scratch when the op converts (``nv_tileaa.source_layout``:
        its source is held in another layout), else free (the same registers, renamed: the
        layout passes left no conversion, both layouts hold row-major element ``f`` in the same
        thread and slot); free too when the source is replicated."""
        src = self.tile(op.source)
        shape = tuple(op.results[0].type.get_shape())
        if src.replicated:
            self.vals[op.results[0]] = Tile(shape, src.element, [src.slots[0]] * self.layout.slots(shape), True)
            return
        if SOURCE_LAYOUT not in op.attributes:
            if not self.layout.same_order(src.shape, shape):
                raise LocatedError(op, f"{PASS}: '{op.name}' of a {list(src.shape)} tile (runs of "
                                       f"{self.vec(src.shape)}) to {list(shape)} (runs of {self.vec(shape)}) "
                                       f"needs a layout conversion, but has no {SOURCE_LAYOUT}")
            self.vals[op.results[0]] = Tile(shape, src.element, src.slots)
            return
        if self._rematerialize(e, op, shape, src):
            return
        (off,) = self._stage(e, [src])
        self.vals[op.results[0]] = Tile(shape, src.element, self._gather(
            e, shape, lambda b, coords: self._read(b, off, src.element, b.ravel(coords, shape))))

    def op_nv_tileaa_reshape(self, e, op):
        self.op_nv_tileaa_expand_dims(e, op)

    def op_nv_tileaa_permute(self, e, op):
        src = self.tile(op.source)
        perm = list(op.permutation.get_values())
        shape = tuple(op.results[0].type.get_shape())
        (off,) = self._stage(e, [src])

        def pick(b, coords):
            src_coords = [None] * len(perm)
            for i, p in enumerate(perm):
                src_coords[p] = coords[i]
            return self._read(b, off, src.element, b.ravel(src_coords, src.shape))

        self.vals[op.results[0]] = Tile(shape, src.element, self._gather(e, shape, pick))

    def op_nv_tileaa_extract(self, e, op):
        src = self.get(op.source)
        if not isinstance(src, Tile):
            self.vals[op.results[0]] = src
            return
        if src.replicated:
            self.vals[op.results[0]] = src.slots[0]
            return
        idx = list(op.indices.get_values())
        flat = sum(i * s for i, s in zip(idx, strides_of(src.shape)))
        (off,) = self._stage(e, [src])
        self.vals[op.results[0]] = self._read(e, off, src.element, e.const(flat))

    def op_nv_tileaa_extract_slice(self, e, op):
        """The sub-tile at tile index ``indices`` (each index taken modulo the number of
        sub-tiles along its dimension, so that no read leaves the staged source)."""
        src = self.tile(op.source)
        shape = tuple(op.results[0].type.get_shape())
        bases = []
        for i, v in enumerate(op.indices):
            count = src.shape[i] // shape[i]
            if count == 1:
                bases.append(None)
                continue
            k = self._cast_int(e, self.get(v), i32)
            k = e.v(arith.RemUIOp(k, e.const(count)))
            bases.append(e.mul_i(k, e.const(shape[i])) if shape[i] != 1 else k)
        (off,) = self._stage(e, [src])

        def pick(b, coords):
            src_coords = [c if base is None else b.add_i(c, base) for c, base in zip(coords, bases)]
            return self._read(b, off, src.element, b.ravel(src_coords, src.shape))

        self.vals[op.results[0]] = Tile(shape, src.element, self._gather(e, shape, pick))

    def op_nv_tileaa_insert_slice(self, e, op):
        """Destination and source staged; each result element reads the source where it lies in
        the sub-tile at ``indices`` (each index taken modulo the number of sub-tiles along its
        dimension, as ``extract_slice``), else the destination: a select of the two scratch
        positions, one load."""
        src, dst = self.tile(op.source), self.tile(op.dest)
        shape = dst.shape
        bases = []
        for i, v in enumerate(op.indices):
            count = shape[i] // src.shape[i]
            if count == 1:
                bases.append(None)
                continue
            k = e.v(arith.RemUIOp(self._cast_int(e, self.get(v), i32), e.const(count)))
            bases.append(e.mul_i(k, e.const(src.shape[i])) if src.shape[i] != 1 else k)
        off_d, off_s = self._stage(e, [dst, src])
        elem = memory_type(reg_type(dst.element))
        size = byte_size(elem)

        def pick(b, coords):
            inside, rel = None, []
            for c, base, n in zip(coords, bases, src.shape):
                r = c if base is None else b.v(arith.SubiOp(c, base))
                rel.append(r)
                if base is not None:  # r < n unsigned: base <= c < base + n
                    ok = b.v(cmpi(r, b.const(n), "ult"))
                    inside = ok if inside is None else b.v(arith.AndIOp(inside, ok))
            pos_s = b.add_i(self._padded(b, b.ravel(rel, src.shape)), b.const(off_s // size))
            if inside is None:  # the sub-tile spans every dimension: the source
                pos = pos_s
            else:
                pos_d = b.add_i(self._padded(b, b.ravel(coords, shape)), b.const(off_d // size))
                pos = b.v(arith.SelectOp(inside, pos_s, pos_d))
            v = b.load(b.gep(self.smem, pos, elem, SHARED_PTR), elem)
            return b.v(arith.TruncIOp(v, i1)) if dst.element == i1 else v

        self.vals[op.results[0]] = Tile(shape, dst.element, self._gather(e, shape, pick))

    def op_nv_tileaa_cat(self, e, op):
        """Both operands staged; each result element reads one of them (a select of the two
        scratch positions, one load: no branch)."""
        a, b_ = self.tile(op.lhs), self.tile(op.rhs)
        dim = op.dim.value.data
        shape = tuple(op.results[0].type.get_shape())
        off_a, off_b = self._stage(e, [a, b_])
        elem = memory_type(reg_type(a.element))
        size = byte_size(elem)
        split = a.shape[dim]

        def pick(b, coords):
            in_a = b.v(cmpi(coords[dim], b.const(split), "ult"))
            rest = list(coords)
            rest[dim] = b.v(arith.SubiOp(coords[dim], b.const(split)))
            pos_a = b.add_i(self._padded(b, b.ravel(coords, a.shape)), b.const(off_a // size))
            pos_b = b.add_i(self._padded(b, b.ravel(rest, b_.shape)), b.const(off_b // size))
            v = b.load(b.gep(self.smem, b.v(arith.SelectOp(in_a, pos_a, pos_b)), elem, SHARED_PTR), elem)
            return b.v(arith.TruncIOp(v, i1)) if a.element == i1 else v

        self.vals[op.results[0]] = Tile(shape, a.element, self._gather(e, shape, pick))

    def op_nv_tileaa_splat(self, e, op):
        rt = op.results[0].type
        v = self.get(op.source)
        shape = tuple(rt.get_shape())
        # a one-element splat is a value every thread holds (a broadcast of it needs no exchange)
        self.vals[op.results[0]] = Tile(shape, rt.element_type, [v] * self.slots_of(rt, op), _numel(shape) == 1)

    def op_nv_tileaa_make_range(self, e, op):
        rt = op.results[0].type
        start = op.start.value.data
        slots = []
        for s in range(self.slots_of(rt, op)):
            f = self.flat(e, s, rt.get_shape())
            v = f if start == 0 else e.add_i(f, e.const(start))
            slots.append(v if rt.element_type == i32 else self._cast_int(e, v, rt.element_type))
        self.vals[op.results[0]] = Tile(tuple(rt.get_shape()), rt.element_type, slots)

    def op_nv_tileaa_fp_to_fp(self, e, op):
        src = self.get(op.source)
        rt = op.results[0].type
        dst = rt.element_type if isinstance(rt, TensorType) else rt

        rz = op.rounding is not None and op.rounding.value.data == "rz"

        def conv(b: Emitter, x: SSAValue) -> SSAValue:
            return b.convert_toward_zero(x, dst) if rz else convert_float(b, x, dst)

        if isinstance(src, Tile):
            self.vals[op.results[0]] = Tile(src.shape, dst, [conv(e, x) for x in src.slots])
        else:
            self.vals[op.results[0]] = conv(e, src)

    # -- reductions, scans, dot -------------------------------------------------------------
    def _combine(self, e: Emitter, body: Block, accs: list[SSAValue], nexts: list[SSAValue]) -> list[SSAValue]:
        args = body.args
        for k in range(len(accs)):
            self.vals[args[2 * k]] = accs[k]
            self.vals[args[2 * k + 1]] = nexts[k]
        for inner in body.ops:
            if inner.name == "nv_tileaa.yield":
                return [self.get(v) for v in inner.operands]
            self.lower_op(e, inner)
        raise LocatedError(body.parent_op(), f"{PASS}: combiner without nv_tileaa.yield")

    def _thread_partials(self, e: Emitter, srcs: list[Tile], dmask: int, body: Block) -> dict[int, list[SSAValue]]:
        """Each thread's fold of its slots that differ only in the flat-index bits ``dmask`` (in
        element order): flat index without those bits -> the partial of each operand."""
        v, threads = self.vec(srcs[0].shape), self.threads
        groups: dict[int, list[tuple[int, int]]] = {}
        for s in range(len(srcs[0].slots)):
            fs = (s // v) * v * threads + s % v
            groups.setdefault(fs & ~dmask, []).append((fs, s))
        partials: dict[int, list[SSAValue]] = {}
        for key in sorted(groups):
            members = sorted(groups[key])
            acc = [t.slots[members[0][1]] for t in srcs]
            for _, s in members[1:]:
                acc = self._combine(e, body, acc, [t.slots[s] for t in srcs])
            partials[key] = acc
        return partials

    @staticmethod
    def _lane_bit(e: Emitter, bit: int) -> SSAValue:
        """i1: bit ``bit`` of the thread index is set (the upper lane of a butterfly pair)."""
        return e.v(cmpi(e.v(arith.AndIOp(e.tid, e.const(1 << bit))), e.const(0), "ne"))

    def _butterfly(self, e: Emitter, body: Block, upper: SSAValue, bit: int, mine: list[SSAValue],
                   send: list[SSAValue] | None = None) -> list[SSAValue]:
        """One butterfly step over lane bit ``bit``: ``mine`` combined with the partner's value
        (``send``, by default ``mine``, is what this lane gives the partner), the lower lane's
        operand first, so both lanes of a pair fold in the same order."""
        other = [e.shuffle_xor(x, 1 << bit) for x in (mine if send is None else send)]
        first = [e.v(arith.SelectOp(upper, o, m)) for m, o in zip(mine, other)]
        second = [e.v(arith.SelectOp(upper, m, o)) for m, o in zip(mine, other)]
        return self._combine(e, body, first, second)

    def _reduce_in_registers(self, e: Emitter, op, srcs: list[Tile], dim: int, body: Block) -> bool:
        """Reduce along ``dim`` without staging the source (power-of-two shapes and thread
        counts; else False and nothing emitted).

        The flat index of a tile element is ``hi * v * T + tid * v + lo`` (``layout.py``), and
        dimension ``dim`` is a range of its bits.  Each thread folds its slots that differ only
        in bits of ``dim`` (in element order), then lanes that differ only in such bits combine
        with ``shfl.sync.bfly`` (``log2`` steps, the lower-index operand first, so both lanes
        get the same value), then, when warps differ in bits of ``dim``, the warps' partials
        meet in shared memory (one write, one barrier, each output slot reads and folds them).
        A one-element result is held by every thread (``Tile.replicated``)."""
        shape = srcs[0].shape
        threads = self.threads
        if not shape or any(not _pow2(d) for d in shape) or not _pow2(threads):
            return False
        v = self.vec(shape)
        n = _numel(shape)
        lv, lt = v.bit_length() - 1, threads.bit_length() - 1
        a = _numel(shape[dim + 1:]).bit_length() - 1
        b = a + shape[dim].bit_length() - 1
        dmask = ((1 << b) - 1) ^ ((1 << a) - 1)
        k_ops = len(srcs)
        partials = self._thread_partials(e, srcs, dmask, body)
        for bit in range(min(5, lt)):
            if not a <= lv + bit < b:
                continue
            upper = self._lane_bit(e, bit)
            for key, mine in partials.items():
                partials[key] = self._butterfly(e, body, upper, bit, mine)
        warp_bits = [bit for bit in range(5, lt) if a <= lv + bit < b]
        wd = 1 << len(warp_bits)
        n_out = n // shape[dim]
        out_shape = tuple(op.results[0].type.get_shape())
        ragged = self.ragged(shape)
        if n_out == 1 and wd == 1 and not ragged:
            (vals,) = partials.values()
            for k, res in enumerate(op.results):
                self.vals[res] = Tile(out_shape, srcs[k].element, [vals[k]] * self.layout.slots(out_shape), True)
            return True
        held = None if ragged else thread_local_reduce.owned_results(
            partials, self.layout.slots(out_shape), self.vec(out_shape), self.ragged(out_shape), v, threads, a, b)
        if held is not None:  # each thread already holds its own output slots: no exchange
            self.thread_local_reductions += 1
            for k, res in enumerate(op.results):
                self.vals[res] = Tile(out_shape, srcs[k].element, [vals[k] for vals in held])
            return True
        # the warps' partials: P_k[o * wd + w] (w: the warp's bits of dim), then each output slot folds them
        e.barrier()
        at, p_offs = 0, []
        for k in range(k_ops):
            at = -(-at // 16) * 16
            p_offs.append(at)
            at += _padded_size(n_out * wd) * byte_size(memory_type(reg_type(srcs[k].element)))
        self.scratch_bytes = max(self.scratch_bytes, at)
        w = e.const(0)
        for j, bit in enumerate(warp_bits):
            part = e.v(arith.AndIOp(e.v(arith.ShRUIOp(e.tid, e.const(bit - j))), e.const(1 << j)))
            w = e.v(arith.OrIOp(w, part))
        tidv = e.flat(0, v)
        for key, vals in partials.items():
            f = tidv if key == 0 else e.add_i(tidv, e.const(key))
            o = e.v(arith.OrIOp(e.v(arith.AndIOp(f, e.const((1 << a) - 1))),
                                e.v(arith.ShLIOp(e.v(arith.ShRUIOp(f, e.const(b))), e.const(a)))))
            pos = e.add_i(e.mul_i(o, e.const(wd)), w) if wd > 1 else o

            def write(bb: Emitter, pos=pos, vals=vals):
                for k in range(k_ops):
                    self._write(bb, p_offs[k], srcs[k].element, pos, vals[k])

            if ragged:
                e.if_(e.in_range(o, n_out), write)
            else:
                write(e)
        e.barrier()

        def gather(bb: Emitter, coords):
            base = bb.mul_i(bb.ravel(coords, out_shape), bb.const(wd)) if wd > 1 else bb.ravel(coords, out_shape)
            acc = [self._read(bb, p_offs[k], srcs[k].element, base) for k in range(k_ops)]
            for i in range(1, wd):
                at_i = bb.add_i(base, bb.const(i))
                acc = self._combine(bb, body, acc, [self._read(bb, p_offs[k], srcs[k].element, at_i)
                                                    for k in range(k_ops)])
            return acc

        per_slot = self._gather(e, out_shape, gather)
        for k, res in enumerate(op.results):
            self.vals[res] = Tile(out_shape, srcs[k].element, [vals[k] for vals in per_slot], n_out == 1)
        return True

    def _own_slots(self, e: Emitter, op, srcs: list[Tile]) -> list[Tile] | None:
        """``thread_partials.py``'s two reductions: a thread's own partial (the result set here;
        None returned) or the sources reduced to one value per thread (returned)."""
        shape = srcs[0].shape
        ids = list(op.identities.data)
        flats = [self.flat(e, s, shape) for s in range(len(srcs[0].slots))] if self.ragged(shape) else None
        own = [thread_partials.own_slots(e, t.slots, flats, _numel(shape), _identity(e, ids[k], t.element),
                                         thread_partials.asks_combine(op)) for k, t in enumerate(srcs)]
        if thread_partials.asks_combine(op):
            return [Tile(t.shape, t.element, slots) for t, slots in zip(srcs, own)]
        out_type = op.results[0].type
        if _numel(tuple(out_type.get_shape())) != 1:
            raise LocatedError(op, f"{PASS}: {thread_partials.THREAD_PARTIAL} on a reduction to more than one "
                                   "element (tileaa-hoist-online-softmax sets it on one-element results only)")
        body = op.regions[0].blocks[0]
        partial = thread_partials.fold_in_order(own, lambda accs, nexts: self._combine(e, body, accs, nexts))
        out_shape = tuple(out_type.get_shape())
        for k, res in enumerate(op.results):
            self.vals[res] = Tile(out_shape, srcs[k].element, [partial[k]] * self.layout.slots(out_shape), True)
        return None

    def op_nv_tileaa_reduce(self, e, op):
        """Reduce along ``dim``: in registers, warp shuffles and one shared-memory step
        (``_reduce_in_registers``) for power-of-two shapes.  Otherwise through the scratch: with
        fewer outputs than threads, ``G`` threads (a power of two) share each output: each folds
        a strided part of the row, then a shared-memory tree combines the ``G`` partials
        (``log2 G`` barrier steps); otherwise each thread folds the rows of its own output
        slots."""
        srcs = [self.tile(v) for v in op.operands]
        dim = op.dim.value.data
        if thread_partials.asks_partial(op) or thread_partials.asks_combine(op):
            srcs = self._own_slots(e, op, srcs)
            if srcs is None:
                return
        if self._reduce_in_registers(e, op, srcs, dim, op.regions[0].blocks[0]):
            return
        shape = srcs[0].shape
        out_shape = tuple(op.results[0].type.get_shape())
        n_out = _numel(out_shape)
        body = op.regions[0].blocks[0]
        ids = list(op.identities.data)
        extent = shape[dim]
        offs = self._stage(e, srcs)
        k_ops = len(srcs)

        def fold(b: Emitter, coords, start, step):
            inits = [_identity(b, ids[k], srcs[k].element) for k in range(k_ops)]

            def one(lb: Emitter, r, accs):
                full = list(coords[:dim]) + [r] + list(coords[dim:])
                flat = lb.ravel(full, shape)
                nexts = [self._read(lb, offs[k], srcs[k].element, flat) for k in range(k_ops)]
                return self._combine(lb, body, accs, nexts)

            return b.for_(start, b.const(extent), b.const(step), inits, one)

        group = 1
        while group * 2 <= self.threads // max(n_out, 1) and group * 2 <= extent:
            group *= 2
        if group == 1:
            per_slot = self._gather(e, out_shape, lambda b, coords: fold(b, coords, b.const(0), 1))
            for k, res in enumerate(op.results):
                self.vals[res] = Tile(out_shape, srcs[k].element, [vals[k] for vals in per_slot])
            return
        # partial arrays P_k[threads] after the staged inputs
        at = self._stage_end
        p_offs = []
        for k in range(k_ops):
            at = -(-at // 16) * 16
            p_offs.append(at)
            at += _padded_size(self.threads) * byte_size(memory_type(reg_type(srcs[k].element)))
        self.scratch_bytes = max(self.scratch_bytes, at)
        tid = e.tid
        o = e.v(arith.DivUIOp(tid, e.const(group)))
        lane = e.v(arith.RemUIOp(tid, e.const(group)))
        if n_out * group < self.threads:
            o = e.v(arith.SelectOp(e.in_range(o, n_out), o, e.const(0)))
        partial = fold(e, e.unravel(o, out_shape), lane, group)
        for k in range(k_ops):
            self._write(e, p_offs[k], srcs[k].element, tid, partial[k])
        e.barrier()
        stride = group // 2
        while stride >= 1:
            def step(b: Emitter, stride=stride):
                mine = [self._read(b, p_offs[k], srcs[k].element, tid) for k in range(k_ops)]
                other_at = b.add_i(tid, b.const(stride))
                other = [self._read(b, p_offs[k], srcs[k].element, other_at) for k in range(k_ops)]
                combined = self._combine(b, body, mine, other)
                for k in range(k_ops):
                    self._write(b, p_offs[k], srcs[k].element, tid, combined[k])

            e.if_(e.v(cmpi(lane, e.const(stride), "ult")), step)
            e.barrier()
            stride //= 2
        per_slot = self._gather(e, out_shape, lambda b, coords: [
            self._read(b, p_offs[k], srcs[k].element, b.mul_i(b.ravel(coords, out_shape), b.const(group)))
            for k in range(k_ops)])
        for k, res in enumerate(op.results):
            self.vals[res] = Tile(out_shape, srcs[k].element, [vals[k] for vals in per_slot])

    def op_nv_tileaa_scan(self, e, op):
        srcs = [self.tile(v) for v in op.operands]
        dim = op.dim.value.data
        reverse = bool(op.reverse.value.data) if op.reverse is not None else False
        shape = srcs[0].shape
        body = op.regions[0].blocks[0]
        if self._scan_in_registers(e, op, srcs, dim, body, reverse):
            return
        offs = self._stage(e, srcs)
        ids = list(op.identities.data)
        extent = shape[dim]

        def per_output(b: Emitter, coords):
            inits = [_identity(b, ids[k], srcs[k].element) for k in range(len(srcs))]
            pos = coords[dim]
            if reverse:
                lb_, ub_ = pos, b.const(extent)
            else:
                lb_, ub_ = b.const(0), b.add_i(pos, b.const(1))

            def step(lb: Emitter, r, accs):
                full = list(coords)
                full[dim] = r
                flat = lb.ravel(full, shape)
                nexts = [self._read(lb, offs[k], srcs[k].element, flat) for k in range(len(srcs))]
                return self._combine(lb, body, accs, nexts)

            return b.for_(lb_, ub_, b.const(1), inits, step)

        per_slot = self._gather(e, shape, per_output)
        for k, res in enumerate(op.results):
            self.vals[res] = Tile(shape, srcs[k].element, [vals[k] for vals in per_slot])

    def op_nv_tileaa_dot(self, e, op):
        """On tensor cores (``mma.sync``, ``mma.py``) where :func:`plan_dot` finds an atom for the
        operand types and target; else one scalar FMA loop over K per accumulator slot."""
        a, b_, acc = self.tile(op.lhs), self.tile(op.rhs), self.tile(op.acc)
        plan = plan_dot(op, self.sm)
        if isinstance(plan, MmaPlan):
            self.vals[op.results[0]] = self._dot_on_mma(e, plan, a, b_, acc)
            return
        if len(acc.slots) > MAX_FMA_DOT_SLOTS:
            shape = "x".join(str(d) for d in (*acc.shape, a.shape[-1]))
            raise _unsupported(op, f"a {shape} dot on scalar FMA loops ({plan}): its accumulator needs "
                                   f"{len(acc.slots)} registers per thread on {self.threads} threads (at most "
                                   f"{MAX_FMA_DOT_SLOTS}); use smaller tiles")
        signed_a, signed_b = dot_signedness(op)  # integer operands: zero-extend unsigned ones
        offs = self._stage(e, [a, b_], pad=False)
        kdim = a.shape[-1]
        acc_t = acc.element
        out = []
        n = acc.numel
        for s, init in enumerate(acc.slots):
            f = self.flat(e, s, acc.shape)
            if self.ragged(acc.shape):
                f = e.v(arith.SelectOp(e.in_range(f, n), f, e.const(0)))
            coords = e.unravel(f, acc.shape)
            batch, m, nn = coords[:-2], coords[-2], coords[-1]

            def step(lb: Emitter, k, accs, batch=batch, m=m, nn=nn):
                av = self._read(lb, offs[0], a.element, lb.ravel([*batch, m, k], a.shape), pad=False)
                bv = self._read(lb, offs[1], b_.element, lb.ravel([*batch, k, nn], b_.shape), pad=False)
                if is_float(acc_t):
                    av, bv = _fconv(lb, av, acc_t), _fconv(lb, bv, acc_t)
                    return [lb.v(arith.AddfOp(accs[0], lb.v(arith.MulfOp(av, bv))))]
                av, bv = _iconv(lb, av, acc_t, signed_a), _iconv(lb, bv, acc_t, signed_b)
                return [lb.v(arith.AddiOp(accs[0], lb.v(arith.MuliOp(av, bv))))]

            out.append(e.for_(e.const(0), e.const(kdim), e.const(1), [init], step)[0])
        self.vals[op.results[0]] = Tile(acc.shape, acc_t, out)

    # -- elementwise ------------------------------------------------------------------------
    def elementwise(self, e: Emitter, op: Operation) -> None:
        if op.regions:
            raise _unsupported(op)
        if isinstance(op, arith.ConstantOp):
            self.constant(e, op)
            return
        ins = [self.get(v) for v in op.operands]
        tiles = [x for x in ins if isinstance(x, Tile)]
        if not tiles:
            self.vals[op.results[0]] = self.scalar_op(e, op, ins)
            return
        shape = tiles[0].shape
        if any(t.shape != shape for t in tiles):
            raise _unsupported(op, "operands of different shapes")
        rt = op.results[0].type
        relt = rt.element_type if isinstance(rt, TensorType) else rt
        replicated = all(t.replicated for t in tiles)
        n = 1 if replicated else len(tiles[0].slots)
        if not replicated and len(ins) == 2 and isinstance(ins[0], Tile):
            divisor = ins[1].slots if isinstance(ins[1], Tile) else [ins[1]] * n
            if uniform_division.applies(op, ins[0].slots, divisor):
                self.uniform_divisions += 1
                self.vals[op.results[0]] = Tile(shape, relt, uniform_division.divide(e, ins[0].slots, divisor[0]))
                return
        slots = []
        for s in range(n):
            args = [x.slots[s] if isinstance(x, Tile) else x for x in ins]
            slots.append(self.scalar_op(e, op, args, relt))
        if replicated:
            slots = slots * len(tiles[0].slots)
        self.vals[op.results[0]] = Tile(shape, relt, slots, replicated)

    def constant(self, e: Emitter, op: arith.ConstantOp) -> None:
        t = op.results[0].type
        if not isinstance(t, TensorType):
            value = op.value
            if isinstance(t, BFloat16Type) or is_fp8(t):
                value = FloatAttr(value.value.data, reg_type(t))
            self.vals[op.results[0]] = e.v(arith.ConstantOp(value, reg_type(t)))
            return
        value = op.value
        if not isinstance(value, DenseIntOrFPElementsAttr):
            raise _unsupported(op, f"constant {value}")
        elt = t.element_type
        rt = reg_type(elt)

        def scalar(x) -> SSAValue:
            return e.v(arith.ConstantOp(float_attr(float(x), rt) if is_float(rt) else integer_attr(int(x), rt)))

        splat, first = splat_value(value)  # (from the bytes: a splat's elements are not unpacked)
        if splat:
            self.vals[op.results[0]] = Tile(tuple(t.get_shape()), elt, [scalar(first)] * self.slots_of(t, op))
            return
        self.vals[op.results[0]] = self._table_constant(e, op, t, value.get_values(), scalar)

    NON_SPLAT_ELEMENTS = 64
    """The most elements of a non-splat tile constant (``ct.astile``) that differ from its most
    common value: each is a compare and a select per slot."""

    def _table_constant(self, e: Emitter, op: Operation, t: TensorType, data, scalar) -> Tile:
        """A non-splat tile constant: each slot picks its element by its flat index (a select per
        element that differs from the most common value)."""
        common = max(set(data), key=list(data).count)
        odd = [(k, x) for k, x in enumerate(data) if x != common]
        if len(odd) > self.NON_SPLAT_ELEMENTS:
            raise _unsupported(op, f"non-splat tile constants with more than {self.NON_SPLAT_ELEMENTS} elements "
                                   "that differ from the most common one")
        shape = tuple(t.get_shape())
        slots = []
        for s in range(self.slots_of(t, op)):
            f = self.flat(e, s, shape)
            v = scalar(common)
            for k, x in odd:
                v = e.v(arith.SelectOp(e.v(cmpi(f, e.const(k), "eq")), scalar(x), v))
            slots.append(v)
        return Tile(shape, t.element_type, slots)

    def scalar_op(self, e: Emitter, op: Operation, args: list[SSAValue], rtype: Attribute | None = None) -> SSAValue:
        return lower_scalar_op(e, op, args, rtype)

    # -- structured control flow ------------------------------------------------------------
    def op_scf_for(self, e, op: scf.ForOp):
        """A loop; its global tile loads that ``prefetch.prefetchable_loads`` allows are issued one
        iteration ahead (the next iteration's tiles carried in registers)."""
        inits = [x for v in op.iter_args for x in self.flatten(v)]
        old = op.body.blocks[0]
        types = [a.type for a in old.args[1:]]
        lb, ub, st = (self.get(v) for v in (op.lb, op.ub, op.step))
        split = self.split is not None and op is self.split.loop
        if split:  # this rank's iterations: lb + rank * step, every nranks-th
            inits = self._split_inits(e, op)
            lb, st = self._split_bounds(e, lb, ub, st)
        slice_ops, loads = prefetchable_loads(op, self.slots_of)
        if loads and stores_in(op):
            self.prefetched_past_stores.add(id(op))

        def issue(b: Emitter, iv: SSAValue) -> list[SSAValue]:
            return self._issue_prefetch(b, op, iv, slice_ops, loads)

        ahead = self.early_ahead.pop((self.copy, op), None)
        if ahead is None:
            ahead = issue(e, lb) if loads else []
        n_set = len(ahead)  # the words of one iteration's prefetched tiles
        depth = self.row_cache_depth(loads, n_set, prefetch_depth(n_set)) if loads else 1
        for j in range(1, depth):  # iterations lb + step .. lb + (depth - 1) step in flight too
            ahead += issue(e, e.v(arith.AddiOp(lb, e.v(arith.MuliOp(st, e.const(j, st.type))))))
        n_ahead = len(ahead)

        def one(b: Emitter, iv, flat):
            """One iteration at ``iv``: the loads ``depth`` iterations ahead issued first, then the
            iteration's ops on the oldest carried tiles; the flattened yield followed by the other
            carried tiles and the new ones."""
            carried = flat[len(flat) - n_ahead:]
            flat = flat[:len(flat) - n_ahead]
            later, carried = carried[n_set:], carried[:n_set]
            far = st if depth == 1 else b.v(arith.MuliOp(st, b.const(depth, st.type)))
            nxt = later + issue(b, b.v(arith.AddiOp(iv, far))) if loads else []
            self.vals[old.args[0]] = iv
            for arg, val in zip(old.args[1:], self.unflatten(types, flat, op)):
                self.vals[arg] = val
            at = 0
            for ld in loads:
                t = self.tile(ld.results[0])
                packed = self.packed.get(ld.results[0])
                # the carried words are unpacked here, after the next iteration's loads: the
                # wait for this iteration's tile comes where it is used, not where it is issued
                n = len(packed[0]) if packed else len(t.slots)
                chunk = carried[at:at + n]
                if packed:
                    chunk = self.row_cache_fill(b, ld, chunk)
                slots = packed[1](b, chunk) if packed else chunk
                self.vals[ld.results[0]] = Tile(t.shape, t.element, slots)
                self.vals[ld.results[1]] = None
                at += n
            skip = set(loads)
            for inner in old.ops:
                if isinstance(inner, scf.YieldOp):
                    return [x for v in inner.operands for x in self.flatten(v)] + nxt
                if inner in skip:
                    continue
                self.lower_located(b, inner)
            raise LocatedError(op, f"{PASS}: region without scf.yield")

        def two(b: Emitter, wide_iv, flat):
            """Iterations ``iv`` and (when in range) ``iv + step``: the tiles of ``iv + step`` are
            loaded into registers of their own while ``iv``'s are used, and those of ``iv + 2 step``
            into the registers ``iv``'s held, so the carried tiles need no copy at the back edge
            (:func:`prefetch.unrolled`; the guard and the trip loop's counter: :mod:`unrolled_trips`)."""
            iv = trips.counter(b, wide_iv)
            first = one(b, iv, flat)
            iv2 = b.v(arith.AddiOp(iv, st))
            more = trips.runs(b, wide_iv, 1)
            kept = flat[len(flat) - n_ahead:]  # dead after the first iteration: its registers are reused
            return b.if_(more, lambda bb: one(bb, iv2, first), lambda bb: first[:len(first) - n_ahead] + kept,
                         types=[x.type for x in first])

        def rotation(b: Emitter, wide_iv, flat):
            """``depth + 1`` iterations from ``iv`` (each after the first when in range): the carried
            tile sets rotate once around, so the back edge copies none (:func:`prefetch.prefetch_depth`)."""
            iv = trips.counter(b, wide_iv)
            cur = one(b, iv, flat)
            for j in range(1, depth + 1):
                ivj = b.v(arith.AddiOp(iv, b.v(arith.MuliOp(st, b.const(j, st.type)))))
                prev = cur
                cur = b.if_(trips.runs(b, wide_iv, j), lambda bb, ivj=ivj, prev=prev: one(bb, ivj, prev),
                            lambda bb, prev=prev: prev, types=[x.type for x in prev])
            return cur

        if loads and (depth > 1 or unrolled()):
            trips = trip_counter(e, lb, ub, st, depth + 1 if depth > 1 else 2)
            results = e.for_(trips.lb, trips.ub, trips.trip, inits + ahead, rotation if depth > 1 else two)
        else:
            results = e.for_(lb, ub, st, inits + ahead, one)
        results = results[:len(results) - n_ahead]
        if split:
            results = self._cluster_fold(e, op, results)
        for r, val in zip(op.results, self.unflatten([r.type for r in op.results], results, op)):
            self.vals[r] = val

    def _issue_prefetch(self, b: Emitter, loop: scf.ForOp, iv: SSAValue, slice_ops, loads) -> list[SSAValue]:
        """The prefetched loads' slots of ``loop`` at induction value ``iv``."""
        self.vals[loop.body.blocks[0].args[0]] = iv
        for inner in slice_ops:
            self.lower_op(b, inner)
        out = []
        for ld in loads:
            self.row_cache_issuing = True  # (a fill leaves its slot where its iteration unpacks it)
            try:
                self.lower_op(b, ld)
            finally:
                self.row_cache_issuing = False
            r = ld.results[0]
            out.extend(self.packed[r][0] if r in self.packed else self.tile(r).slots)
        return out

    def _early_points(self, ops: list[Operation]) -> dict:
        """``early_prefetch.issue_points`` of a block's ops (empty unless ``TILEORCH_EARLY_PREFETCH=1``;
        a loop split over a cluster starts at its rank's iteration: not moved)."""
        if not early_prefetch.enabled() or not any(isinstance(o, scf.ForOp) for o in ops):
            return {}
        return early_prefetch.issue_points(
            ops, lambda loop: prefetchable_loads(loop, self.slots_of),
            lambda loop: self.split is None or loop is not self.split.loop)

    def _issue_early(self, e: Emitter, loops) -> None:
        """Issue the first loads of ``loops`` (with the scalar ops their indices need) here."""
        for loop, moved in loops:
            self.lower_ops(e, moved)
            slice_ops, loads = prefetchable_loads(loop, self.slots_of)
            self.early_ahead[(self.copy, loop)] = self._issue_prefetch(e, loop, self.get(loop.lb), slice_ops, loads)

    def lower_region_yield(self, e: Emitter, block: Block, owner: Operation) -> list[SSAValue]:
        """Lower ``block``'s ops; return the flattened values of its ``scf.yield``."""
        ops = list(block.ops)
        early = self._early_points(ops)
        self._issue_early(e, early.get(-1, ()))
        for i, inner in enumerate(ops):
            if early and i:
                self._issue_early(e, early.get(i - 1, ()))
            if isinstance(inner, scf.YieldOp):
                self.bulk_drain(e, block)  # (row_bulk_fill.py: no bulk copy outlives the fill loop's block)
                return [x for v in inner.operands for x in self.flatten(v)]
            self.bulk_before(e, inner)
            self.lower_located(e, inner)
        raise LocatedError(owner, f"{PASS}: region without scf.yield")

    def op_scf_if(self, e, op: scf.IfOp):
        cond = self.get(op.cond)
        rtypes = [r.type for r in op.results]
        flat_types = [t for r in op.results for t in self.flatten_type(r.type, op)]

        def branch(region):
            if not region.blocks:
                return None
            return lambda b: self.lower_region_yield(b, region.blocks[0], op)

        then = branch(op.true_region)
        other = branch(op.false_region)
        if other is None and flat_types:
            raise _unsupported(op, "an if with results needs an else")
        results = e.if_(cond, then, other, flat_types)
        for r, val in zip(op.results, self.unflatten(rtypes, results, op)):
            self.vals[r] = val

    def op_scf_while(self, e, op: scf.WhileOp):
        inits = [x for v in op.arguments for x in self.flatten(v)]
        before, after = op.before_region.blocks[0], op.after_region.blocks[0]
        btypes = [a.type for a in before.args]
        atypes = [a.type for a in after.args]
        flat_b = [t for a in before.args for t in self.flatten_type(a.type, op)]
        flat_a = [t for a in after.args for t in self.flatten_type(a.type, op)]
        nb, na = Block(arg_types=flat_b), Block(arg_types=flat_a)
        for arg, val in zip(before.args, self.unflatten(btypes, list(nb.args), op)):
            self.vals[arg] = val
        eb = e.nested(nb)
        for inner in before.ops:
            if isinstance(inner, scf.ConditionOp):
                vals = [x for v in inner.args for x in self.flatten(v)]
                nb.add_op(scf.ConditionOp(self.get(inner.condition), *vals))
                break
            self.lower_op(eb, inner)
        for arg, val in zip(after.args, self.unflatten(atypes, list(na.args), op)):
            self.vals[arg] = val
        ea = e.nested(na)
        out = self.lower_region_yield(ea, after, op)
        na.add_op(scf.YieldOp(*out))
        new = e.add(scf.WhileOp(inits, flat_a, Region(nb), Region(na)))
        for r, val in zip(op.results, self.unflatten([r.type for r in op.results], list(new.results), op)):
            self.vals[r] = val


def _narrowed_compare_operands(args: list[SSAValue]) -> list[SSAValue]:
    """The operands of an integer compare, taken before a sign extension both share (``extsi``
    from one type): sign extension keeps the signed and the unsigned order and equality, so the
    narrow compare is the same predicate.  An int64 index tile's bounds test (``arange(n, int64)
    < extsi(shape)``) then compares 32-bit coordinates and holds no 64-bit value per element
    (LLVM rewrites a non-negative ``sext`` into a ``zext``, after which it no longer narrows it)."""
    a, b = args
    if (isinstance(a.owner, arith.ExtSIOp) and isinstance(b.owner, arith.ExtSIOp)
            and a.owner.input.type == b.owner.input.type):
        return [a.owner.input, b.owner.input]
    return args


def lower_scalar_op(e: Emitter, op: Operation, args: list[SSAValue], rtype: Attribute | None = None) -> SSAValue:
    """One element of elementwise ``op`` on scalar ``args`` (register types, see ``reg_type``):
    the scalar math every tile lowering shares (SIMT slots, accumulator fragments)."""
    name = op.name
    if name in CASTS or name in _ARITH_CASTS:
        return _cast(e, name, args[0], rtype if rtype is not None else op.results[0].type)
    if name in ("nv_tileaa.cmpi", "nv_tileaa.cmpf"):
        if name == "nv_tileaa.cmpi":
            args = _narrowed_compare_operands(args)
            return e.v(cmpi(args[0], args[1], op.predicate.data))
        return e.v(arith.CmpfOp(args[0], args[1], op.predicate.data))
    if name == "nv_tileaa.select":
        return e.v(arith.SelectOp(*args))
    if name in ELEMENTWISE:
        kind = ELEMENTWISE[name]
        if kind in ("exp", "tanh") and not takes_approx(op):  # the spec's default rounding<full>
            return e.exp_full(args[0]) if kind == "exp" else e.tanh_full(args[0])
        if kind == "sqrt" and getattr(op, "rounding", None) is not None:  # a directed rounding (f32, f64)
            return e.sqrt_directed(args[0], op.rounding.data)
        if kind in ("exp", "exp2", "sqrt", "rsqrt", "tanh", "log", "log2", "neg", "abs"):
            return e.unary_math(kind, args[0])
        directed = directed_rounding(op)
        if directed is not None:  # rz / rm / rp (the verifier: f32 / f64 elements, held as they are)
            if not all(isinstance(a.type, Float32Type | Float64Type) and a.type == args[0].type for a in args):
                raise LocatedError(op, f"{op.name} rounding '{directed}' of {args[0].type} registers: only f32 "
                                       "and f64 operands round once in that direction")
            return e.arith_directed(kind, args, directed)
        if kind == "fma":
            return e.fma(*args)
        if kind == "remf":
            return e.fmod(*args)
        if kind in ("floor", "ceil"):
            return e.rounded(kind, args[0])
        if kind in ("sin", "cos", "tan"):
            return e.trig(kind, args[0])
        if kind in ("sinh", "cosh"):
            return e.hyperbolic(kind, args[0])
        if kind == "pow":
            return e.pow(*args)
        if kind == "atan2":
            return e.atan2(*args)
        if kind == "bitcast":
            src, dst = (t.element_type if isinstance(t, TensorType) else t
                        for t in (op.operands[0].type, op.results[0].type))
            return e.bitcast(args[0], src, dst)
        if kind in ("max", "min"):
            return e.max_min(kind, *args)
        rounding = getattr(op, "rounding", None) if kind == "divf" else None
        if rounding is not None and all(a.type == f32 for a in args):  # approximate, full or directed
            return e.ptx(f"div.{rounding.data}.f32", args)
        directed = rounding is not None and rounding.data[:2] in ("rz", "rm", "rp")
        if directed and all(isinstance(a.type, Float64Type) for a in args):
            return e.ptx(f"div.{rounding.data[:2]}.f64", args)  # (no .ftz for f64)
        return e.v(ARITH_OF[kind](*args))
    if name in ("arith.floordivsi", "arith.ceildivsi"):
        return _signed_div_rounded(e, name == "arith.floordivsi", *args)
    if name in ("arith.maximumf", "arith.maxnumf"):  # maximumf: IEEE 754-2019 maximum, NaN in, NaN out
        return e.max_min("max", *args, propagate_nan=name == "arith.maximumf")
    if name in ("arith.minimumf", "arith.minnumf"):
        return e.max_min("min", *args, propagate_nan=name == "arith.minimumf")
    # any other arith op: same op on the elements
    result_types = [reg_type(rtype if rtype is not None else r.type) for r in op.results]
    new = type(op).create(operands=list(args), result_types=result_types,
                          properties=dict(op.properties), attributes=dict(op.attributes))
    e.add(new)
    return new.results[0]


def convert_float(b: Emitter, x: SSAValue, dst: Attribute) -> SSAValue:
    """``nv_tileaa.fp_to_fp`` of one element ``x`` (a register value, see ``reg_type``): bf16 and
    fp8 are held as f32, rounded to their precision (from f64 through f32 rounded to odd: one rounding)."""
    if isinstance(dst, (BFloat16Type, FloatTF32Type)) or is_fp8(dst):
        x = b.to_f32_odd(x) if isinstance(x.type, Float64Type) else b.to_f32(x)
    if isinstance(dst, BFloat16Type):
        return b.round_to_bf16(x)
    if is_fp8(dst):
        return b.round_to_fp8(x, dst)
    if isinstance(dst, FloatTF32Type):
        return b.round_to_tf32(x)
    dst = reg_type(dst)
    sw, dw = _fwidth(x.type), _fwidth(dst)
    if x.type == dst:
        return x
    if sw < dw:
        return b.v(arith.ExtFOp(x, dst))
    if sw > dw:
        return b.v(arith.TruncFOp(x, dst))
    return x


def _cast(e: Emitter, name: str, x: SSAValue, dst: Attribute) -> SSAValue:
    """One element of an integer/float cast (``nv_tileaa.extsi`` ... or ``arith.extsi`` ...);
    ``x`` in its register type.  An integer converted to bf16/fp8 is converted to f32 (rounded to odd where f32
    cannot hold it: :meth:`Emitter.to_f32_odd`), then rounded to the destination's precision."""
    dst = dst.element_type if isinstance(dst, TensorType) else dst
    cls = _ARITH_CASTS[CASTS.get(name, name)]
    if cls in (arith.SIToFPOp, arith.UIToFPOp) and reg_type(dst) != dst:
        wide = isinstance(x.type, IntegerType) and x.type.width.data >= 32
        f = e.to_f32_odd(x, signed=cls is arith.SIToFPOp) if wide else e.v(cls(x, f32))
        return convert_float(e, f, dst)
    return e.v(cls(x, reg_type(dst)))


_ARITH_CASTS = {"arith.extsi": arith.ExtSIOp, "arith.extui": arith.ExtUIOp, "arith.trunci": arith.TruncIOp,
                "arith.sitofp": arith.SIToFPOp, "arith.uitofp": arith.UIToFPOp, "arith.fptosi": arith.FPToSIOp,
                "arith.fptoui": arith.FPToUIOp}


def _signed_div_rounded(e: Emitter, floor: bool, a: SSAValue, b: SSAValue) -> SSAValue:
    """Signed division rounded toward -inf (floor) or +inf (ceil) from the truncating one."""
    q = e.v(arith.DivSIOp(a, b))
    r = e.v(arith.RemSIOp(a, b))
    zero = e.v(arith.ConstantOp(IntegerAttr(0, a.type)))
    one = e.v(arith.ConstantOp(IntegerAttr(1, a.type)))
    inexact = e.v(cmpi(r, zero, "ne"))
    # the exact quotient is negative iff r and b have different signs (r != 0)
    neg = e.v(arith.XOrIOp(e.v(cmpi(r, zero, "slt")), e.v(cmpi(b, zero, "slt"))))
    adjust = e.v(arith.AndIOp(inexact, neg if floor else e.v(arith.XOrIOp(neg, e.v(arith.ConstantOp(IntegerAttr(1, i1)))))))
    if floor:
        return e.v(arith.SelectOp(adjust, e.v(arith.SubiOp(q, one)), q))
    return e.v(arith.SelectOp(adjust, e.v(arith.AddiOp(q, one)), q))


def _padded_size(n: int) -> int:
    """Elements of scratch that ``n`` padded elements occupy (see ``FunctionLowering._padded``)."""
    return n + n // 32 + 1


def _words(width: int, mt: Attribute) -> int:
    """32-bit words of a run of ``width`` elements of memory type ``mt`` when it is 4, 8 or 16
    bytes (a predicated ``ld.global.v{1,2,4}.b32``), else 0."""
    nbytes = width * byte_size(mt)
    return nbytes // 4 if nbytes in (4, 8, 16) else 0


def _pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _fwidth(t: Attribute) -> int:
    return FLOAT_BITS.get(type(t), 32)


def _fconv(e: Emitter, x: SSAValue, t: Attribute) -> SSAValue:
    if x.type == t:
        return x
    if _fwidth(x.type) < _fwidth(t):
        return e.v(arith.ExtFOp(x, t))
    return e.v(arith.TruncFOp(x, t))


def _iconv(e: Emitter, x: SSAValue, t: Attribute, signed: bool = True) -> SSAValue:
    if x.type == t:
        return x
    return e.v(arith.ExtSIOp(x, t) if signed else arith.ExtUIOp(x, t))


ELEMENTWISE = {
    "nv_tileaa.addf": "addf", "nv_tileaa.subf": "subf", "nv_tileaa.mulf": "mulf", "nv_tileaa.divf": "divf",
    "nv_tileaa.maxf": "max", "nv_tileaa.minf": "min", "nv_tileaa.fma": "fma", "nv_tileaa.negf": "neg",
    "nv_tileaa.exp": "exp", "nv_tileaa.exp2": "exp2", "nv_tileaa.sqrt": "sqrt", "nv_tileaa.rsqrt": "rsqrt",
    "nv_tileaa.tanh": "tanh", "nv_tileaa.log": "log", "nv_tileaa.log2": "log2", "nv_tileaa.remf": "remf", "math.absf": "abs", "nv_tileaa.addi": "addi", "nv_tileaa.subi": "subi", "nv_tileaa.muli": "muli",
    "math.floor": "floor", "math.ceil": "ceil", "math.sin": "sin", "math.cos": "cos", "math.tan": "tan",
    "math.sinh": "sinh", "math.cosh": "cosh", "math.powf": "pow", "math.atan2": "atan2", "arith.bitcast": "bitcast",
    **{name: "cast" for name in CASTS},
    "nv_tileaa.cmpi": "cmpi", "nv_tileaa.cmpf": "cmpf", "nv_tileaa.select": "select",
}
ARITH_OF = {
    "addf": arith.AddfOp, "subf": arith.SubfOp, "mulf": arith.MulfOp, "divf": arith.DivfOp,
    "addi": arith.AddiOp, "subi": arith.SubiOp, "muli": arith.MuliOp,
}


@dataclass(frozen=True)
class ConvertNvTileaaToSimt(ModulePass):
    """Every ``nv_tileaa.func`` kernel -> ``func.func`` SIMT kernel (see the module docstring)."""

    name = PASS

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        scratch = 0
        cc = op.attributes.get("nv_tileaa.compute_capability")
        sm = cc.sm.data if cc is not None and hasattr(cc, "sm") else None
        chunk = store_chunks.chunk_loads()
        dynamic = False  # a kernel's scratch is dynamic shared memory: one extern declaration
        for fn in [f for f in op.walk() if isinstance(f, TileFuncOp)]:
            interleave = chunk and store_chunks.unordered_memory(fn)
            lowering = FunctionLowering(fn, sm)
            lowering.store_groups = chunk if interleave else 0
            new, nbytes = lowering.run()
            if interleave and store_chunks.interleave_stores(new, chunk):
                new.attributes[store_chunks.ATTR] = IntegerAttr(chunk, i32)
            if nbytes > MAX_DYNAMIC_SMEM:
                at = lowering.scratch_op or fn  # the user's line whose exchange needs the most
                raise LocatedError(at, f"{PASS}: kernel @{fn.sym_name.data} needs {nbytes} bytes of shared "
                                       f"scratch (tiles exchanged through shared memory), more than the "
                                       f"{MAX_DYNAMIC_SMEM} a CTA can have: use smaller tiles")
            capped = occupancy_cap.reserve(sm, nbytes)
            if capped > nbytes:  # TILEORCH_SIMT_CTAS_PER_SM: at most that many CTAs fit an SM
                nbytes = capped
                new.attributes[occupancy_cap.ATTR] = IntegerAttr(occupancy_cap.cap(), i32)
            if nbytes > MAX_STATIC_SMEM or occupancy_cap.ATTR in new.attributes or ROW_CACHE_ATTR in new.attributes:
                new.attributes[DYNAMIC_SMEM_ATTR] = IntegerAttr(nbytes, i32)
                dynamic = True
            scratch = max(scratch, nbytes)
            fn.parent_block().insert_op_before(new, fn)
            fn.detach()
            fn.erase()
        asserts.add_globals(op)
        if any(PRINT_STRINGS_ATTR in o.attributes or PRINT_LOCK_ATTR in o.attributes
               for o in op.body.block.ops):  # (add_globals changes nothing otherwise)
            _prints.add_globals(op)
        if scratch or any(isinstance(f, func.FuncOp) for f in op.body.block.ops):
            if dynamic:  # the launch gives the kernel ``tileorch.dynamic_smem`` bytes
                glob = llvm.GlobalOp(llvm.LLVMArrayType(0, i8), SCRATCH, "external", addr_space=3, alignment=16)
            else:
                glob = llvm.GlobalOp(llvm.LLVMArrayType(max(scratch, 16), i8), SCRATCH, "internal",
                                     addr_space=3, alignment=16)
            op.body.block.insert_op_before(glob, op.body.block.first_op) if op.body.block.first_op else op.body.block.add_op(glob)
        for key in list(op.attributes):
            if key.startswith("nv_tileaa."):
                del op.attributes[key]


__all__ = ["ConvertNvTileaaToSimt", "FunctionLowering", "PASS", "convert_float", "lower_scalar_op"]
