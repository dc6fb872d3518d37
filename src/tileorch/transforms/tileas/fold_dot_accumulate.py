"""``tileas-fold-dot-accumulate``: ``acc += ct.matmul(a, b)`` becomes ``acc = ct.mma(a, b, acc)``.

cuTile writes ``acc += a @ b`` as a dot into a zero accumulator of the operands' type, a cast to
the accumulator's type and an add::

    %p = nv_tileaa.dot %a, %b, %zero      (f16 result)
    %w = nv_tileaa.fp_to_fp %p            (to f32; absent when the dot is already f32)
    %s = nv_tileaa.addf %acc, %w          (%acc carried by the loop, %s yielded back)

A bf16 dot accumulates in f32 (cuTile's only bf16 MMA), so ``a @ b`` of bf16 tiles is an f32 dot
rounded to bf16 and widened back to f32 for the add: two ``fp_to_fp`` between the dot and the add.

Inside a loop that carries ``%acc``, this is one dot accumulating into ``%acc``, the form the
tier's MMA lowering takes (one accumulator carried by the K loop).  The partial products are then
not rounded to the narrower type before the add (an f32-accumulating MMA: at least as accurate).
An integer dot (int8 operands, i32 result) added with ``addi`` folds the same way (exact: i32
addition wraps the same in any order).
Only single-use ``%p`` / casts (at most two), a zero accumulator constant and a loop-carried ``%acc`` are
rewritten; anything else is left alone.

Second rewrite: a K loop whose accumulator starts from a tile other than zeros (``C += A @ B``:
``acc = ct.load(C, ...)`` before the loop) starts it from zeros and adds the start after the loop::

    %r = scf.for ... iter_args(%acc = %c0) { %d = nv_tileaa.dot %a, %b, %acc; yield %d }
    ->  %r0 = scf.for ... iter_args(%acc = zeros) {...};  %r = nv_tileaa.addf %r0, %c0

(the tier's GEMM accumulators start at zero; the add is its epilogue).  Taken for an f32 or i32
accumulator whose loop argument only feeds the dot's accumulator and is yielded back as the dot's
result: the sum is the same up to the order of f32 additions (i32: exact).

Not taken when the start is the result of a dot loop that this loop continues over the next range of K tiles
(``range(a, X)`` then ``range(X, n)`` carrying one accumulator, :func:`~tileorch.transforms.tileas.loop_pair_fusion.
split_point`): ``tileas-fuse-split-loops`` fuses that pair into one loop when the accumulator runs from one loop
into the other, and the zero start would hide the pair (two K loops then left apart: refused).

Third rewrite: a 16-bit float dot from zeros whose only use widens it to f32 (``(q @ k.T).astype(
ct.float32)``: cuTile's ``@`` / ``ct.matmul`` of f16 tiles is an f16 dot) becomes the f32 dot
(the products not rounded to 16 bits: at least as accurate, as above); and a loop-carried
accumulator rescaled and added to such a dot, ``o = o * alpha + p @ v`` (one ``nv_tileaa.fma``
yielded back in ``o``'s place), becomes ``o = ct.mma(p, v, o * alpha)``: the form of
FlashAttention's second dot.

Fourth rewrite: an f16 dot from zeros whose result feeds another dot's operand through tile ops
(``h = relu(x @ w1)`` then ``y += h @ w2``) becomes the f32 dot and one ``fp_to_fp`` back to f16:
the chained kernels' first dot accumulates in f32 (rounded once: at least as accurate).

Fifth rewrite: a loop-carried accumulator plus a sum of products, ``acc += x @ w1 + z @ w2`` (an add of
two dots from zeros, each through at most two casts, the sum through at most two), becomes the chain
``acc = ct.mma(z, w2, ct.mma(x, w1, acc))`` (one product over two operand pairs, the form the tier's
WGMMA kernel runs with an A per dot): the products and their sum are not rounded to the operands'
16-bit type (f32 accumulation: at least as accurate), and the additions are reassociated.

Each rewrite above that drops a rounding of the product (a 16-bit or tf32 dot, or casts or a sum through such a
type, before an f32 add or use: the first, third and fifth) is a decision the user sees: the rewrites record the
dots whose rounding they drop as located remarks, at the dot, while they rewrite (:func:`_drops`), which the driver
states once the tier takes the kernel (:mod:`tileorch.transforms.remark_sink`; found by sweep 29: the tier had made it
silently).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (BFloat16Type, DenseIntOrFPElementsAttr, Float16Type, Float32Type, FloatTF32Type,
                                   IntegerType, ModuleOp, TensorType)
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from tileorch.dialects import nv_tileaa as aa
from tileorch.transforms.dense_splat import splat_value
from tileorch.transforms.remark_sink import sink


def is_zero(v: SSAValue) -> bool:
    """``v`` is a tile of zeros: a dense constant of zeros or a splat of a zero constant.

    A dense constant is read by :func:`tileorch.transforms.dense_splat.splat_value` (one bytes
    comparison, not a Python float per element: a 128 x 256 accumulator's zeros were 32768 of
    them, asked of a GEMM's tile program a few times per compile); its answer is the set test's
    (``-0.0`` and ``0.0`` are one zero, a NaN tile is none)."""
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, DenseIntOrFPElementsAttr):
        splat, value = splat_value(op.value)
        return splat and float(value) == 0.0
    if isinstance(op, Operation) and op.name == "nv_tileaa.splat":
        src = op.operands[0].owner
        return isinstance(src, arith.ConstantOp) and float(src.value.value.data) == 0.0
    return False


def _carried(v: SSAValue, add: Operation) -> bool:
    """``v`` is a loop-carried block argument of an ``scf.for`` that yields ``add``'s result back
    in its place."""
    if not isinstance(v, BlockArgument) or v.index == 0:
        return False
    loop = v.block.parent_op()
    if not isinstance(loop, scf.ForOp):
        return False
    yielded = v.block.last_op
    return isinstance(yielded, scf.YieldOp) and yielded.operands[v.index - 1] is add.results[0]


def _drops(dropped: list[str] | None, dot: Operation, acc_type, types) -> None:
    """Say in ``dropped`` (a located ``remark:`` at ``dot``, once per dot) that a rewrite accumulates ``dot``'s product
    in ``acc_type`` without cuTile's rounding to the first narrower float of ``types`` (the dot's result and the casts /
    sums between it and the accumulation), when ``acc_type`` holds f32 and one of ``types`` is narrower.  Called
    before the rewrite detaches ``dot`` (its location is read here)."""
    if dropped is None or not isinstance(getattr(acc_type, "element_type", None), Float32Type):
        return
    narrow = next((n for n in (_narrow_name(t) for t in types) if n is not None), None)
    if narrow is not None:
        from tileorch.diagnostics import format_error

        line = format_error(dot, f"this dot's product, which cuTile rounds to {narrow} (ct.matmul / @ of {narrow} "
                                 f"tiles gives {narrow} values), is used in f32 without that rounding: the WGMMA "
                                 "accumulates the products in f32 (at least as accurate; tileas-fold-dot-accumulate)",
                            "remark")
        if line not in dropped:
            dropped.append(line)


def fold(add: Operation, dropped: list | None = None) -> bool:
    """The first rewrite (module doc); whether it was made (the dot whose rounding it drops appended to
    ``dropped``, :func:`_drops`)."""
    for acc, other in ((add.operands[0], add.operands[1]), (add.operands[1], add.operands[0])):
        if not _carried(acc, add):
            continue
        casts = []
        prod = other
        while isinstance(prod.owner, aa.FpToFpOp) and len(casts) < 2:
            casts.append(prod.owner)
            prod = prod.owner.operands[0]
        dot = prod.owner
        if not isinstance(dot, aa.DotOp) or not is_zero(dot.acc):
            continue
        if len(list(dot.result.uses)) != 1 or any(len(list(c.results[0].uses)) != 1 for c in casts):
            continue
        if dot.result.type.get_shape() != acc.type.get_shape():
            continue
        _drops(dropped, dot, acc.type, [dot.result.type, *(c.results[0].type for c in casts)])
        new = aa.DotOp(dot.lhs, dot.rhs, acc)
        for key in ("matmul_fast_accum", "signedness_a", "signedness_b"):
            if key in dot.properties:
                new.properties[key] = dot.properties[key]
        add.parent_block().insert_op_before(new, add)
        add.results[0].replace_all_uses_with(new.result)
        for op in (add, *casts, dot):
            op.detach()
            op.erase()
        return True
    return False


def _strip_casts(v: SSAValue) -> tuple[SSAValue, list[Operation]]:
    """``v`` through at most two single-use ``fp_to_fp`` casts, and those casts."""
    casts = []
    while isinstance(v.owner, aa.FpToFpOp) and len(casts) < 2 and len(list(v.uses)) == 1:
        casts.append(v.owner)
        v = v.owner.operands[0]
    return v, casts


def fold_sum(add: Operation, dropped: list | None = None) -> bool:
    """The fifth rewrite (module doc): ``acc + (dot(x, w1, 0) + dot(z, w2, 0))`` with ``acc`` carried by the loop
    becomes ``dot(z, w2, dot(x, w1, acc))``."""
    for acc, other in ((add.operands[0], add.operands[1]), (add.operands[1], add.operands[0])):
        if not _carried(acc, add):
            continue
        total, outer = _strip_casts(other)
        inner = total.owner
        if not isinstance(inner, type(add)) or len(list(inner.results[0].uses)) != 1:
            continue
        parts = [_strip_casts(v) for v in inner.operands]
        dots = [v.owner for v, _ in parts]
        if not all(isinstance(d, aa.DotOp) and is_zero(d.acc) and len(list(d.result.uses)) == 1
                   and d.result.type.get_shape() == acc.type.get_shape() for d in dots) or dots[0] is dots[1]:
            continue
        for d, (_, cs) in zip(dots, parts):
            _drops(dropped, d, acc.type, [d.result.type, *(c.results[0].type for c in cs), total.type,
                                          *(c.results[0].type for c in outer)])
        chained = acc
        for d in dots:
            new = aa.DotOp(d.lhs, d.rhs, chained)
            for key in ("matmul_fast_accum", "signedness_a", "signedness_b"):
                if key in d.properties:
                    new.properties[key] = d.properties[key]
            add.parent_block().insert_op_before(new, add)
            chained = new.result
        add.results[0].replace_all_uses_with(chained)
        for op in (add, *outer, inner, *(c for _, cs in parts for c in cs), *dots):
            op.detach()
            op.erase()
        return True
    return False


def hoist_start(loop: scf.ForOp, i: int) -> bool:
    """Start accumulator ``i`` of ``loop`` (its ``i``-th iteration argument) from zeros and add its
    start after the loop (the module docstring's second rewrite); whether it was rewritten."""
    arg = loop.body.blocks.first.args[i + 1]
    start = loop.operands[3 + i]
    uses = list(arg.uses)
    if len(uses) != 1 or is_zero(start) or _continues_a_split_pair(start, loop):
        return False
    dot = uses[0].operation
    if not isinstance(dot, aa.DotOp) or dot.acc is not arg or dot.lhs is arg or dot.rhs is arg:
        return False
    yielded = loop.body.blocks.first.last_op
    if not isinstance(yielded, scf.YieldOp) or yielded.operands[i] is not dot.result:
        return False
    t = start.type
    elt = t.element_type if isinstance(t, TensorType) else None
    if not (isinstance(elt, Float32Type) or (isinstance(elt, IntegerType) and elt.width.data == 32)):
        return False
    n = 1
    for d in t.get_shape():
        n *= d
    zero = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [0.0 if isinstance(elt, Float32Type) else 0] * n))
    loop.parent_block().insert_op_before(zero, loop)
    loop.operands[3 + i] = zero.result
    result = loop.results[i]
    later = list(result.uses)
    add = (aa.AddFOp if isinstance(elt, Float32Type) else aa.AddIOp)(result, start)
    loop.parent_block().insert_op_after(add, loop)
    for use in later:
        use.operation.operands[use.index] = add.results[0]
    return True


