"""``tileas-split-chains``: a program that runs G independent copies of one dot chain (two attention heads a
program, written out side by side in one key loop) becomes a program of one chain, launched G times as many times.

The tensor-core tiers run one chain per program (one Q tile, one ring of K / V tiles).  A program such as::

    q0 = load(Q, (b, 2 * p, qt, 0)); q1 = load(Q, (b, 2 * p + 1, qt, 0))
    for j in range(n):                       # one loop, two chains over their own tiles and state
        k0 = load(K, (b, 2 * p, j, 0)); k1 = load(K, (b, 2 * p + 1, j, 0))
        ... m0, l0, acc0 = step(q0, k0, v0, ...);  m1, l1, acc1 = step(q1, k1, v1, ...)
    store(O, (b, 2 * p, qt, 0), acc0 / l0);  store(O, (b, 2 * p + 1, qt, 0), acc1 / l1)

is, for ``part`` in ``0 .. G-1``, the program of chain ``part`` alone: the chains share no loop-carried value and
no tile (each store's backward slice, followed through the loop's carried positions, meets no other chain's), so
the launch's program ``x`` along axis 0 becomes the G programs ``G x + part`` each computing one chain.  The
rewrite keeps chain 0's ops and reads ``part`` where the chains differ, when, and only when, it cannot change what
the program computes:

* the function has one loop holding dots, at its top level; every op that writes memory is a tile store at the
  function's top level (after the loop);
* the stores fall into G >= 2 groups whose slices share no carried position of the loop and no op other than
  side-effect-free ones every chain reads (views, constants, the scale, program ids); every carried position
  belongs to one group; each group holds a dot;
* chain g's own ops are chain 0's, op for op in program order (names, attributes, result types, nested regions),
  reading the corresponding values, except scalar integers (tile indices) whose affine forms (sums and constant
  multiples of program ids, arguments and the loop's index) differ from chain 0's by a constant ``d_g`` with
  ``d_g = g s`` (two chains: any ``s``): the kept op reads ``v + part s``;
* no array a store writes is read by any load of the function, and the G corresponding stores write different
  tiles of one array (an index differing by ``g s``, ``s != 0``): the G programs write what the one wrote.

Program id 0 is then read as ``pid // G`` (and ``part = pid - G (pid // G)``), the grid's extent along axis 0 as
``nctaid // G``, and the function carries :data:`GRID_SPLIT` ``[axis, G]``: the chained kernel's record keeps it
and the launcher multiplies the launch grid's axis 0 by G (:func:`scaled_grid`).  A program that does not match
is left as written (the tier then refuses it, with its reason)."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, IndexType, i32
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from tileorch.diagnostics import copy_location, format_error
from tileorch.transforms.pass_kinds import ModuleTransform
from tileorch.transforms.tileas.common import first_refusal

GRID_SPLIT = "tileorch.grid_split"
"""``DenseArray<i32>`` ``[axis, G]`` on a function whose program ``x`` along ``axis`` is G launched programs."""

AXIS = 0
ENV = "TILEORCH_ATTN_SPLIT_CHAINS"
"""``0``: no function is split (the program as written: such a program then takes the SIMT path)."""
_STORE = "nv_tileaa.tiled_store"
_LOAD_NAMES = ("nv_tileaa.tiled_load", "nv_tileaa.load", "nv_tileaa.gather")


def scaled_grid(record: dict, grid3: tuple[int, int, int]) -> tuple[int, int, int]:
    """The launch grid of a chained kernel whose record holds ``grid_split`` ``[axis, G]`` (the program's grid
    ``grid3`` with that axis times G); ``grid3`` itself otherwise."""
    split = record.get("grid_split")
    if not split:
        return tuple(grid3)
    axis, g = int(split[0]), int(split[1])
    out = list(grid3)
    out[axis] *= g
    return tuple(out)


def _is_token(v: SSAValue) -> bool:
    return "token" in type(v.type).__name__.lower()


def _int_scalar(v: SSAValue) -> bool:
    return isinstance(v.type, IntegerType | IndexType)



@dataclass
class Plan:
    """A split found by :func:`plan`: the loop, the G groups' exclusive ops and stores, the varying scalar
    operands (``(op, operand index) -> step``) and the kept loop positions."""

    fn: Operation
    loop: scf.ForOp
    groups: list[list[Operation]]
    stores: list[list[Operation]]
    positions: list[set[int]]
    varying: dict[tuple[int, int], int] = field(default_factory=dict)
    ops0: dict[int, Operation] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.groups)


class _Why(Exception):
    pass


class _Slicer:
    """Backward slices over data operands (memory tokens aside), through the loop's carried positions."""

    def __init__(self, loop: scf.ForOp):
        self.loop = loop
        self.body = loop.body.block
        self.top = loop.parent_block()

    def anchor(self, op: Operation) -> Operation:
        """``op``'s ancestor in the function's block or the loop's body."""
        while op.parent_block() is not self.top and op.parent_block() is not self.body:
            op = op.parent_op()
        return op

    def slice(self, roots: list[Operation]) -> tuple[set[int], set[int], list[Operation]]:
        """(op ids, carried positions, ops) of the backward slice of ``roots``."""
        seen: set[int] = set()
        ops: list[Operation] = []
        positions: set[int] = set()
        work: list[SSAValue] = []

        def add_op(op: Operation) -> None:
            if id(op) in seen or op is self.loop:
                return
            seen.add(id(op))
            ops.append(op)
            for nested in op.walk():
                for x in nested.operands:
                    if not _is_token(x):
                        work.append(x)

        def add_position(i: int) -> None:
            if i in positions:
                return
            positions.add(i)
            work.append(self.loop.iter_args[i])
            work.append(self.body.last_op.operands[i])

        for r in roots:
            add_op(r)
        while work:
            v = work.pop()
            if isinstance(v, BlockArgument):
                if v.block is self.body and v.index > 0:
                    add_position(v.index - 1)
                elif v.block is not self.body and v.block is not self.top:
                    owner = self.anchor(v.block.parent_op())
                    if owner is not self.loop:
                        add_op(owner)
                continue
            if v.owner is self.loop:
                add_position(v.index)
                continue
            owner = self.anchor(v.owner)
            if owner is not self.loop:
                add_op(owner)
        return seen, positions, ops


