"""``tileas-stack-query-heads``: a program that loops over the G query heads sharing one K / V head (GQA's
``for g in range(G)``, each iteration a chain over the same K / V tiles) runs F of the heads at a time as one chain
of F times the rows: their Q tiles are one ``(.., F, BM, D)`` box (``F BM`` rows), each K / V tile is read once for
the F heads, and O is stored as one ``(.., F, BM, D)`` box.  F is the largest power of two (at least 2) dividing G
(and the head base's factor) with ``F BM <= 128`` (two consumer warp groups): 2 for 64-row tiles, 4 for 32, 8 for
16.

A program such as::

    for g in range(G):                                   # G even, BM <= 64
        h = kvh * G + g
        q = load(Q, (b, h, qt, 0), (1, 1, BM, D)).reshape((BM, D))
        ... the key loop over load(K, (b, kvh, j, 0)), load(V, ...): m, l, acc of BM rows ...
        store(O, (b, h, qt, 0), (acc / l).reshape((1, 1, BM, D)))

becomes (F = 2) ``for g2 in range(G // 2)`` with ``h2 = kvh * (G // 2) + g2``, Q loaded as ``(1, 2, BM, D)`` at
``(b, h2, qt, 0)`` and reshaped to ``(2 BM, D)`` (rows ``i BM + r`` are head ``2 h2 + i``'s row ``r``), every
value of the chain that has one entry per query row typed with ``2 BM`` rows, and O stored as ``(1, 2, BM, D)``
at ``(b, h2, qt, 0)`` (``G = F``: the loop is replaced by its one iteration).  Values the chain combines with its
rows that do not depend on the head (the scale, a key mask broadcast down the rows, constants, a per-row value such
as a causal query position) are the same for every head: a broadcast or splat is rebuilt with ``F BM`` rows, any
other such tile ``v`` of ``BM`` rows is stacked on itself (``reshape(broadcast(v[None]), (F BM, ..))``).

Taken only when, and only when, it cannot change what the program computes:

* the loop is at the function's top level with constant bounds ``0 .. G``, ``G`` even, step 1, carries only
  memory tokens and holds two or more dots, an inner loop and no atomics;
* the loop's index is read only by head indices ``h = x + g`` (the same ``x`` in each) whose ``x`` is defined before the loop and is a constant
  multiple of ``F`` (``x = y * c`` with ``c`` a multiple of F, or such a constant: ``h`` of ``g = F g2`` is
  ``F h2``), or ``h = g``, and ``h`` as one tile index ``a`` of one tile load (Q, in the loop's own block) and of each tile
  store in the loop's own block, or by side-effect-free ops without regions and loads of arrays the program does
  not write (a per-head ALiBi slope, computed or read from a table) whose values
  reach the chain only as operands of row ops (each such value is built once per head, ``h`` read as ``h_i = x +
  F g2 + i``, and the F copies, each stacked on itself, selected by row block: ``select(row < BM, copy 0, ..)``), with tile extent 1 along ``a`` in each view, whose tile has exactly two other
  non-unit extents ``r < c`` with ``a < r`` (so the row-major ``(F, BM)`` of the box is the ``F BM`` rows);
* each store's tile is a row value of ``BM`` rows through unit-dimension reshapes / expand_dims;
* every op that reads a row value is one whose rows stay rows: an elementwise op (tensor operands and results of
  one shape; no permute), a dot reading it as A or C, a reduction along its last dimension, an expand_dims or a
  broadcast that keeps dimension 0, the key loop's carried values and yield; anything else is refused;
* ``2 BM <= 128`` (two consumer warp groups of the chained kernel; wider rows would change its shape).

A program that does not match is left as written (the flattened head loop then runs one chain of ``BM`` rows an
instance, as before).  ``TILEORCH_ATTN_STACK_HEADS``: ``auto`` (the default) leaves 64-row heads with a causal key
loop as written (measured slower: :func:`_auto`, a remark says so), ``1`` stacks wherever the rewrite applies,
``0`` turns it off.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Block, Operation, SSAValue

from tileorch.diagnostics import copy_location, format_error
from tileorch.transforms.pass_kinds import ModuleTransform
from tileorch.transforms.tileas.common import first_refusal

ENV = "TILEORCH_ATTN_STACK_HEADS"
"""``0``: no head loop is stacked (each query head its own chain instance of ``BM`` rows)."""
MAX_ROWS = 128
_READS = ("nv_tileaa.tiled_load", "nv_tileaa.load")
_DENY = ("permute", "transpose", "load", "store", "gather", "scatter", "atomic", "make_range", "scan", "cat",
         "extract", "reshape", "print", "assert")


class _Why(Exception):
    """Why a loop is left as written (the remark's text; not an error)."""


class _AutoOff(_Why):
    """A loop the rewrite could stack that ``auto`` leaves as written (measured slower): said in a remark."""

    def __init__(self, loop: Operation, message: str):
        super().__init__(message)
        self.loop = loop


@dataclass
class Plan:
    """A stacking found by :func:`plan`."""

    fn: Operation
    loop: scf.ForOp
    count: int
    h_ops: list[Operation]  # each h = x + g (none: the index g itself)
    base_factor: tuple  # ("mul", y, c) or ("const", c): x = y * c or x = c
    q_load: Operation
    q_reshape: Operation
    stores: list[tuple[Operation, SSAValue]]  # (store, its 2-D row value)
    axis: int
    rows: int
    factor: int = 2  # F: the heads of one chain
    row_values: list[SSAValue] = field(default_factory=list)
    head_values: list[SSAValue] = field(default_factory=list)  # computed from the head, not from Q's rows


def _const(v: SSAValue):
    from tileorch.dialects.constants import constant_int

    return constant_int(v)


def _is_token(v: SSAValue) -> bool:
    return "token" in type(v.type).__name__.lower()


def _shape(v: SSAValue) -> list[int] | None:
    return list(v.type.get_shape()) if isinstance(v.type, TensorType) else None


def _doubled(t: TensorType, f: int = 2) -> TensorType:
    """``t`` with ``f`` times its rows (dimension 0)."""
    shape = list(t.get_shape())
    shape[0] *= f
    enc = t.encoding
    return TensorType(t.element_type, shape, enc) if enc is not None and not _no_encoding(enc) else \
        TensorType(t.element_type, shape)


def _no_encoding(enc) -> bool:
    from xdsl.dialects.builtin import NoneAttr

    return isinstance(enc, NoneAttr)


def _tile(view_type) -> list[int]:
    return list(view_type.tile_shape())


def _box_ok(tile: list[int], axis: int, rows: int | None) -> int:
    """The row axis of a view's tile whose extent along ``axis`` is 1 and whose other non-unit extents are two axes
    ``r < c`` after ``axis``; raises otherwise."""
    if tile[axis] != 1:
        raise _Why(f"the head index's tile extent is {tile[axis]}, not 1")
    big = [i for i, e in enumerate(tile) if e != 1]
    if len(big) != 2 or big[0] <= axis:
        raise _Why("the head's tile is not two dimensions after the head axis (a [.., 1, rows, cols] box)")
    if rows is not None and tile[big[0]] != rows:
        raise _Why(f"a store's tile has {tile[big[0]]} rows, the Q tile {rows}")
    return big[0]


def _is_q_load(load: Operation) -> bool:
    """Whether a tile load is a first dot's A: its tile reshaped to 2-D once, read by a dot as A."""
    uses = list(load.results[0].uses)
    if len(uses) != 1 or uses[0].operation.name != "nv_tileaa.reshape":
        return False
    r = uses[0].operation.results[0]
    return len(_shape(r)) == 2 and any(u.operation.name == "nv_tileaa.dot" and u.index == 0 for u in r.uses)


def _base_form(x: SSAValue, loop: scf.ForOp) -> tuple:
    """``("const", c)`` or ``("mul", y, c)`` for a head base ``x`` defined before the loop with an even factor."""
    owner = x.owner
    if isinstance(owner, Block) or loop.is_ancestor(owner):
        raise _Why("the head index's x is not defined before the loop")
    c = _const(x)
    if c is not None:
        if c % 2:
            raise _Why("the head index's base is odd")
        return ("const", c)
    if owner.name in ("nv_tileaa.muli", "arith.muli"):
        for k in (0, 1):
            c = _const(owner.operands[k])
            if c is not None and c % 2 == 0:
                return ("mul", owner.operands[1 - k], c)
    raise _Why("the head index is not x * G + g with an even factor (a pair of heads would not start at an even head)")


def _same_form(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y if isinstance(x, SSAValue) else x == y for x, y in zip(a, b))


def _head_index(loop: scf.ForOp):
    """(the ops ``h = x + g``, the form of ``x``, the same in each) for the loop's index ``g`` (cuTile computes
    ``x + g`` once per access); ``([], ("zero",))`` where the index itself is the head; raises otherwise."""
    g = loop.body.block.args[0]
    uses = list(g.uses)
    if uses and all(u.operation.name in ("nv_tileaa.tiled_load", "nv_tileaa.tiled_store") for u in uses):
        return [], ("zero",)  # the head is the loop's index itself (MQA: for h in range(H))
    form, h_ops = None, []
    for u in uses:
        h_op = u.operation
        if h_op.name not in ("nv_tileaa.addi", "arith.addi") or h_op.parent_block() is not loop.body.block:
            raise _Why("the loop's index is read by other ops than head indices x + g")
        f = _base_form(h_op.operands[1 - u.index], loop)
        if form is not None and not _same_form(form, f):
            raise _Why("the head indices x + g differ in x")
        form = f
        h_ops.append(h_op)
    if not h_ops:
        raise _Why("the loop's index is not read")
    return h_ops, form


def _store_row_value(st: Operation) -> SSAValue:
    """The 2-D value a store's tile is made of (through unit-dimension reshapes / expand_dims)."""
    v = st.tile
    while isinstance(v.owner, Operation) and v.owner.name in ("nv_tileaa.expand_dims", "nv_tileaa.reshape"):
        src = v.owner.operands[0]
        if [e for e in _shape(src) if e != 1] != [e for e in _shape(v) if e != 1]:
            raise _Why("a store's tile is reshaped beyond unit dimensions")
        v = src
        if len(_shape(v)) == 2:
            break
    if len(_shape(v)) != 2:
        raise _Why("a store's tile is not a 2-D value of the chain")
    return v


def _row_operands(op: Operation, rows: int) -> list[int] | None:
    """The operand positions of ``op`` whose dimension 0 is the query rows when one of them is (None: ``op`` does
    not keep rows as rows)."""
    name = op.name
    if name == "nv_tileaa.dot":
        return [0, 2]
    if name == "nv_tileaa.reduce":
        dim = op.properties["dim"].value.data
        src = _shape(op.operands[0])
        return [0] if src is not None and len(src) == 2 and dim == 1 else None
    if name == "nv_tileaa.expand_dims":
        return [0] if op.properties["dim"].value.data >= 1 else None
    if name == "nv_tileaa.broadcast":
        return [0] if _shape(op.operands[0])[0] == _shape(op.results[0])[0] else None
    if op.regions or any(d in name for d in _DENY) or "permutation" in op.properties:
        return None
    tensors = [v for v in (*op.operands, *op.results) if isinstance(v.type, TensorType)]
    shapes = {tuple(_shape(v)) for v in tensors}
    if len(shapes) != 1 or not op.results or not all(isinstance(r.type, TensorType) for r in op.results):
        return None
    if next(iter(shapes))[0] != rows:
        return None
    return [k for k, v in enumerate(op.operands) if isinstance(v.type, TensorType)]


def _propagate(p: Plan) -> None:
    """Mark the chain's row values (from Q's reshape, through the ops, the key loop's carried values) and check
    that every reader keeps rows as rows."""
    rows = p.rows
    marked: dict[int, SSAValue] = {id(p.q_reshape.results[0]): p.q_reshape.results[0]}
    changed = True
    while changed:
        changed = False
        for op in p.loop.body.block.walk():
            if op is p.loop:
                continue
            if isinstance(op, scf.ForOp):
                body = op.body.block
                yld = body.last_op
                for k, r in enumerate(op.results):
                    arg = body.args[1 + k]
                    if any(id(v) in marked for v in (op.operands[3 + k], arg, yld.operands[k], r)) \
                            and not (id(arg) in marked and id(r) in marked):
                        marked[id(arg)] = arg
                        marked[id(r)] = r
                        changed = True
                continue
            if op.name == "scf.yield":
                continue
            reads = [k for k, v in enumerate(op.operands) if id(v) in marked]
            if not reads:
                continue
            if op.name == "nv_tileaa.tiled_store" or (
                    op.name in ("nv_tileaa.expand_dims", "nv_tileaa.reshape") and _feeds_store(op, p)):
                continue
            allowed = _row_operands(op, rows)
            if allowed is None or any(k not in allowed for k in reads):
                raise _Why(format_error(op, "this op does not keep the query rows as rows (stacking two heads' "
                                            "rows would change it)", "note"))
            for r in op.results:
                if id(r) not in marked:
                    shape = _shape(r)
                    if shape is None or shape[0] != rows or len(shape) > 2:
                        raise _Why("a row value is not a [rows] or [rows, n] tile")
                    marked[id(r)] = r
                    changed = True
    for _, v in p.stores:
        if id(v) not in marked:
            raise _Why("a store's tile is not computed from the Q tile's rows")
    p.row_values = list(marked.values())


def _head_values(p: Plan, readers: list[Operation]) -> None:
    """The values computed from the head index besides the Q / O tile indices (``readers``: the ops reading it), up
    to the row ops that read them: each op side-effect free, without regions, not a row op itself; a row op may read
    them only where its operand's rows are the query rows (:func:`_row_operands`)."""
    from tileorch.transforms.tileas.split_chains import _bases

    rows = {id(v) for v in p.row_values}
    stored = set().union(*(_bases(o.view, p.fn) for o in p.fn.walk() if o.name == "nv_tileaa.tiled_store"),
                         *(_bases(o.operands[0], p.fn) for o in p.fn.walk()
                           if o.name in ("nv_tileaa.store", "nv_tileaa.scatter") or "atomic" in o.name))
    dep: dict[int, SSAValue] = {}
    work = list(readers)
    seen: set[int] = set()
    while work:
        op = work.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if any(id(r) in rows for r in op.results):
            allowed = _row_operands(op, p.rows) or []
            if any(id(x) in dep and k not in allowed for k, x in enumerate(op.operands)):
                raise _Why(format_error(op, "a value computed from the head index is read here other than as rows",
                                        "note"))
            continue
        # a read of an array the program does not write (an ALiBi slope table) is read once per head
        read_only = (op.name in _READS and op.operands and not (_bases(op.operands[0], p.fn) & stored)
                     and p.loop.is_ancestor(op))
        if not read_only and (op.regions or op.name.startswith("scf.") or not p.loop.is_ancestor(op)
                              or any(d in op.name for d in _DENY if d != "reshape")):
            raise _Why(format_error(op, "the head index is read by a store, a loop, a branch or a load of an array "
                                        "the program writes", "note"))
        for r in op.results:
            if _is_token(r):
                if r.uses:
                    raise _Why("a head-indexed load's token is used")
                continue
            dep[id(r)] = r
            work.extend(u.operation for u in r.uses)
    for v in dep.values():  # (a row op's operands below it: checked above; the store's path reads no head value)
        if any(u.operation.name == "nv_tileaa.tiled_store" for u in v.uses):
            raise _Why("a stored tile is computed from the head index")
    p.head_values = list(dep.values())


def _feeds_store(op: Operation, p: Plan) -> bool:
    """Whether ``op`` is on the unit-dimension path from a store's row value to the store."""
    for st, _ in p.stores:
        v = st.tile
        while isinstance(v.owner, Operation) and v.owner.name in ("nv_tileaa.expand_dims", "nv_tileaa.reshape"):
            if v.owner is op:
                return True
            if len(_shape(v.owner.operands[0])) == 2:
                break
            v = v.owner.operands[0]
    return False


def plan(fn: Operation) -> Plan:
    """The stacking of ``fn``'s head loop; raises :class:`_Why` where it does not match (the reason)."""
    from tileorch.dialects import nv_tileaa as aa

    block = fn.regions[0].blocks.first
    loops = [o for o in block.ops if isinstance(o, scf.ForOp)
             and sum(x.name == "nv_tileaa.dot" for x in o.walk()) >= 2]
    if len(loops) != 1:
        raise _Why("no single top-level loop around a chain")
    loop = loops[0]
    lb, ub, step = (_const(v) for v in (loop.lb, loop.ub, loop.step))
    if lb != 0 or step != 1 or ub is None or ub < 2 or ub % 2:
        raise _Why("the loop is not for g in range(G) with a constant even G")
    if any(not _is_token(a) for a in loop.iter_args):
        raise _Why("the loop carries values other than memory tokens")
    if not any(isinstance(o, scf.ForOp) for o in loop.body.block.walk()):
        raise _Why("no key loop inside the head loop")
    if any("atomic" in o.name or "scatter" in o.name for o in loop.walk()):
        raise _Why("the loop holds atomics or scatters")
    h_ops, base = _head_index(loop)
    heads = [o.results[0] for o in h_ops] if h_ops else [loop.body.block.args[0]]
    loads, stores, axis, others = [], [], None, []
    for use in [u for h in heads for u in h.uses]:
        h = use.value if hasattr(use, "value") else use.operation.operands[use.index]
        op = use.operation
        if h_ops and (not isinstance(op, aa.TiledLoadOp | aa.TiledStoreOp)
                      or isinstance(op, aa.TiledLoadOp) and not _is_q_load(op)):
            others.append(op)  # a value computed from the head (a per-head ALiBi slope): built per head
            continue
        if not isinstance(op, aa.TiledLoadOp | aa.TiledStoreOp) or op.parent_block() is not loop.body.block:
            raise _Why("the head index is read by other ops than the Q load's and the stores' tile indices")
        idx = list(op.indices)
        k = next((i for i, x in enumerate(idx) if x is h), -1)
        if k < 0 or sum(x is h for x in op.operands) != 1 or (axis is not None and k != axis):
            raise _Why("the head index is not one tile index, the same in every access")
        axis = k
        (loads if isinstance(op, aa.TiledLoadOp) else stores).append(op)
    if len(loads) != 1 or not stores:
        raise _Why("the head index is not read by one Q load and the stores")
    q = loads[0]
    uses = list(q.results[0].uses)
    if len(uses) != 1 or uses[0].operation.name != "nv_tileaa.reshape" or len(_shape(uses[0].operation.results[0])) != 2:
        raise _Why("the Q tile is not reshaped to 2-D once")
    q_reshape = uses[0].operation
    rows = _shape(q_reshape.results[0])[0]
    if 2 * rows > MAX_ROWS:
        raise _Why(f"two heads of {rows} rows would be {2 * rows} rows (at most {MAX_ROWS}: two consumer warp groups)")
    # F heads a chain: the largest power of two dividing G (and the base's factor) with F BM <= 128 rows
    divides = base[2] if base[0] == "mul" else base[1] if base[0] == "const" else 0
    f = 2
    while ub % (2 * f) == 0 and 2 * f * rows <= MAX_ROWS and (divides == 0 or divides % (2 * f) == 0):
        f *= 2
    for acc in (q, *stores):
        vt = acc.view.type
        if not isinstance(acc.view.owner, aa.BlockTileOp) or [int(x.data) for x in vt.step.data] != _tile(vt):
            raise _Why("a head's view is not a plain tiling of its array (block_tile, step = tile)")
    row_axis = _box_ok(_tile(q.view.type), axis, None)
    if _tile(q.view.type)[row_axis] != rows:
        raise _Why("the Q box's rows are not the tile's rows")
    if any(isinstance(o, aa.TiledStoreOp) for o in loop.body.block.walk() if o.parent_block() is not loop.body.block) \
            or len([o for o in loop.body.block.ops if isinstance(o, aa.TiledStoreOp)]) != len(stores):
        raise _Why("a store does not read the head index")
    pairs = []
    for st in stores:
        _box_ok(_tile(st.view.type), axis, rows)
        v = _store_row_value(st)
        if _shape(v)[0] != rows:
            raise _Why("a store's row value does not have the Q tile's rows")
        pairs.append((st, v))
    p = Plan(fn, loop, ub, h_ops, base, q, q_reshape, pairs, axis, rows, f)
    _propagate(p)
    _head_values(p, others)
    _auto(p)
    return p


def _auto(p: Plan) -> None:
    """``TILEORCH_ATTN_STACK_HEADS=auto`` (the default): heads of 64 rows whose key loop's trip count reads a program
    id (a causal bound: instances of unequal work) are left as written.  H100, session 34 (benchmarks/
    session34_zoo.sh, d64, 2k keys, same process): stacked / unstacked 0.951 for such a causal GQA loop (the 64-row
    kernel runs two CTAs per SM; the 128-row one, one CTA of two consumer groups), 1.004 for the same loop without a
    mask, 1.32 for MQA's 16-head loop, 1.96 for 32-row heads (four a chain; their unstacked tile pads the WGMMA's 64
    rows).  ``1`` stacks wherever the rewrite applies."""
    from tileorch import settings

    if settings.value(ENV) != "auto" or p.rows < 64:
        return
    keys = [o for o in p.loop.body.block.walk() if isinstance(o, scf.ForOp)
            and any(x.name == "nv_tileaa.dot" for x in o.walk())]
    if any(_reads_program_id(v) for k in keys for v in (k.lb, k.ub, k.step)):
        raise _AutoOff(p.loop, f"the {p.count} query heads of this loop share their K / V tiles, but heads of "
                               f"{p.rows} rows whose key loop's trip count grows with the program id (causal) are "
                               "not stacked: measured slower on the H100 (0.95x, session 34); "
                               f"{ENV}=1 stacks them (tileas-stack-query-heads)")


def _reads_program_id(v: SSAValue, depth: int = 64) -> bool:
    """Whether scalar ``v`` is computed from a program id (through its defining ops' operands)."""
    op = v.owner
    if depth == 0 or not isinstance(op, Operation):
        return False
    if op.name == "nv_tileaa.get_program_id":
        return True
    return any(_reads_program_id(x, depth - 1) for x in op.operands)


# ------------------------------------------------------------------------------------------------------- rewrite


def _int_const(value: int, like: SSAValue) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, like.type))


