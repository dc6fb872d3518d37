"""``tileas-remove-layout-conversions`` (D20): propagate layouts so ``convert_layout`` ops
disappear where the data need not move.

Rewrites, to a fixed point:

* fold: an identity convert goes; a convert of a convert converts the original value;
* buffer side: a convert that is the only user of a value made by a constant, an
  ``alloc_tensor`` or a ``tiled_load`` is absorbed by that producer (a TMA load takes a new
  shared-memory layout only if a TMA box still exists for it; an ``ldg`` load any register
  layout);
* register side, forward: a register-to-register convert whose users are all elementwise ops
  (nv_tileaa arithmetic, ``fp_to_fp``, layout-preserving ``pragma``) is moved below them when
  their other tile operands are constants or converts from the same layout;
* register side, backward: an elementwise op whose only user converts it, and whose tile
  operands are constants or converts, computes in the converted layout instead;
* loops: a convert feeding an ``scf.for`` yield is moved out of the loop by changing that
  iter arg's layout (init, block argument, result), with converts at the loop boundary for the
  other users -- which the rules above fold again;
* regions (the seed's worker handles ``scf.if`` and ``consume_one``): a convert yielded out of
  an ``scf.if`` branch, a ``consume_one`` or a ``consumer_read`` region moves below the op when
  every region yields that slot in the convert's source layout for free (or the result's users
  all convert it back): the result takes the source layout and a convert after the op serves
  its users, so a convert in both branches and its inverse after the ``if`` cancel.  Only a
  register value leaves a pipeline region (its slot buffers are valid inside it only).

On the SIMT route (an ``nv_tileaa.func`` not converted to ``nv_tileas``: kernels without a dot),
a layout conversion is a ``reshape``/``expand_dims`` carrying ``nv_tileaa.source_layout``
(``tileas-assign-load-store-layouts``, ``simt_layouts.py``); it is removed (the op then renames
registers) where the source and result layouts place every element in the same thread and slot.

Diagnostics are tileiras': "failed to rewrite in buffer layout propagation", "failed to rewrite
in reg layout propagation", "failed to apply patterns greedily".
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.dialects import nv_tileaa as aa
from tileorch.lazy_import import lazy_module
from tileorch.transforms.pass_kinds import FunctionTransform
from tileorch.transforms.tileas.common import convert_users, set_type
from tileorch.transforms.tileas.layouts import tma_box, with_layout
from tileorch.transforms.tileas.simt_layouts import is_simt_function, remove_equal_conversions

ts = lazy_module("tileorch.dialects.nv_tileas_tile")  # the tier's dialect: not imported on the SIMT route

ELEMENTWISE = {c.name for c in aa.ELEMENTWISE_OPS} | {"nv_tileaa.fp_to_fp"}
MAX_ROUNDS = 64


def _lay(v: SSAValue) -> ts.LayoutAttr | None:
    return ts.layout_of(v.type)


def _is_reg(v: SSAValue | TensorType) -> bool:
    lay = ts.layout_of(v.type if isinstance(v, SSAValue) else v)
    return lay is not None and lay.kind == "reg"


def _is_elementwise(op: Operation) -> bool:
    if op.name in ELEMENTWISE:
        return True
    if isinstance(op, ts.PragmaOp):
        return all(v.type == r.type for v, r in zip(op.values, op.results_))
    return False


def _is_dense_const(v: SSAValue) -> bool:
    """A tile that can be made in any layout for free (dense constant, splat of a scalar)."""
    if isinstance(v.owner, aa.SplatOp):
        return True
    return isinstance(v.owner, arith.ConstantOp) and isinstance(v.owner.value, DenseIntOrFPElementsAttr)


def _retyped_const(v: SSAValue, layout, at: Operation) -> SSAValue:
    """``v`` (a dense constant) in ``layout``: retyped in place if ``v`` has one use, else cloned."""
    const = v.owner
    new_t = with_layout(v.type, layout)
    if isinstance(const, aa.SplatOp):
        if v.uses.get_length() == 1:
            set_type(const.result, new_t)
            return const.result
        clone = aa.SplatOp.create(operands=[const.source], result_types=[new_t])
        copy_location(const, [clone])
        Rewriter.insert_op(clone, InsertPoint.before(at))
        return clone.result
    assert isinstance(const, arith.ConstantOp)
    attr = DenseIntOrFPElementsAttr(new_t, const.value.data)
    if v.uses.get_length() == 1:
        const.properties["value"] = attr
        set_type(const.result, new_t)
        return const.result
    clone = arith.ConstantOp(attr, new_t)
    copy_location(const, [clone])
    Rewriter.insert_op(clone, InsertPoint.before(at))
    return clone.result


def _convert_after(value: SSAValue, to_type, anchor: Operation, exclude: Operation | None = None) -> None:
    """Serve ``value``'s users (but ``exclude``) in ``to_type`` through a new convert after ``anchor``."""
    convert_users(value, to_type, InsertPoint.after(anchor), anchor, exclude)


