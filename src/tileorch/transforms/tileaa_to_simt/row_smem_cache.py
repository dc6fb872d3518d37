"""``tileaa-row-smem-cache``: a row read twice (a two-pass log-softmax / cross-entropy backward / softmax
or layernorm with a column loop) keeps the tiles its first loop loaded in shared memory, and its second
loop reads them from there instead of global memory (``TILEORCH_ROW_SMEM_CACHE``: ``auto``, the default since
session 31, compiles it and lets the cuTile launcher choose per launch; ``1`` always; ``0`` never).

The analysis (this module) marks load pairs on the ``nv_tileaa`` kernel before the SIMT lowering's
loop rewrites (the online-softmax hoisting peels the first iteration: the marks travel with the cloned
loads); ``convert-nv-tileaa-to-simt`` (:mod:`tileorch.transforms.tileaa_to_simt.row_cache_lowering`)
emits the copies.  Contract of a pair taken (``fill`` = the first loop's load ``A``, ``read`` = the
second loop's load ``B``):

* ``A`` and ``B`` are weak ``tiled_load`` ops directly in the bodies of two ``scf.for`` loops ``L1``
  before ``L2`` in one block, the loops from the constant 0 by the constant 1 to the same upper bound
  (one SSA value, equal constants, or one pure computation of such, ``cdiv(n, B)`` written twice): every
  tile index ``L2`` reads, ``L1`` read first;
* their views tile the same ``make_memref`` with the same tile type and their result types agree;
  their indices are equal along every dimension but one, values defined outside ``L1`` (so the same
  in both loops), and along that one each is its loop's induction variable: the tile index ``k``
  along it names the slot;
* nothing in ``L1``, between the loops or in ``L2`` may have written the tile between the two
  reads: a write to the same ``make_memref`` is refused, except a ``tiled_store`` directly in ``L2``
  after ``B`` at ``B``'s index with ``B``'s view type (it writes tile ``k`` after tile ``k`` was read,
  and no later iteration reads tile ``k``: an in-place program, output = input, stays exact; the same
  holds for such a store to another array that aliases the input element for element); a write whose
  result token ``B``'s token chain contains (cuTile ties a load to each store that may alias it) is
  refused; so is a pointer-tile store or atomic whose pointers derive from the row's array's parameter (or
  from no parameter found); other writes to other arrays are unordered with ``B`` by the program's tokens
  (cuTile's no-alias statement) and do not stop the pair.

Marks: ``A`` gets ``tileorch.row_cache_fill = g`` and ``B`` ``tileorch.row_cache_read = g`` (``g``
numbers the fills of a kernel; a fill may serve the reads of several later loops); a near pair refused (``B`` reads the memref ``A`` read in an earlier
loop) gets ``tileorch.row_cache_refused = "<the failing condition>"`` on ``B``.  The driver reports
each as a remark located at the load (:func:`remarks`).  What the lowering does at run time (slot ``k``
only when it fits the launch's dynamic shared memory, else the global reload) is its module's contract.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from tileorch import settings
from tileorch.dialects.block_sources import iteration_sources
from tileorch.transforms.tileas.common import constant_int, defined_inside

ENV = "TILEORCH_ROW_SMEM_CACHE"
FILL = "tileorch.row_cache_fill"
READ = "tileorch.row_cache_read"
REFUSED = "tileorch.row_cache_refused"
AXIS = "tileorch.row_cache_axis"
"""On both loads of a pair: the tile dimension along which the loop walks (the slot's index)."""
WRITES = ("nv_tileaa.tiled_store", "nv_tileaa.store", "nv_tileaa.atomic_rmw", "nv_tileaa.atomic_cas")


def enabled() -> bool:
    """``TILEORCH_ROW_SMEM_CACHE=1`` or ``auto`` (the default: compiled with the cache; the cuTile launcher
    chooses per launch, :func:`tileorch.launchers.row_cache_smem.auto_declines`)."""
    return settings.value(ENV) in ("1", "auto")


PURE_SCALARS = ("nv_tileaa.get_dim_size", "nv_tileaa.get_dim_stride", "nv_tileaa.get_program_id",
                "nv_tileaa.get_num_programs", "nv_tileaa.assume")
"""Ops (besides ``arith``) whose equal operands give equal scalars (a bound computed twice, ``cdiv(n, B)``)."""


def _same_scalar(a: SSAValue, b: SSAValue, depth: int = 6) -> bool:
    """``a`` and ``b`` hold the same value: one SSA value, equal constants, or the same pure op (``arith``,
    :data:`PURE_SCALARS`; same attributes and properties) of operands that are the same, ``depth`` ops deep."""
    if a is b:
        return True
    if constant_int(a) is not None or constant_int(b) is not None:
        return constant_int(a) == constant_int(b)
    oa, ob = a.owner, b.owner
    if depth == 0 or not isinstance(oa, Operation) or not isinstance(ob, Operation) or oa.name != ob.name:
        return False
    if not (oa.name.startswith("arith.") or oa.name in PURE_SCALARS) or oa.regions or ob.regions:
        return False
    if (oa.attributes != ob.attributes or oa.properties != ob.properties or len(oa.operands) != len(ob.operands)
            or list(oa.results).index(a) != list(ob.results).index(b)):
        return False
    return all(_same_scalar(x, y, depth - 1) for x, y in zip(oa.operands, ob.operands))


def _memref(access: Operation) -> SSAValue | None:
    """The ``make_memref`` value the view of ``access`` (a tile load, store or view atomic) tiles (through
    ``block_tile``), or None."""
    view = getattr(access, "view", None)
    view = view.owner if isinstance(view, SSAValue) else None
    if isinstance(view, Operation) and view.name == "nv_tileaa.block_tile":
        return view.operands[0]
    return None


def _reachable(start: list[SSAValue], preds):
    """Each value reachable from ``start`` backwards through ``preds(value) -> values``, once."""
    seen: set[SSAValue] = set()
    work = list(start)
    while work:
        x = work.pop()
        if x not in seen:
            seen.add(x)
            yield x
            work.extend(preds(x))


def _pointer_roots(v: SSAValue) -> set[SSAValue]:
    """The kernel parameters a pointer (tile) value derives from, through every op's pointer operands."""
    def preds(x):
        return [] if isinstance(x, BlockArgument) else [o for o in x.owner.operands if "ptr" in str(o.type)]

    return {x for x in _reachable([v], preds) if isinstance(x, BlockArgument)}


def _weak(load: Operation) -> bool:
    sem = load.mem_semantic
    return sem is None or sem.value.data == "weak"


def _axis(a: Operation, l1: scf.ForOp, b: Operation, l2: scf.ForOp) -> int | str:
    """The dimension along which ``a`` reads at ``l1``'s induction variable and ``b`` at ``l2``'s, the
    others equal and loop-invariant; or the reason they are not so."""
    iv1, iv2 = l1.body.blocks[0].args[0], l2.body.blocks[0].args[0]
    if len(a.indices) != len(b.indices):
        return "different index (ranks differ)"
    axis = None
    for d, (x, y) in enumerate(zip(a.indices, b.indices)):
        if x is iv1 and y is iv2:
            if axis is not None:
                return "different index (the induction variable along two dimensions)"
            axis = d
        elif not (_same_scalar(x, y) and not defined_inside(x, l1) and not defined_inside(y, l2)):
            return f"different index (dimension {d}: not the loop's induction variable and not one value)"
    return "different index (no dimension at the loop's induction variable)" if axis is None else axis


def _trip_range(l1: scf.ForOp, l2: scf.ForOp) -> str | None:
    if constant_int(l1.lb) != 0 or constant_int(l2.lb) != 0 or constant_int(l1.step) != 1 or constant_int(l2.step) != 1:
        return "different trip range (the loops must run from 0 by 1)"
    if not _same_scalar(l1.ub, l2.ub):
        return "different trip range (the loops' upper bounds differ)"
    return None


def _token_writes(token: SSAValue | None) -> set[Operation]:
    """The write ops whose result tokens flow into ``token`` (through joins, branches and loop-carried tokens)."""
    def preds(t):
        if isinstance(t, BlockArgument):  # (an scf.for's carried token: its initial and yielded values)
            return (iteration_sources(t) if isinstance(t.block.parent_op(), scf.ForOp) else None) or []
        owner = t.owner
        if isinstance(owner, (scf.ForOp, scf.IfOp)):
            out = [blk.last_op.operands[t.index] for region in owner.regions for blk in region.blocks
                   if blk.last_op is not None and t.index < len(blk.last_op.operands)]
            return out + ([owner.iter_args[t.index]] if isinstance(owner, scf.ForOp) else [])
        return [o for o in owner.operands if "mem_token" in str(o.type)]

    start = [token] if token is not None else []
    return {t.owner for t in _reachable(start, preds) if not isinstance(t, BlockArgument) and t.owner.name in WRITES}


def _writes_in(ops) -> list[Operation]:
    return [w for op in ops for w in op.walk() if w.name in WRITES]


def _write_refusal(a: Operation, l1: scf.ForOp, b: Operation, l2: scf.ForOp, axis: int) -> str | None:
    blk = l1.parent_block()
    ops = list(blk.ops)
    between = ops[ops.index(l1) + 1:ops.index(l2)]
    writes = _writes_in([l1, *between, l2])
    chained = _token_writes(b.token)
    mem = _memref(b)
    made = mem.owner if isinstance(mem.owner, Operation) and mem.owner.name == "nv_tileaa.make_memref" else None
    rows = _pointer_roots(made.ptr) if made is not None else None  # (the row's array's parameter; None: unknown)
    body = list(l2.body.blocks[0].ops)
    for w in writes:
        same_tile = (w.name == "nv_tileaa.tiled_store" and w.parent_op() is l2 and body.index(w) > body.index(b)
                     and w.view.type == b.view.type and isinstance(_axis(b, l2, w, l2), int)
                     and _axis(b, l2, w, l2) == axis)
        if same_tile:
            continue
        if _memref(w) is mem:
            return "a store to the same array before the second read (not at its tile after it)"
        ptr = getattr(w, "ptr", None) if _memref(w) is None else None
        if isinstance(ptr, SSAValue) and (rows is None or not _pointer_roots(ptr) or _pointer_roots(ptr) & rows):
            return "a pointer store or atomic that may write the row's array"
        if w in chained:
            return "aliasing store (the second load's memory token follows a store before it)"
    return None


def pair_refusal(a: Operation, l1: scf.ForOp, b: Operation, l2: scf.ForOp) -> int | str:
    """The axis of the slot index when ``(a, b)`` is a pair (the module's contract), else why not."""
    if not (_weak(a) and _weak(b)):
        return "an ordered load (not weak)"
    if a.view.type != b.view.type or a.results[0].type != b.results[0].type:
        return "different view (tile shape or element type)"
    why = _trip_range(l1, l2)
    if why is not None:
        return why
    axis = _axis(a, l1, b, l2)
    if isinstance(axis, str):
        return axis
    why = _write_refusal(a, l1, b, l2, axis)
    return why if why is not None else axis


def mark_pairs(fn: Operation) -> int:
    """Mark the pairs of one kernel (the module's contract); the number of fills."""
    taken = 0
    for blk in [b for op in fn.walk() for r in op.regions for b in r.blocks]:
        loops = [op for op in blk.ops if isinstance(op, scf.ForOp)]
        for j, l2 in enumerate(loops):
            for b in [op for op in l2.body.blocks[0].ops if op.name == "nv_tileaa.tiled_load"]:
                mem = _memref(b)
                if mem is None or FILL in b.attributes or READ in b.attributes:
                    continue
                why: str | None = None
                for l1 in reversed(loops[:j]):
                    firsts = [op for op in l1.body.blocks[0].ops
                              if op.name == "nv_tileaa.tiled_load" and _memref(op) is mem and READ not in op.attributes]
                    for a in firsts:
                        got = pair_refusal(a, l1, b, l2)
                        if isinstance(got, int):
                            if FILL not in a.attributes:  # (a fill may serve several later loops)
                                a.attributes[FILL] = IntegerAttr(taken, i32)
                                taken += 1
                            b.attributes[READ] = a.attributes[FILL]
                            a.attributes[AXIS] = b.attributes[AXIS] = IntegerAttr(got, i32)
                            why = None
                            break
                        why = why or got
                    if READ in b.attributes:
                        break
                if why is not None and READ not in b.attributes:
                    b.attributes[REFUSED] = StringAttr(why)
    return taken


def mark_module(module: ModuleOp) -> int:
    """:func:`mark_pairs` of every ``nv_tileaa.func`` of ``module``."""
    return sum(mark_pairs(fn) for fn in module.walk() if fn.name == "nv_tileaa.func")


TAKEN = ("the second loop reads this tile from shared memory, where the first loop's load of it left it "
         "(2 bytes of global traffic per element less; a slot past the launch's dynamic shared memory "
         "reloads from global memory; tileaa_to_simt/row_smem_cache.py, TILEORCH_ROW_SMEM_CACHE)")


def remarks(module: Operation) -> list[str]:
    """One located remark per marked second load: taken, or the condition that failed."""
    from tileorch.diagnostics import format_error

    out = []
    for op in module.walk():
        if READ in op.attributes:
            out.append(format_error(op, TAKEN, "remark"))
        elif REFUSED in op.attributes:
            out.append(format_error(op, "the row is not kept in shared memory between the two loops: "
                                        f"{op.attributes[REFUSED].data} (tileaa_to_simt/row_smem_cache.py)",
                                    "remark"))
    return out


class RowSmemCache(ModulePass):
    """Mark the two-pass rows' load pairs (the module's contract); runs whatever the setting says (the driver
    runs it unless ``TILEORCH_ROW_SMEM_CACHE=0``)."""

    name = "tileaa-row-smem-cache"

    def apply(self, ctx, op: ModuleOp) -> None:
        mark_module(op)


__all__ = ["AXIS", "ENV", "PURE_SCALARS", "FILL", "READ", "REFUSED", "RowSmemCache", "enabled", "mark_module", "mark_pairs", "pair_refusal",
           "remarks"]