def _stacked(v: SSAValue, before: Operation, cache: dict, f: int = 2) -> SSAValue:
    """``v`` (a head-independent tile of ``BM`` rows) with ``F BM`` rows, built beside its definition."""
    from tileorch.dialects import nv_tileaa as aa

    if id(v) in cache:
        return cache[id(v)]
    t = v.type
    new_t = _doubled(t, f)
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, DenseIntOrFPElementsAttr) \
            and owner.value.is_splat():
        vals = list(owner.value.get_values())
        ops = [arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(new_t, [vals[0]]))]
    elif isinstance(owner, Operation) and owner.name == "nv_tileaa.broadcast" and _shape(owner.operands[0])[0] == 1:
        ops = [aa.BroadcastOp.build(operands=[owner.operands[0]], result_types=[new_t])]
    elif isinstance(owner, Operation) and owner.name == "nv_tileaa.splat":
        ops = [aa.SplatOp.build(operands=[owner.operands[0]], result_types=[new_t])]
    else:
        shape = list(t.get_shape())
        one = TensorType(t.element_type, [1, *shape])
        two = TensorType(t.element_type, [f, *shape])
        e = aa.ExpandDimsOp.build(operands=[v], properties={"dim": IntegerAttr(0, 32)}, result_types=[one])
        b = aa.BroadcastOp.build(operands=[e.results[0]], result_types=[two])
        ops = [e, b, aa.ReshapeOp(b.results[0], new_t)]
    copy_location(before, ops)
    if isinstance(owner, Operation):  # beside the value's own definition (where the tier expects constants)
        owner.parent_block().insert_ops_after(ops, owner)
    else:
        before.parent_block().insert_ops_before(ops, before)
    cache[id(v)] = ops[-1].results[0]
    cache.setdefault("replaced", []).append(v)
    return cache[id(v)]