class _Rewriter:
    def __init__(self, func: Operation):
        self.func = func
        self.changed = False

    def run(self) -> None:
        for _ in range(MAX_ROUNDS):
            self.changed = False
            for cvt in [o for o in self.func.walk() if isinstance(o, ts.ConvertLayoutOp)]:
                if cvt.parent is None:
                    continue
                self.visit(cvt)
            for op in [o for o in self.func.walk() if _is_elementwise(o)]:
                if op.parent is not None:
                    self.backward(op)
            if not self.changed:
                return
        raise LocatedError(self.func, "failed to apply patterns greedily")

    def _done(self) -> None:
        self.changed = True

    def visit(self, cvt: ts.ConvertLayoutOp) -> None:
        src, dst_t = cvt.source, cvt.result.type
        if not cvt.result.uses:
            Rewriter.erase_op(cvt)
            return self._done()
        if src.type == dst_t:
            cvt.result.replace_all_uses_with(src)
            Rewriter.erase_op(cvt)
            return self._done()
        owner = src.owner
        if isinstance(owner, ts.ConvertLayoutOp):
            cvt.operands = [owner.source]
            if not owner.result.uses:
                Rewriter.erase_op(owner)
            return self._done()
        if src.uses.get_length() == 1 and isinstance(owner, Operation) and self.absorb(owner, cvt):
            return self._done()
        if _is_reg(src) and _is_reg(cvt.result) and self.forward(cvt):
            return self._done()
        if self.out_of_loop(cvt):
            return self._done()
        if self.out_of_region(cvt):
            return self._done()

    # -- buffer side
    def absorb(self, owner: Operation, cvt: ts.ConvertLayoutOp) -> bool:
        dst_t = cvt.result.type
        lay = ts.layout_of(dst_t)
        if lay is None:
            return False
        if _is_dense_const(cvt.source):
            new = _retyped_const(cvt.source, lay, cvt)
        elif isinstance(owner, ts.AllocTensorOp) and lay.kind != "reg":
            set_type(owner.result, dst_t)
            new = owner.result
        elif isinstance(owner, ts.TiledLoadOp) and owner.dst is None:
            if isinstance(owner.atom, ts.LdgAtomAttr | ts.UnknownCopyAtomAttr) and lay.kind == "reg":
                set_type(owner.result, dst_t)
            elif isinstance(owner.atom, ts.TmaLoadAtomAttr) and lay.kind == "smem":
                box = tma_box(TensorType(dst_t.element_type, dst_t.get_shape()), lay)
                if box is None:
                    return False
                owner.atom = ts.TmaLoadAtomAttr(box, owner.atom.mcast.data)
                set_type(owner.result, dst_t)
            else:
                return False
            self._check(owner, "failed to rewrite in buffer layout propagation")
            new = owner.result
        else:
            return False
        cvt.result.replace_all_uses_with(new)
        Rewriter.erase_op(cvt)
        return True

    def _check(self, op: Operation, message: str) -> None:
        try:
            op.verify()
        except VerifyException as exc:
            raise LocatedError(op, f"{message}: {str(exc).splitlines()[0]}") from None

    # -- register side
    def _operand_in(self, v: SSAValue, layout, at: Operation, cvt_result: SSAValue) -> SSAValue | None:
        """``v`` available in ``layout`` without moving data, or None."""
        if not isinstance(v.type, TensorType):
            return v
        if v is cvt_result:
            return cvt_result.owner.source
        if ts.layout_of(v.type) == layout:
            return v
        if _is_dense_const(v):
            return _retyped_const(v, layout, at)
        if isinstance(v.owner, ts.ConvertLayoutOp) and ts.layout_of(v.owner.source.type) == layout:
            return v.owner.source
        return None

    def _can_take(self, v: SSAValue, layout, cvt_result: SSAValue) -> bool:
        if not isinstance(v.type, TensorType) or v is cvt_result or ts.layout_of(v.type) == layout:
            return True
        if _is_dense_const(v):
            return True
        return isinstance(v.owner, ts.ConvertLayoutOp) and ts.layout_of(v.owner.source.type) == layout

    def forward(self, cvt: ts.ConvertLayoutOp) -> bool:
        layout = ts.layout_of(cvt.source.type)
        users = {u.operation for u in cvt.result.uses}
        if not users or not all(_is_elementwise(u) for u in users):
            return False
        if not all(self._can_take(v, layout, cvt.result) for u in users for v in u.operands):
            return False
        for u in users:
            u.operands = [self._operand_in(v, layout, u, cvt.result) for v in u.operands]
            for r in u.results:
                old = r.type
                if isinstance(old, TensorType):
                    set_type(r, with_layout(old, layout))
                    _convert_after(r, old, u)
            self._check(u, "failed to rewrite in reg layout propagation")
        if not cvt.result.uses:
            Rewriter.erase_op(cvt)
        return True

    def backward(self, op: Operation) -> None:
        if len(op.results) != 1 or op.results[0].uses.get_length() != 1:
            return
        user = next(iter(op.results[0].uses)).operation
        if not isinstance(user, ts.ConvertLayoutOp) or not _is_reg(user.result) or not _is_reg(op.results[0]):
            return
        layout = ts.layout_of(user.result.type)
        tiles = [v for v in op.operands if isinstance(v.type, TensorType)]
        if not all(_is_dense_const(v) or isinstance(v.owner, ts.ConvertLayoutOp) or ts.layout_of(v.type) == layout
                   for v in tiles):
            return
        new_ops = []
        for i, v in enumerate(list(op.operands)):
            if not isinstance(v.type, TensorType) or ts.layout_of(v.type) == layout:
                continue
            if _is_dense_const(v):
                op.operands[i] = _retyped_const(v, layout, op)
            else:
                c = ts.ConvertLayoutOp(v, with_layout(v.type, layout))
                copy_location(op, [c])
                Rewriter.insert_op(c, InsertPoint.before(op))
                op.operands[i] = c.result
                new_ops.append(c)
        set_type(op.results[0], with_layout(op.results[0].type, layout))
        self._check(op, "failed to rewrite in reg layout propagation")
        self.changed = True

    # -- loops
    def out_of_loop(self, cvt: ts.ConvertLayoutOp) -> bool:
        uses = list(cvt.result.uses)
        if len(uses) != 1 or not isinstance(uses[0].operation, scf.YieldOp):
            return False
        yld = uses[0].operation
        loop = yld.parent_op()
        if not isinstance(loop, scf.ForOp):
            return False
        i = uses[0].index
        layout = ts.layout_of(cvt.source.type)
        arg = loop.body.block.args[i + 1]
        res = loop.results[i]
        init = loop.iter_args[i]
        old_t = res.type
        new_t = cvt.source.type
        if ts.layout_of(init.type) is None or layout is None:
            return False
        # init in the new layout
        if _is_dense_const(init) and init.uses.get_length() == 1:
            new_init = _retyped_const(init, layout, loop)
        elif isinstance(init.owner, ts.ConvertLayoutOp) and init.owner.source.type == new_t:
            new_init = init.owner.source
        else:
            c = ts.ConvertLayoutOp(init, new_t)
            copy_location(loop, [c])
            Rewriter.insert_op(c, InsertPoint.before(loop))
            new_init = c.result
        loop.operands[3 + i] = new_init
        yld.operands[i] = cvt.source
        Rewriter.erase_op(cvt)
        set_type(arg, new_t)
        set_type(res, new_t)
        if arg.uses:
            body = loop.body.block
            convert_users(arg, old_t, InsertPoint.at_start(body), loop)
        if res.uses:
            _convert_after(res, old_t, loop)
        return True


    # -- region results (scf.if, consume_one / consumer_read)
    def out_of_region(self, cvt: ts.ConvertLayoutOp) -> bool:
        """A convert yielded out of an ``scf.if`` branch (or a ``consume_one`` /
        ``consumer_read`` region) moves below the op: result ``i`` takes the convert's source
        layout when every region yields slot ``i`` in that layout for free (a convert from it, a
        dense constant, a value already in it) -- or when every user of the result converts
        it back to that layout anyway, the other regions then get a convert of their own.
        The result's users get a convert to the old type, which folds with an inverse
        convert after the op."""
        uses = list(cvt.result.uses)
        if len(uses) != 1:
            return False
        yld = uses[0].operation
        parent = yld.parent_op()
        if isinstance(parent, scf.IfOp) and isinstance(yld, scf.YieldOp):
            regions = [parent.true_region, parent.false_region]
        elif isinstance(parent, ts.ConsumeOneOp | ts.ConsumerReadOp) and yld is parent.body.block.last_op:
            # the slot is only readable inside the region: only a register value may leave it
            if not _is_reg(cvt.source):
                return False
            regions = [parent.body]
        else:
            return False
        i = uses[0].index
        layout = _lay(cvt.source)
        res = parent.results[i]
        old_t = res.type
        new_t = cvt.source.type
        if layout is None or not isinstance(old_t, TensorType) or ts.layout_of(old_t) is None:
            return False
        yields = []
        for region in regions:
            if not region.blocks:
                return False
            last = region.blocks[-1].last_op
            if last is None or i >= len(last.operands):
                return False
            yields.append(last)
        res_users = [u.operation for u in res.uses]
        back_only = bool(res_users) and all(
            isinstance(u, ts.ConvertLayoutOp) and u.result.type == new_t for u in res_users)

        def free(v: SSAValue) -> bool:
            return v.type == new_t or _is_dense_const(v) or \
                (isinstance(v.owner, ts.ConvertLayoutOp) and v.owner.source.type == new_t)

        if not back_only and not all(free(y.operands[i]) for y in yields):
            return False
        for y in yields:
            v = y.operands[i]
            if v.type == new_t:
                continue
            if isinstance(v.owner, ts.ConvertLayoutOp) and v.owner.source.type == new_t:
                y.operands[i] = v.owner.source
                if not v.uses:
                    Rewriter.erase_op(v.owner)
            elif _is_dense_const(v):
                y.operands[i] = _retyped_const(v, layout, y)
            else:
                c = ts.ConvertLayoutOp(v, new_t)
                copy_location(cvt, [c])
                Rewriter.insert_op(c, InsertPoint.before(y))
                y.operands[i] = c.result
        set_type(res, new_t)
        self._check(parent, "failed to rewrite in reg layout propagation")
        if res.uses:
            _convert_after(res, old_t, parent)
        return True


def remove_layout_conversions(func: Operation) -> None:
    if is_simt_function(func):  # the SIMT route: conversions are reshapes between layouts
        remove_equal_conversions(func)
        return
    _Rewriter(func).run()


@dataclass(frozen=True)
class RemoveLayoutConversions(FunctionTransform):
    """Propagate layouts to drop convert_layout ops that need no data movement."""

    name = "tileas-remove-layout-conversions"
    transform = staticmethod(remove_layout_conversions)