def _affine(v: SSAValue, iv: SSAValue) -> tuple[dict, int] | None:
    """``v`` as ``sum c_a a + c0`` over atoms (program ids by axis, arguments, the loop index, other values by
    identity), or None when it is not an integer scalar."""
    if not _int_scalar(v):
        return None
    if isinstance(v, OpResult):
        op = v.owner
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            return {}, op.value.value.data
        if op.name == "nv_tileaa.get_program_id" and not op.operands:
            return {("pid", op.axis.value.data): 1}, 0
        if op.name == "nv_tileaa.assume" and len(op.operands) == 1:
            return _affine(op.operands[0], iv)
        if op.name in ("nv_tileaa.addi", "arith.addi", "nv_tileaa.subi", "arith.subi") and len(op.operands) == 2:
            a, b = _affine(op.operands[0], iv), _affine(op.operands[1], iv)
            if a is not None and b is not None:
                sign = -1 if "subi" in op.name else 1
                out = dict(a[0])
                for k, c in b[0].items():
                    out[k] = out.get(k, 0) + sign * c
                return {k: c for k, c in out.items() if c}, a[1] + sign * b[1]
        if op.name in ("nv_tileaa.muli", "arith.muli") and len(op.operands) == 2:
            a, b = _affine(op.operands[0], iv), _affine(op.operands[1], iv)
            if a is not None and b is not None:
                if not a[0]:
                    a, b = b, a
                if not b[0]:
                    return {k: c * b[1] for k, c in a[0].items() if c * b[1]}, a[1] * b[1]
    return {("value", id(v)): 1}, 0


def _scalar_int_op(op: Operation) -> bool:
    """A side-effect-free op computing integer scalars (an index expression): matched by value, not by op."""
    return (bool(op.results) and all(_int_scalar(r) for r in op.results) and not op.regions
            and not any(op.name.startswith(p) for p in _LOAD_NAMES) and op.name != "nv_tileaa.get_program_id"
            and (op.name.startswith("arith.") or op.name in ("nv_tileaa.addi", "nv_tileaa.subi", "nv_tileaa.muli",
                                                             "nv_tileaa.assume")))


