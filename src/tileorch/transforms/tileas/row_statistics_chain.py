"""``tileas-row-statistics-chain``: a key loop whose one dot's product is only reduced by rows (the log-sum-exp of
attention scores alone, a backward's recomputed statistics) gets a second dot whose result nothing reads, so that
the chained tensor-core kernel (TMA + WGMMA, warp-specialized) runs it.

The tensor-core tiers take a dot accumulated over its loop (a GEMM) or a chain of two dots (attention).  A loop::

    for j in range(n):
        k = load(K, j)                               # [tn, d]
        s = dot(q, transpose(k), zeros)              # a fresh product each step
        m, l = online row max / sum of f(s)          # row vectors carried
    store(LSE, m + log(l))

is neither (``convert_to_cutlass.UNACCUMULATED_DOT``).  The chained kernel runs ``s = dot(q, k^T)``, the program's ops
in the accumulator's registers and the row vectors' carried registers as written; its second dot is what this pass
adds: ``u = dot(s as k's type, k, u)`` over the same K tile (the chained kernel reads a second dot's B from the
first dot's ring stage: no second load), ``u`` carried from zeros and never read or stored.  What the program
computes is unchanged (the new dot reads the program's values and writes only ``u``); the kernel spends one WGMMA
chain of ``tm x d x tn`` per tile on ``u`` (the price of the chained kernel's shape: a forward's P V), paid back
by the TMA ring and the WGMMA first dot against the SIMT path's mma.sync.

Matched: a function with one dot, in its only top-level dot loop; the dot's accumulator is not carried (a constant),
its B a 2-D f16 / bf16 tile the loop loads (through reshapes), or the transpose (``permute [1, 0]``) of one (the
second dot then reads the loaded tile: N-major, or its transpose: K-major); its result read only inside the loop and reaching the loop's carried values only through reductions; no store in
the loop (a score tile stored per key tile is not row statistics).  The function carries :data:`ATTR` (the chained record's ``unread_second_dot``, the
driver's remark).  Anything else is left as written."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (BFloat16Type, DenseArrayBase, DenseIntOrFPElementsAttr, Float16Type, TensorType,
                                   UnitAttr, f32, i32)
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from tileorch.diagnostics import copy_location, format_error
from tileorch.transforms.pass_kinds import ModuleTransform

ATTR = "tileorch.unread_second_dot"
ENV = "TILEORCH_ATTN_UNREAD_SECOND_DOT"
"""``0``: no second dot added (such a program then takes the SIMT path)."""
_DOT = "nv_tileaa.dot"


@dataclass
class _Match:
    loop: scf.ForOp
    dot: Operation
    b: SSAValue  # the [tn, d] tile the dot's B transposes


def _carried(v: SSAValue, limit: int = 64) -> bool:
    stack, seen = [v], set()
    while stack and len(seen) < limit:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, BlockArgument):
            if isinstance(x.block.parent_op(), scf.ForOp):
                return True
            continue
        stack.extend(x.owner.operands)
    return False


def _loaded_tile(v: SSAValue, body) -> bool:
    """Whether ``v`` is a tile load of the loop body, through reshapes."""
    while isinstance(v, OpResult) and v.owner.name == "nv_tileaa.reshape":
        v = v.owner.operands[0]
    return isinstance(v, OpResult) and v.owner.name == "nv_tileaa.tiled_load" and v.owner.parent_block() is body


def match(fn: Operation) -> _Match | None:
    from tileorch.transforms.tileas.fuse_split_loops import innermost_dot_loops

    dots = [o for o in fn.walk() if o.name == _DOT]
    loops = innermost_dot_loops(fn)
    block = fn.regions[0].blocks.first if fn.regions and fn.regions[0].blocks else None
    if len(dots) != 1 or len(loops) != 1 or block is None or loops[0].parent_block() is not block:
        return None
    loop, dot = loops[0], dots[0]
    body = loop.body.block
    if dot.parent_block() is not body or _carried(dot.operands[2]):
        return None
    if any(any(w in o.name for w in ("store", "atomic", "scatter", "print")) for o in loop.walk()):
        return None  # (a product stored per key tile: the scores themselves, not row statistics)
    bt = dot.operands[1]
    if (isinstance(bt, OpResult) and bt.owner.name == "nv_tileaa.permute"
            and list(bt.owner.permutation.get_values()) == [1, 0]):
        b = bt.owner.operands[0]  # K as [tn, d], transposed for the dot: the second dot reads it N-major
    else:
        b = bt  # K stored transposed ([d, tn] tiles): the second dot reads its transpose (K-major)
    if not isinstance(b.type, TensorType) or len(b.type.get_shape()) != 2 or not _loaded_tile(b, body):
        return None
    if not isinstance(b.type.element_type, Float16Type | BFloat16Type):
        return None
    if any(not loop.is_ancestor(u.operation) for u in dot.results[0].uses) or not _only_reduced(dot, body):
        return None
    return _Match(loop, dot, b)


def _only_reduced(dot: Operation, body) -> bool:
    """Whether every use of ``dot``'s product that reaches the loop's yield passes a reduction first (the row
    statistics); ``acc = acc + dot(a, b, zeros)`` (a GEMM written with a fresh product, which
    ``tileas-fold-dot-accumulate`` folds) carries the product itself."""
    work, seen = [dot.results[0]], set()
    while work:
        v = work.pop()
        for use in v.uses:
            op = use.operation
            if id(op) in seen:
                continue
            seen.add(id(op))
            if op is body.last_op:
                return False
            if op.name == "nv_tileaa.reduce":
                continue
            work.extend(op.results)
    return True


def apply(m: _Match) -> None:
    from tileorch.dialects import nv_tileaa as aa

    loop, dot, b = m.loop, m.dot, m.b
    tm, tn = dot.results[0].type.get_shape()
    body = loop.body.block
    if b is dot.operands[1]:  # [d, tn]: its transpose
        rows, cols = b.type.get_shape()
        t = aa.PermuteOp.create(operands=[b], result_types=[TensorType(b.type.element_type, [cols, rows])],
                                properties={"permutation": DenseArrayBase.from_list(i32, [1, 0])})
        copy_location(dot, [t])
        body.insert_op_before(t, body.last_op)
        b = t.results[0]
    d = b.type.get_shape()[1]
    acc_t = TensorType(f32, [tm, d])
    zeros = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(acc_t, [0.0]))
    copy_location(loop, [zeros])
    loop.parent_block().insert_op_before(zeros, loop)
    old_yield = body.last_op
    arg = body.insert_arg(acc_t, len(body.args))
    a = aa.FpToFpOp(dot.results[0], TensorType(b.type.element_type, [tm, tn]))
    a.properties["rounding"] = aa.RoundingModeAttr("rn")
    u = aa.DotOp(a.results[0], b, arg)
    copy_location(dot, [a, u])
    body.insert_op_before(a, old_yield)
    body.insert_op_before(u, old_yield)
    new_yield = scf.YieldOp(*old_yield.operands, u.results[0])
    body.insert_op_before(new_yield, old_yield)
    old_yield.detach()
    old_yield.erase()
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, zeros.result], loop.detach_region(0))
    copy_location(loop, [new_loop])
    loop.parent_block().insert_op_before(new_loop, loop)
    for old, new in zip(loop.results, new_loop.results):
        old.replace_all_uses_with(new)
    loop.detach()
    loop.erase()


def _match_or_none(fn: Operation) -> tuple[_Match | None, str | None]:
    """(the match or None, None), or (None, the error) where the analysis itself failed (a tileorch bug: the function
    is left as written, and :func:`row_statistics_remarks` says so)."""
    from tileorch import settings

    if settings.value(ENV) == "0":
        return None, None
    try:
        return match(fn), None
    except Exception as exc:  # noqa: BLE001 - an optional rewrite's bug must not stop the program's compile
        from tileorch import settings

        if settings.raise_internal_errors():
            raise
        return None, f"{type(exc).__name__}: {exc}"


def row_statistics_chain(module: Operation) -> int:
    n = 0
    for fn in [o for o in module.walk() if o.name == "nv_tileaa.func"]:
        if ATTR in fn.attributes:
            continue
        m, _ = _match_or_none(fn)
        if m is None:
            continue
        apply(m)
        fn.attributes[ATTR] = UnitAttr()
        n += 1
    return n


def row_statistics_remarks(module: Operation) -> list[str]:
    """The remark per function the pass rewrites, at its dot (read before the tier runs)."""
    out = []
    for fn in [o for o in module.walk() if o.name == "nv_tileaa.func"]:
        m, error = _match_or_none(fn)
        if error is not None:
            out.append(f"warning: internal error in tileas-row-statistics-chain on {fn.sym_name.data} ({error}); the "
                       "program is left as written (this is a tileorch bug, please report it)")
        if m is not None:
            out.append(format_error(m.dot, "this dot's product is only reduced over its loop (row statistics such as a "
                                           "log-sum-exp): the chained tensor-core kernel runs it as its first dot, "
                                           "with a second dot over the same K tile whose result nothing reads "
                                           "(tileas-row-statistics-chain; one WGMMA chain per tile spent on it)",
                                    "remark"))
    return out


@dataclass(frozen=True)
class RowStatisticsChain(ModuleTransform):
    """A loop's one dot whose product is only reduced gets an unread second dot (see the module doc)."""

    name = "tileas-row-statistics-chain"
    transform = staticmethod(row_statistics_chain)