def _continues_a_split_pair(start: SSAValue, loop: scf.ForOp) -> bool:
    """``loop`` starts from the results of a dot loop over the range just before its own (a loop split in two:
    ``tileas-fuse-split-loops`` takes the pair as it is)."""
    from tileorch.transforms.tileas.loop_pair_fusion import split_point

    prev = start.owner
    return (isinstance(prev, scf.ForOp) and prev.parent_block() is loop.parent_block()
            and any(isinstance(o, aa.DotOp) for o in prev.walk()) and split_point(prev, loop) is not None)


def _zeros(t) -> arith.ConstantOp:
    n = 1
    for d in t.get_shape():
        n *= d
    zero = 0.0 if not isinstance(t.element_type, IntegerType) else 0
    return arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [zero] * n))


def widen(cast: Operation, dropped: list | None = None) -> bool:
    """``fp_to_fp`` to f32 of a 16-bit float dot from zeros (its only use): the f32 dot (the third
    rewrite of the module docstring); whether it was rewritten."""
    if not isinstance(cast, aa.FpToFpOp) or not isinstance(cast.result.type, TensorType) \
            or not isinstance(cast.result.type.element_type, Float32Type):
        return False
    dot = cast.source.owner
    if not isinstance(dot, aa.DotOp) or not is_zero(dot.acc) or len(list(dot.result.uses)) != 1 \
            or not isinstance(dot.result.type.element_type, Float16Type | BFloat16Type):
        return False
    _drops(dropped, dot, cast.result.type, [dot.result.type])
    zero = _zeros(cast.result.type)
    new = aa.DotOp(dot.lhs, dot.rhs, zero.result)
    for key in ("matmul_fast_accum", "signedness_a", "signedness_b"):
        if key in dot.properties:
            new.properties[key] = dot.properties[key]
    cast.parent_block().insert_ops_before([zero, new], cast)
    cast.result.replace_all_uses_with(new.result)
    for op in (cast, dot):
        op.detach()
        op.erase()
    return True