def plan(fn: Operation) -> Plan:
    """The split of ``fn`` (a :class:`_Why` says why there is none)."""
    from tileorch.transforms.tileas.fuse_split_loops import innermost_dot_loops

    block = fn.regions[0].blocks.first if fn.regions and fn.regions[0].blocks else None
    loops = innermost_dot_loops(fn)
    if block is None or len(loops) != 1 or loops[0].parent_block() is not block:
        raise _Why("not one top-level dot loop")
    loop = loops[0]
    writes = []
    for op in fn.walk():
        if op is fn:
            continue
        if op.name == _STORE:
            if op.parent_block() is not block or not loop.is_before_in_block(op):
                raise _Why("a store not after the loop")
            writes.append(op)
        elif any(w in op.name for w in ("store", "atomic", "scatter", "print", "assert")):
            raise _Why(f"'{op.name}' writes memory")
    if len(writes) < 2:
        raise _Why("one store")
    sl = _Slicer(loop)
    slices = [sl.slice([s]) for s in writes]
    # group the stores whose slices share a carried position or a dot
    parent = list(range(len(writes)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    dot_owner: dict[int, int] = {}
    for i, (ids, pos, ops) in enumerate(slices):
        for p in pos:
            key = -1 - p
            if key in dot_owner:
                parent[find(i)] = find(dot_owner[key])
            dot_owner[key] = i
        for o in ops:
            if any(x.name == "nv_tileaa.dot" for x in o.walk()):
                if id(o) in dot_owner:
                    parent[find(i)] = find(dot_owner[id(o)])
                dot_owner[id(o)] = i
    roots = sorted({find(i) for i in range(len(writes))})
    if len(roots) < 2:
        raise _Why("one chain")
    stores = [[writes[i] for i in range(len(writes)) if find(i) == r] for r in roots]
    gslices = [sl.slice(st) for st in stores]
    count: dict[int, int] = {}
    for ids, _, _ in gslices:
        for k in ids:
            count[k] = count.get(k, 0) + 1
    positions = [pos for _, pos, _ in gslices]
    allpos = set().union(*positions)
    if len(allpos) != sum(len(p) for p in positions) or allpos != set(range(len(loop.iter_args))):
        raise _Why("carried values not each of one chain")
    order = {id(o): n for n, o in enumerate(fn.walk())}
    body = loop.body.block
    for ids, _, ops in gslices:
        shared = [o for o in ops if count[id(o)] > 1 and o.parent_block() is body
                  and any(o.name.startswith(n) for n in _LOAD_NAMES)]
        if shared:
            raise _Why("the chains read a tile of the loop together (GQA heads sharing K / V): the tier's kernel "
                       "runs them in one program")
    groups = []
    for ids, _, ops in gslices:
        own = sorted((o for o in ops if count[id(o)] == 1), key=lambda o: order[id(o)])
        if not _is_chain([o for o in own if o.parent_block() is body]):
            raise _Why("a group of stores without a chain of dots in the loop (a second dot reading a first's "
                       "result)")
        groups.append(own)
    p = Plan(fn, loop, groups, stores, positions)
    _match(p)
    _check_memory(p, fn)
    return p


def _is_chain(ops: list[Operation]) -> bool:
    """Whether a dot of ``ops`` (a loop body's) reads, through its A operand, another dot's result of the same
    iteration: the chained tier's shape (a group of lone dots would be the GEMM tier's, which reads no grid split)."""
    mine = {id(o) for o in ops}
    for d in ops:
        if d.name != "nv_tileaa.dot":
            continue
        work, seen = [d.operands[0]], set()
        while work:
            v = work.pop()
            if not isinstance(v, OpResult) or id(v.owner) in seen or id(v.owner) not in mine:
                continue
            seen.add(id(v.owner))
            if v.owner.name == "nv_tileaa.dot":
                return True
            work.extend(x for x in v.owner.operands if not _is_token(x))
    return False


def _match(p: Plan) -> None:
    """Chain g's own ops against chain 0's (see the module doc); fills ``p.varying``."""
    loop, iv = p.loop, p.loop.body.block.args[0]
    body = loop.body.block
    f0 = [o for o in p.groups[0] if not _scalar_int_op(o)]
    steps: dict[tuple[int, int], list[int]] = {}
    for o in f0:
        p.ops0[id(o)] = o
    pos_map: list[dict[int, int]] = []
    for g in range(1, p.count):
        fg = [o for o in p.groups[g] if not _scalar_int_op(o)]
        if len(fg) != len(f0):
            raise _Why(f"chain {g} has {len(fg)} ops of its own, chain 0 {len(f0)}")
        vmap: dict[int, SSAValue] = {}
        pmap: dict[int, int] = {}

        def same_pos(i_g: int, i_0: int) -> bool:
            if pmap.setdefault(i_g, i_0) != i_0:
                return False
            return True

        for a, b in zip(f0, fg):
            if (a.name != b.name or a.attributes != b.attributes or a.properties != b.properties
                    or [r.type for r in a.results] != [r.type for r in b.results] or len(a.operands) != len(b.operands)
                    or (a.parent_block() is body) != (b.parent_block() is body) or len(a.regions) != len(b.regions)):
                raise _Why(f"chain {g}'s '{b.name}' differs from chain 0's '{a.name}'")
            for ra, rb in zip(a.regions, b.regions):
                if not ra.is_structurally_equivalent(rb):
                    raise _Why(f"chain {g}'s '{b.name}' region differs")
            for k, (x, y) in enumerate(zip(a.operands, b.operands)):
                if x is y:
                    continue
                if id(y) in vmap:
                    if vmap[id(y)] is not x:
                        raise _Why(f"chain {g}'s '{b.name}' reads another value")
                    continue
                if isinstance(y, BlockArgument) and y.block is body and y.index > 0:
                    if not (isinstance(x, BlockArgument) and x.block is body and x.index > 0
                            and same_pos(y.index - 1, x.index - 1)):
                        raise _Why(f"chain {g}'s '{b.name}' reads another carried value")
                    continue
                if isinstance(y, OpResult) and y.owner is loop:
                    if not (isinstance(x, OpResult) and x.owner is loop and same_pos(y.index, x.index)):
                        raise _Why(f"chain {g}'s '{b.name}' reads another loop result")
                    continue
                if _is_token(x) and _is_token(y):
                    continue
                fa, fb = _affine(x, iv), _affine(y, iv)
                if fa is None or fb is None or fa[0] != fb[0]:
                    raise _Why(f"chain {g}'s '{b.name}' operand {k} differs from chain 0's by more than a constant")
                steps.setdefault((id(a), k), [0] * p.count)[g] = fb[1] - fa[1]
            for ra, rb in zip(a.results, b.results):
                vmap[id(rb)] = ra
        for i_g in p.positions[g]:
            y_init, y_yield = loop.iter_args[i_g], body.last_op.operands[i_g]
            i_0 = pmap.get(i_g)
            if i_0 is None or i_0 not in p.positions[0]:
                raise _Why(f"chain {g}'s carried value {i_g} has no counterpart")
            x_init, x_yield = loop.iter_args[i_0], body.last_op.operands[i_0]
            if vmap.get(id(y_yield)) is not x_yield and y_yield is not x_yield:
                raise _Why(f"chain {g}'s carried value {i_g} is not computed as chain 0's")
            if not (y_init is x_init or vmap.get(id(y_init)) is x_init):
                raise _Why(f"chain {g}'s carried value {i_g} starts from another value")
        pos_map.append(pmap)
    for key, ds in steps.items():
        s = ds[1]
        if any(d != g * s for g, d in enumerate(ds)):
            raise _Why(f"the chains' indices {ds} are not a progression")
        if s:
            p.varying[key] = s
    # the G corresponding stores write different tiles of one array
    for st0 in p.stores[0]:
        if not any((id(st0), k) in p.varying for k in range(2, len(st0.operands))):
            raise _Why("corresponding stores write the same tile")


def _bases(v: SSAValue, fn: Operation, limit: int = 256) -> set[int]:
    """The function's pointer arguments ``v`` (a view, a pointer tile) is computed from."""
    out, work, seen = set(), [v], set()
    while work and len(seen) < limit:
        x = work.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, BlockArgument):
            if x.block.parent_op() is fn and "ptr" in str(x.type):
                out.add(id(x))
            continue
        work.extend(y for y in x.owner.operands if not _is_token(y))
    return out


def _check_memory(p: Plan, fn: Operation) -> None:
    """No load of the function reads an array (a pointer argument) a store writes."""
    stored = set().union(*(_bases(s.operands[0], fn) for st in p.stores for s in st))
    # corresponding stores write different tiles (checked in _match); two stores of one chain into the
    # same array could still meet another chain's store of another rank (chain 0's second tile is
    # chain 1's first): after the split those are two programs racing where the program had one
    # order, so each chain stores an array once
    seen: set[int] = set()
    for s in p.stores[0]:
        b = _bases(s.operands[0], fn)
        if b & seen:
            raise _Why("two stores of a chain write the same array (another chain's tiles could meet them)")
        seen |= b
    for op in fn.walk():
        if any(op.name.startswith(n) for n in _LOAD_NAMES) and op.operands:
            if _bases(op.operands[0], fn) & stored:
                raise _Why("a load reads an array the program stores")


def _set_operand(op: Operation, k: int, v: SSAValue) -> None:
    op.operands = [*op.operands[:k], v, *op.operands[k + 1:]]


def apply(p: Plan) -> None:
    """Rewrite ``p.fn`` as the module doc says."""
    from tileorch.dialects import nv_tileaa as aa

    fn, loop, g = p.fn, p.loop, p.count
    block = fn.regions[0].blocks.first
    first = block.first_op
    pid = aa.GetProgramIdOp(AXIS)
    cg = arith.ConstantOp(IntegerAttr(g, i32))
    orig = arith.FloorDivSIOp(pid.result, cg.result)
    back = aa.MulIOp(orig.result, cg.result)
    part = aa.SubIOp(pid.result, back.result)
    new = [pid, cg, orig, back, part]
    copy_location(loop, new)
    for o in new:
        block.insert_op_before(o, first)
    for op in list(fn.walk()):
        if op is pid:
            continue
        if op.name == "nv_tileaa.get_program_id" and op.axis.value.data == AXIS and not op.operands:
            op.results[0].replace_all_uses_with(orig.result)
        elif op.name == "nv_tileaa.get_num_programs" and op.axis.value.data == AXIS:
            q = arith.FloorDivSIOp(op.results[0], cg.result)
            op.parent_block().insert_op_after(q, op)
            for use in list(op.results[0].uses):
                if use.operation is not q:
                    _set_operand(use.operation, use.index, q.result)
    # chain 0's varying scalars read part * step more
    for (oid, k), s in p.varying.items():
        op = p.ops0[oid]
        x = op.operands[k]
        cs = arith.ConstantOp(IntegerAttr(s, x.type))
        px = part.result if x.type == i32 else None
        extra = [cs]
        if px is None:
            cast = arith.IndexCastOp(part.result, x.type) if isinstance(x.type, IndexType) else arith.ExtSIOp(
                part.result, x.type)
            extra.append(cast)
            px = cast.results[0]
        mul = aa.MulIOp(px, cs.result)
        add = aa.AddIOp(x, mul.result)
        extra += [mul, add]
        copy_location(op, extra)
        for o in extra:
            op.parent_block().insert_op_before(o, op)
        _set_operand(op, k, add.result)
    # drop the other chains: their stores (tokens passed on), their own ops, their carried positions
    for st in p.stores[1:]:
        for s in st:
            tok = [x for x in s.operands if _is_token(x)]
            for r in s.results:
                if tok:
                    r.replace_all_uses_with(tok[0])
    dead = [o for grp in p.groups[1:] for o in grp]
    dead = _erasable(dead, _Slicer(loop))
    for o in reversed(dead):
        for r in o.results:
            for use in list(r.uses):
                if use.operation.name == "scf.yield" and use.operation.parent_op() is loop:
                    _set_operand(use.operation, use.index, loop.body.block.args[use.index + 1])
    keep = sorted(p.positions[0])
    _drop_positions(loop, keep)
    for o in reversed(dead):
        o.detach()
        o.erase(safe_erase=False)
    fn.attributes[GRID_SPLIT] = DenseArrayBase.from_list(i32, [AXIS, g])


def _erasable(ops: list[Operation], sl: _Slicer) -> list[Operation]:
    """``ops`` less those whose results something else reads (a shared constant the loop's bounds read too)."""
    dead = {id(o): o for o in ops}
    changed = True
    while changed:
        changed = False
        for o in list(dead.values()):
            for r in o.results:
                for use in r.uses:
                    user = use.operation
                    if user.name == "scf.yield" and user.parent_op() is sl.loop:
                        continue  # (a dropped carried position)
                    if id(sl.anchor(user)) not in dead:
                        del dead[id(o)]
                        changed = True
                        break
                if id(o) not in dead:
                    break
    return [o for o in ops if id(o) in dead]


def _drop_positions(loop: scf.ForOp, keep: list[int]) -> None:
    """Rebuild ``loop`` carrying only positions ``keep`` (the others' results unused afterwards)."""
    body = loop.body.block
    yield_op = body.last_op
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [loop.iter_args[i] for i in keep], loop.detach_region(0))
    copy_location(loop, [new_loop])
    nb = new_loop.body.block
    ylds = list(yield_op.operands)
    new_yield = scf.YieldOp(*[ylds[i] for i in keep])
    nb.insert_op_before(new_yield, yield_op)
    yield_op.detach()
    yield_op.erase()
    for i in sorted(set(range(len(ylds))) - set(keep), reverse=True):
        arg = nb.args[i + 1]
        if arg.uses:
            for use in list(arg.uses):  # (only the dropped chains' ops, erased next: a placeholder)
                _set_operand(use.operation, use.index, loop.iter_args[i])
        nb.erase_arg(arg)
    for n, i in enumerate(keep):
        loop.results[i].replace_all_uses_with(new_loop.results[n])
    loop.parent_block().insert_op_before(new_loop, loop)
    for r in loop.results:
        for use in list(r.uses):  # the dropped chains' reads after the loop (erased next)
            _set_operand(use.operation, use.index, loop.iter_args[r.index])
    loop.detach()
    loop.erase()