def _set_operand(op: Operation, k: int, v: SSAValue) -> None:
    op.operands = [*op.operands[:k], v, *op.operands[k + 1:]]


def apply(p: Plan) -> None:
    """Rewrite ``p.fn`` as the module doc says."""
    from tileorch.dialects import nv_tileaa as aa
    from tileorch.dialects.nv_tileaa.attrs import TiledViewType
    from tileorch.transforms.tileas.common import set_type

    loop, block = p.loop, p.loop.body.block
    g = block.args[0]
    h_old = {id(o.results[0]) for o in p.h_ops} or {id(g)}
    first = p.h_ops[0] if p.h_ops else None
    # the pair's head index h2 = x / 2 + g2 (x even), the loop over G / 2 pairs
    if p.base_factor[0] == "zero":
        h2 = g
    elif p.base_factor[0] == "const":
        half = [_int_const(p.base_factor[1] // p.factor, first.results[0])]
        x2 = half[0].result
    else:
        _, y, c = p.base_factor
        cst = _int_const(c // p.factor, y)
        mul = aa.MulIOp(y, cst.result) if first.name == "nv_tileaa.addi" else arith.MuliOp(y, cst.result)
        half, x2 = [cst, mul], mul.results[0]
    if p.base_factor[0] != "zero":
        add = aa.AddIOp(x2, g) if first.name == "nv_tileaa.addi" else arith.AddiOp(x2, g)
        copy_location(first, [*half, add])
        block.insert_ops_before([*half, add], block.first_op)  # (x before the loop, g the block's argument)
        h2 = add.results[0]

    # Q: one (.., 2, BM, D) box of the pair, reshaped to 2 BM rows
    q = p.q_load
    vt = q.view.type
    tile = _tile(vt)
    tile[p.axis] = p.factor
    order = [int(s.data) for s in vt.order.data]
    new_view_t = TiledViewType(tile, vt.memref, tile, order)
    view_op = aa.BlockTileOp(q.view.owner.operands[0], new_view_t)
    copy_location(q, [view_op])
    block.insert_op_before(view_op, q)
    old_view = q.view
    q.operands = [view_op.results[0] if x is old_view else h2 if id(x) in h_old else x for x in q.operands]
    rt = q.results[0].type
    set_type(q.results[0], TensorType(rt.element_type, tile))

    # the F heads' indices h_i = x + F g2 + i, for the values computed from the head (built per head)
    per_head = {id(v) for v in p.head_values}
    heads = _head_indices(p, block) if per_head else []
    # the chain's row values: F BM rows; head-independent operands stacked
    marked = {id(v) for v in p.row_values}
    cache: dict = {}
    for v in p.row_values:
        set_type(v, _doubled(v.type, p.factor))
    for op in list(block.walk()):
        if isinstance(op, scf.ForOp) and op is not loop:
            yld = op.body.block.last_op
            for k in range(len(op.results)):
                init = op.operands[3 + k]
                if id(op.results[k]) in marked and id(init) not in marked:
                    _set_operand(op, 3 + k, _stacked(init, op, cache, p.factor))
                if id(op.results[k]) in marked and id(yld.operands[k]) not in marked:
                    _set_operand(yld, k, _stacked(yld.operands[k], yld, cache, p.factor))
            continue
        if not any(id(v) in marked for v in op.results) or op.name == "scf.yield" or op is p.q_reshape:
            continue
        for k in _row_operands_rewritten(op):
            x = op.operands[k]
            if id(x) in per_head:
                _set_operand(op, k, _per_head(x, op, p, heads, per_head, cache))
            elif id(x) not in marked:
                _set_operand(op, k, _stacked(x, op, cache, p.factor))

    # the stores: the row value reshaped to the (.., 2, BM, D) box at h2
    for st, v in p.stores:
        svt = st.view.type
        stile = _tile(svt)
        stile[p.axis] = p.factor
        sview_t = TiledViewType(stile, svt.memref, stile, [int(s.data) for s in svt.order.data])
        sview = aa.BlockTileOp(st.view.owner.operands[0], sview_t)
        old_tile = st.tile
        rs = aa.ReshapeOp(v, TensorType(v.type.element_type, stile))
        copy_location(st, [sview, rs])
        block.insert_ops_before([sview, rs], st)
        old_view = st.view
        st.operands = [sview.results[0] if x is old_view else rs.results[0] if x is old_tile else
                       h2 if id(x) in h_old else x for x in st.operands]
        _erase_unused(old_tile.owner)
    for v in cache.get("replaced", []):
        _erase_unused(v.owner)

    # the loop over pairs (one pair: its body inline)
    pairs = p.count // p.factor
    _erase_dead(p.head_values)
    for h_op in p.h_ops:
        if h_op.results[0].uses:
            raise AssertionError("the head index is still read")
        x = [v.owner for v in h_op.operands if v is not g]
        h_op.detach()
        h_op.erase()
        for op in x:  # the old base x = y * c where nothing else reads it
            if isinstance(op, Operation) and op.parent is not None and op.name.endswith("muli") \
                    and not op.results[0].uses:
                op.detach()
                op.erase()
    if pairs > 1:
        ub = _int_const(pairs, loop.ub)
        copy_location(loop, [ub])
        loop.parent_block().insert_op_before(ub, loop)
        _set_operand(loop, 1, ub.result)
    else:
        zero = _int_const(0, g)
        copy_location(loop, [zero])
        loop.parent_block().insert_op_before(zero, loop)
        g.replace_all_uses_with(zero.result)
        for arg, init in zip(block.args[1:], loop.operands[3:]):
            arg.replace_all_uses_with(init)
        yld = block.last_op
        for r, y in zip(loop.results, yld.operands):
            r.replace_all_uses_with(y)
        yld.detach()
        yld.erase()
        for op in list(block.ops):
            op.detach()
            loop.parent_block().insert_op_before(op, loop)
        loop.detach()
        loop.erase()
    _erase_dead_views(p.fn)


def _head_indices(p: Plan, block: Block) -> list[SSAValue]:
    """``h_i = x + F g + i`` for ``i < F`` (``g``: the loop's index, the group of F heads), at the body's start."""
    from tileorch.dialects import nv_tileaa as aa

    h_op = p.h_ops[0]
    g = block.args[0]
    x = h_op.operands[0] if h_op.operands[1] is g else h_op.operands[1]
    add = aa.AddIOp if h_op.name == "nv_tileaa.addi" else arith.AddiOp
    mul = aa.MulIOp if h_op.name == "nv_tileaa.addi" else arith.MuliOp
    fc = _int_const(p.factor, g)
    fg = mul(g, fc.result)
    first = add(x, fg.results[0])
    ops, out = [fc, fg, first], []
    for i in range(p.factor):
        if i == 0:
            out.append(first.results[0])
            continue
        c = _int_const(i, g)
        hi = add(first.results[0], c.result)
        ops += [c, hi]
        out.append(hi.results[0])
    copy_location(h_op, ops)
    block.insert_ops_before(ops, block.first_op)
    return out


def _per_head(v: SSAValue, before: Operation, p: Plan, heads: list[SSAValue], per_head: set, cache: dict) -> SSAValue:
    """A head-computed value ``v`` of ``BM`` rows as ``F BM`` rows whose block ``i`` is ``v`` of head ``h_i``: its
    ops cloned once per head (``h`` read as ``h_i``) before ``before``, each copy stacked on itself
    (:func:`_stacked`), then ``select(row < BM, copy 0, select(row < 2 BM, copy 1, ..))``."""
    from tileorch.dialects import nv_tileaa as aa
    from tileorch.dialects.nv_tileaa import tile_ops as tops

    key = ("head", id(v), id(before))
    if key in cache:
        return cache[key]
    h_vals = {id(o.results[0]) for o in p.h_ops}
    copies = []
    for i, hi in enumerate(heads):
        memo: dict[int, SSAValue] = {}

        def build(x: SSAValue) -> SSAValue:
            if id(x) in h_vals:
                return hi
            if id(x) not in per_head:
                return x
            if id(x) in memo:
                return memo[id(x)]
            op = x.owner
            operands = [build(y) for y in op.operands]
            new = op.clone()
            new.operands = operands
            copy_location(before, [new])
            before.parent_block().insert_op_before(new, before)
            for r_old, r_new in zip(op.results, new.results):
                memo[id(r_old)] = r_new
            return memo[id(x)]

        copies.append(_stacked(build(v), before, {}, p.factor))
    t = copies[0].type
    shape = list(t.get_shape())
    ops = [aa.MakeRangeOp.build(properties={"start": IntegerAttr(0, 32), "end": IntegerAttr(shape[0], 32)},
                                result_types=[TensorType(IntegerType(32), [shape[0]])])]
    row = ops[-1].results[0]
    i32t = IntegerType(32)
    if len(shape) == 2:
        ops.append(aa.ExpandDimsOp.build(operands=[row], properties={"dim": IntegerAttr(1, 32)},
                                         result_types=[TensorType(i32t, [shape[0], 1])]))
        ops.append(aa.BroadcastOp.build(operands=[ops[-1].results[0]], result_types=[TensorType(i32t, shape)]))
        row = ops[-1].results[0]
    out = copies[-1]
    for i in range(len(copies) - 2, -1, -1):
        c = arith.ConstantOp(IntegerAttr((i + 1) * p.rows, 32))
        sp = aa.SplatOp.build(operands=[c.result], result_types=[TensorType(i32t, [1] * len(shape))])
        bc = aa.BroadcastOp.build(operands=[sp.results[0]], result_types=[TensorType(i32t, shape)])
        cmp = tops.CmpIOp(row, bc.results[0], "slt")
        sel = tops.SelectOp(cmp.results[0], copies[i], out)
        ops += [c, sp, bc, cmp, sel]
        out = sel.results[0]
    copy_location(before, ops)
    before.parent_block().insert_ops_before(ops, before)
    cache[key] = out
    return out


def _erase_dead(values: list[SSAValue]) -> None:
    """Erase the ops of ``values`` nothing reads any more (the head-computed values, built per head), users first."""
    ops = {id(v.owner): v.owner for v in values if isinstance(v.owner, Operation)}
    changed = True
    while changed:
        changed = False
        for k, op in list(ops.items()):
            if op.parent is not None and not any(r.uses for r in op.results):
                op.detach()
                op.erase()
                del ops[k]
                changed = True


def _row_operands_rewritten(op: Operation) -> list[int]:
    """The row operand positions of ``op`` (after its results were retyped: the rows doubled)."""
    name = op.name
    if name == "nv_tileaa.dot":
        return [0, 2]
    if name in ("nv_tileaa.reduce", "nv_tileaa.expand_dims", "nv_tileaa.broadcast"):
        return [0]
    return [k for k, v in enumerate(op.operands) if isinstance(v.type, TensorType)]


def _erase_unused(op) -> None:
    """Erase ``op`` and the ops only it read, while they have no uses (the old store tile's reshapes)."""
    while isinstance(op, Operation) and op.parent is not None and not any(r.uses for r in op.results) \
            and op.name in ("nv_tileaa.expand_dims", "nv_tileaa.reshape", "nv_tileaa.broadcast", "nv_tileaa.splat",
                            "arith.constant"):
        src = op.operands[0].owner if op.operands else None
        op.detach()
        op.erase()
        op = src


def _erase_dead_views(fn: Operation) -> None:
    for op in list(fn.walk()):
        if op.name == "nv_tileaa.block_tile" and not op.results[0].uses:
            op.detach()
            op.erase()


# ------------------------------------------------------------------------------------------------------- driver


def _plan_or_none(fn: Operation, said: list | None = None) -> tuple[Plan | None, str | None]:
    from tileorch import settings

    if settings.value(ENV) == "0":
        return None, None
    try:
        return plan(fn), None
    except _AutoOff as off:
        if said is not None:
            said.append(format_error(off.loop, str(off), "remark"))
        return None, None
    except _Why:
        return None, None
    except Exception as exc:  # noqa: BLE001 - an optional rewrite's bug must not stop the program's compile
        from tileorch import settings

        if settings.raise_internal_errors():
            raise
        return None, f"{type(exc).__name__}: {exc}"


def stack_query_heads(module: Operation) -> int:
    """Stack every function of ``module`` that matches; returns how many."""
    n = 0
    for fn in [o for o in module.walk() if o.name == "nv_tileaa.func"]:
        p, _ = _plan_or_none(fn)
        if p is None:
            continue
        apply(p)
        n += 1
    return n


def stack_query_heads_remarks(module: Operation) -> list[str]:
    """The remark per function the pass will stack, located at its head loop (read before the tier runs); a
    warning where the analysis failed (the function left as written)."""
    out = []
    for fn in [o for o in module.walk() if o.name == "nv_tileaa.func"]:
        p, error = _plan_or_none(fn, out)
        if error is not None:
            out.append(f"warning: internal error in tileas-stack-query-heads on {fn.sym_name.data} ({error}); the "
                       "program is left as written (this is a tileorch bug, please report it)")
        if p is None:
            continue
        out.append(format_error(p.loop, f"the {p.count} query heads of this loop share their K / V tiles: run "
                                         f"{p.factor} at a time as one chain of {p.factor * p.rows} rows (each K / V "
                                         f"tile read once for the {p.factor}; tileas-stack-query-heads)", "remark"))
    return out


def stack_query_heads_why(module: Operation) -> str | None:
    """Why the first function with a head loop is not stacked, or None (``common.first_refusal``)."""
    return first_refusal(module, plan, _Why)


@dataclass(frozen=True)
class StackQueryHeads(ModuleTransform):
    """G query heads of a loop sharing K / V run two at a time as one chain of twice the rows (module doc)."""

    name = "tileas-stack-query-heads"
    transform = staticmethod(stack_query_heads)