def _feeds_a_dot(v: SSAValue, depth: int = 8) -> bool:
    """Whether ``v`` reaches an operand of another dot through at most ``depth`` tile ops (of the
    same block: elementwise math, casts, layout and shape changes)."""
    for use in v.uses:
        op = use.operation
        if isinstance(op, aa.DotOp):
            if use.index < 2:
                return True
            continue
        if depth and op.results and not op.regions and all(isinstance(r.type, TensorType) for r in op.results):
            if any(_feeds_a_dot(r, depth - 1) for r in op.results):
                return True
    return False


def widen_chained(dot: Operation) -> bool:
    """An f16 dot from zeros whose result feeds another dot's operand (the first dot of a chain
    written ``h = relu(x @ w1)`` with f16 ``x`` and ``w1``: cuTile's ``@`` of f16 tiles is an f16 dot):
    the f32 dot and one ``fp_to_fp`` back to f16 (the products accumulated in f32 and rounded once: at
    least as accurate; the chained kernels' first dot accumulates in f32); whether it was rewritten."""
    if not isinstance(dot, aa.DotOp) or not is_zero(dot.acc) \
            or not isinstance(dot.result.type.element_type, Float16Type) or not _feeds_a_dot(dot.result):
        return False
    t = dot.result.type
    zero = _zeros(TensorType(Float32Type(), t.get_shape()))
    new = aa.DotOp(dot.lhs, dot.rhs, zero.result)
    for key in ("matmul_fast_accum", "signedness_a", "signedness_b"):
        if key in dot.properties:
            new.properties[key] = dot.properties[key]
    narrow = aa.FpToFpOp(new.result, t)
    dot.parent_block().insert_ops_before([zero, new, narrow], dot)
    dot.result.replace_all_uses_with(narrow.result)
    start = dot.acc.owner
    dot.detach()
    dot.erase()
    if isinstance(start, arith.ConstantOp) and not start.result.uses:
        start.detach()
        start.erase()
    return True