def _plan_or_none(fn: Operation) -> tuple[Plan | None, str | None]:
    """(the split, None), (None, None) where the function does not match, or (None, the error) where the analysis
    itself failed (a tileorch bug: the function is left as written, and :func:`split_chains_remarks` says so)."""
    from tileorch import settings

    if settings.value(ENV) == "0":
        return None, None
    try:
        return plan(fn), None
    except _Why:
        return None, None
    except Exception as exc:  # noqa: BLE001 - an optional rewrite's bug must not stop the program's compile
        from tileorch import settings

        if settings.raise_internal_errors():
            raise
        return None, f"{type(exc).__name__}: {exc}"


def split_chains(module: Operation) -> int:
    """Split every function of ``module`` that matches; returns how many."""
    n = 0
    for fn in [o for o in module.walk() if o.name == "nv_tileaa.func"]:
        if GRID_SPLIT in fn.attributes:
            continue
        p, _ = _plan_or_none(fn)
        if p is None:
            continue
        apply(p)
        n += 1
    return n


def split_chains_remarks(module: Operation) -> list[str]:
    """The remark per function the pass will split, located at its loop (read before the tier runs); a warning
    where the analysis failed (the function left as written)."""
    out = []
    for fn in [o for o in module.walk() if o.name == "nv_tileaa.func"]:
        p, error = _plan_or_none(fn)
        if error is not None:
            out.append(f"warning: internal error in tileas-split-chains on {fn.sym_name.data} ({error}); the program "
                       "is left as written (this is a tileorch bug, please report it)")
        if p is None:
            continue
        out.append(format_error(p.loop, f"{p.count} independent chains in one program (each its own loads, carried "
                                         f"values and stores: e.g. {p.count} heads a program) run as {p.count} "
                                         f"programs of the tensor-core kernel each, program x of grid axis {AXIS} "
                                         f"becoming programs {p.count}x .. {p.count}x+{p.count - 1} "
                                         "(tileas-split-chains)", "remark"))
    return out


def split_chains_why(module: Operation) -> str | None:
    """Why the first function with several stores is not split (for a refusal's note), or None
    (``common.first_refusal``)."""
    return first_refusal(module, plan, _Why)


@dataclass(frozen=True)
class SplitChains(ModuleTransform):
    """G independent chains of one program become G programs of one chain (see the module doc)."""

    name = "tileas-split-chains"
    transform = staticmethod(split_chains)