def fold_rescaled(fma: Operation) -> bool:
    """``fma(o, alpha, dot(p, v, 0))`` yielded back in ``o``'s place (``o`` loop-carried, the dot's
    only use): ``dot(p, v, o * alpha)``; whether it was rewritten."""
    if not isinstance(fma, aa.FmaOp):
        return False
    x, y, d = fma.operands
    dot = d.owner
    if not isinstance(dot, aa.DotOp) or not is_zero(dot.acc) or len(list(dot.result.uses)) != 1 \
            or dot.result.type != fma.result.type:
        return False
    if not (_carried(x, fma) or _carried(y, fma)):
        return False
    mul = aa.MulFOp(x, y)
    new = aa.DotOp(dot.lhs, dot.rhs, mul.results[0])
    for key in ("matmul_fast_accum", "signedness_a", "signedness_b"):
        if key in dot.properties:
            new.properties[key] = dot.properties[key]
    fma.parent_block().insert_ops_before([mul, new], fma)
    fma.results[0].replace_all_uses_with(new.result)
    start = dot.acc.owner
    for op in (fma, dot):
        op.detach()
        op.erase()
    if isinstance(start, arith.ConstantOp) and not start.result.uses:  # the zeros only that dot read
        start.detach()
        start.erase()
    return True


def _narrow_name(t) -> str | None:
    """``"f16"`` / ``"bf16"`` / ``"tf32"`` for a tile of those floats (narrower than f32), else None."""
    elt = getattr(t, "element_type", None)
    return "f16" if isinstance(elt, Float16Type) else "bf16" if isinstance(elt, BFloat16Type) \
        else "tf32" if isinstance(elt, FloatTF32Type) else None


def fold_dot_accumulate(module: ModuleOp, dropped: list[str] | None = None) -> None:
    """Every rewrite of the module doc on ``module``; for each dot whose rounding to a narrower float a rewrite drops
    (the first, third and fifth rewrites), its located remark appended to ``dropped`` (:func:`_drops`)."""
    for add in [o for o in module.walk() if isinstance(o, aa.AddFOp | aa.AddIOp)]:
        if add.parent is not None and not fold(add, dropped):
            fold_sum(add, dropped)
    for cast in [o for o in module.walk() if isinstance(o, aa.FpToFpOp)]:
        if cast.parent is not None:
            widen(cast, dropped)
    for fma in [o for o in module.walk() if isinstance(o, aa.FmaOp)]:
        if fma.parent is not None:
            fold_rescaled(fma)
    for dot in [o for o in module.walk() if isinstance(o, aa.DotOp)]:
        if dot.parent is not None:
            widen_chained(dot)
    for loop in [o for o in module.walk() if isinstance(o, scf.ForOp)]:
        for i in range(len(loop.results)):
            hoist_start(loop, i)


@dataclass(frozen=True)
class FoldDotAccumulate(ModulePass):
    name = "tileas-fold-dot-accumulate"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fold_dot_accumulate(op, sink(self.name))
