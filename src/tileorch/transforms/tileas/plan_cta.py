"""``tileas-plan-cta`` (seed 003, D19): "propagate CTA related layouts".

A CTA layout (the ``cta = [...]`` key of a ``#nv_tileas.layout``) says how a tile of the tile
program is split over the CTAs of the cluster.  The pass reads ``num_ctas`` from the function's
``nv_tileaa.kernel_spec`` and does nothing when it is 1.  Otherwise:

* seeding: every ``convert_layout`` whose source carries a CTA layout its result lacks is
  tagged ``plancta.direction = "forward"``, one whose result carries a CTA layout its source
  lacks ``"backward"``; if none is tagged, the anchors -- TMA tiled loads and ``alloc_tensor``
  -- get the default split (dimension 0 over the cluster, when it divides) and a placeholder
  forward ``convert_layout`` back to their old type;
* a deque worklist pops tagged converts; a forward convert is pushed past its users
  (elementwise ops and pragmas retype and re-emit a forward convert, ``scf.for`` / ``scf.while``
  iter args and yields change their slot's type with converts at the region boundaries, a dot
  whose operand is not split along K carries the split into its result, a tiled store takes the
  split tile); a backward convert is pulled above its producer (elementwise ops convert their
  operands backward, anchors and constants absorb it, iter args change their slot);
* a forward convert that meets a backward one merges with it (the pair disappears when it
  round-trips); two adjacent forward converts are an error: "Expected pattern of adjacent
  cvts: forward + backward";
* TMA boxes follow the per-CTA tile; direction tags are removed at the end;
* a CTA's share of a tile an MMA atom computes on must be at least the atom (whole atoms of
  its M x K / K x N / M x N): a split finer than the hardware instruction (a 64-row tile over
  16 CTAs under ``wgmma``'s M = 64) is a located error at the dot that names this rule.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, StringAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.transforms.pass_kinds import FunctionTransform
from tileorch.transforms.tileas.common import convert_users, num_ctas, set_type
from tileorch.transforms.tileas.layouts import tma_box

DIR = "plancta.direction"
FORWARD, BACKWARD = "forward", "backward"
ELEMENTWISE = {c.name for c in aa.ELEMENTWISE_OPS} | {"nv_tileaa.fp_to_fp", "nv_tileas.pragma"}


def cta_of(t) -> list[int] | None:
    lay = ts.layout_of(t.type if isinstance(t, SSAValue) else t)
    return lay.cta() if lay is not None else None


def with_cta(t: TensorType, cta: list[int] | None) -> TensorType:
    lay = ts.layout_of(t) or ts.LayoutAttr("reg")
    d = lay.as_dict()
    if cta is None:
        d.pop("cta", None)
    else:
        d["cta"] = list(cta)
    return TensorType(t.element_type, t.get_shape(), ts.LayoutAttr(lay.kind, **d))


def default_split(t: TensorType, n: int) -> list[int] | None:
    shape = list(t.get_shape())
    if not shape or shape[0] % n:
        return None
    return [n] + [1] * (len(shape) - 1)


def _tag(op: Operation, d: str) -> None:
    op.attributes[DIR] = StringAttr(d)


def _dir(op: Operation) -> str | None:
    a = op.attributes.get(DIR)
    return a.data if isinstance(a, StringAttr) else None


class PlanCta:
    def __init__(self, func: Operation, n: int):
        self.func = func
        self.n = n
        self.work: deque[Operation] = deque()

    # ---------------------------------------------------------------- helpers
    def push(self, cvt: Operation, d: str) -> None:
        _tag(cvt, d)
        self.work.append(cvt)

    def convert(self, value: SSAValue, to_t, d: str, at: InsertPoint, loc: Operation) -> ts.ConvertLayoutOp:
        c = ts.ConvertLayoutOp(value, to_t)
        copy_location(loc, [c])
        Rewriter.insert_op(c, at)
        self.push(c, d)
        return c

    def retype_anchor(self, op: Operation, cta: list[int]) -> None:
        res = op.results[0]
        set_type(res, with_cta(res.type, cta))
        if isinstance(op, ts.TiledLoadOp | ts.TiledStoreOp) and isinstance(op.atom, ts.TmaLoadAtomAttr | ts.TmaStoreAtomAttr):
            self.fix_box(op, res.type)
        if isinstance(op, arith.ConstantOp):
            op.properties["value"] = DenseIntOrFPElementsAttr(res.type, op.value.data)

    def fix_box(self, op: Operation, t: TensorType) -> None:
        """The TMA box covers the per-CTA part of the tile."""
        cta = cta_of(t) or [1] * t.get_num_dims()
        local = TensorType(t.element_type, [s // c for s, c in zip(t.get_shape(), cta)])
        box = tma_box(local, ts.layout_of(t))
        if box is None:
            raise LocatedError(op, f"the per-CTA tile {list(local.get_shape())} of a {self.n}-CTA split cannot be moved by TMA")
        op.atom = type(op.atom)(box, op.atom.mcast.data)

    def retype_value_for(self, v: SSAValue, cta, user: Operation) -> SSAValue:
        """``v`` with CTA layout ``cta`` for ``user``: free for converts and constants, else a
        backward convert."""
        t = v.type
        if not isinstance(t, TensorType) or cta_of(v) == cta:
            return v
        owner = v.owner
        if isinstance(owner, ts.ConvertLayoutOp) and cta_of(owner.source) == cta and \
                with_cta(owner.source.type, None) == with_cta(t, None):
            return owner.source
        if isinstance(owner, arith.ConstantOp | aa.SplatOp) and v.uses.get_length() == 1:
            self.retype_anchor(owner, cta) if isinstance(owner, arith.ConstantOp) else set_type(v, with_cta(t, cta))
            return v
        return self.convert(v, with_cta(t, cta), BACKWARD, InsertPoint.before(user), user).result

    # ---------------------------------------------------------------- seeding
    def seed(self) -> None:
        for op in self.func.walk():
            if not isinstance(op, ts.ConvertLayoutOp):
                continue
            if _dir(op) is not None:
                self.work.append(op)
                continue
            s, d = cta_of(op.source), cta_of(op.result)
            if s is not None and d is None:
                self.push(op, FORWARD)
            elif d is not None and s is None:
                self.push(op, BACKWARD)
        if self.work:
            return
        for op in list(self.func.walk()):
            anchor = (isinstance(op, ts.TiledLoadOp) and isinstance(op.atom, ts.TmaLoadAtomAttr) and op.dst is None) \
                or isinstance(op, ts.AllocTensorOp)
            if not anchor or cta_of(op.results[0]) is not None:
                continue
            old_t = op.results[0].type
            cta = default_split(old_t, self.n)
            if cta is None:
                continue
            self.retype_anchor(op, cta)
            res = op.results[0]
            if res.uses.get_length():
                c = convert_users(res, old_t, InsertPoint.after(op), op)
                self.push(c, FORWARD)

    # ---------------------------------------------------------------- propagation
    def run(self) -> None:
        self.seed()
        while self.work:
            op = self.work.popleft()
            if op.parent is None or not isinstance(op, ts.ConvertLayoutOp):
                continue
            if _dir(op) == BACKWARD:
                self.step_backward(op)
            else:
                self.step_forward(op)
        self.check_shares()
        for op in list(self.func.walk()):
            if DIR in op.attributes:
                del op.attributes[DIR]
            if isinstance(op, ts.ConvertLayoutOp) and op.source.type == op.result.type:
                op.result.replace_all_uses_with(op.source)
                Rewriter.erase_op(op)

    def check_shares(self) -> None:
        """The rule every split must keep: a CTA's share of a tile an MMA atom computes on is
        whole atoms -- at least the atom's M x K (A), K x N (B) and M x N (accumulator): the
        hardware instruction (``wgmma`` M = 64, ``mma.sync`` M = 16, ``tcgen05.mma`` M = 64 /
        128) has no smaller form, so a cluster that splits the tile finer has CTAs with no MMA
        to issue."""
        for dot in self.func.walk():
            if not isinstance(dot, ts.DotOp) or not isinstance(dot.atom, ts.MMA_ATOMS):
                continue
            am, an, ak = dot.atom.mnk()
            for v, what, atom_dims in ((dot.result, "accumulator", (am, an)), (dot.lhs, "A operand", (am, ak)),
                                       (dot.rhs, "B operand", (ak, an))):
                cta = cta_of(v)
                if not cta:
                    continue
                shape = list(v.type.get_shape())[-2:]
                share = [s // c for s, c in zip(shape, cta[-2:])]
                if all(sh >= a and sh % a == 0 for sh, a in zip(share, atom_dims)):
                    continue
                ctas = 1
                for c in cta:
                    ctas *= c
                raise LocatedError(
                    dot, f"a CTA's share of the tile must be at least the MMA atom: {ctas} CTAs (split "
                         f"{cta}) leave each CTA {'x'.join(map(str, share))} of the dot's "
                         f"{'x'.join(map(str, shape))} {what} tile, not whole "
                         f"{'x'.join(map(str, atom_dims))} tiles of the {dot.atom} atom")

    def _drop_if_dead(self, op: Operation) -> None:
        if op.parent is not None and not any(r.uses.get_length() for r in op.results):
            Rewriter.erase_op(op)

    def step_forward(self, cvt: ts.ConvertLayoutOp) -> None:
        cta = cta_of(cvt.source)
        if cta is None:
            return
        for use in list(cvt.result.uses):
            u = use.operation
            if isinstance(u, ts.ConvertLayoutOp):
                self.merge(cvt, u)
            elif u.name in ELEMENTWISE and (u.name != "nv_tileas.pragma" or len(u.results) == len(u.operands)):
                self.through_elementwise(u, cta)
            elif isinstance(u, scf.YieldOp) and isinstance(u.parent_op(), scf.ForOp | scf.WhileOp):
                self.through_slot(u.parent_op(), use.index, cta, from_yield=True)
            elif isinstance(u, scf.ForOp) and use.index >= 3:
                self.through_slot(u, use.index - 3, cta, from_yield=False)
            elif isinstance(u, scf.WhileOp):
                self.through_slot(u, use.index, cta, from_yield=False)
            elif isinstance(u, ts.DotOp) and use.index < 2:
                self.through_dot(u, cta, use.index)
            elif isinstance(u, ts.TiledStoreOp) and use.index == 1:
                u.operands[1] = self.carry(cvt, u)
                if isinstance(u.atom, ts.TmaStoreAtomAttr):
                    self.fix_box(u, u.operands[1].type)
        self._drop_if_dead(cvt)

    def carry(self, cvt: ts.ConvertLayoutOp, user: Operation) -> SSAValue:
        """The value ``cvt`` converts, in ``cvt``'s result layout but keeping the CTA split:
        the source itself when ``cvt`` only dropped the split, else a plain layout change."""
        cta = cta_of(cvt.source)
        want = with_cta(cvt.result.type, cta)
        if cvt.source.type == want:
            return cvt.source
        c = ts.ConvertLayoutOp(cvt.source, want)
        copy_location(cvt, [c])
        Rewriter.insert_op(c, InsertPoint.before(user))
        return c.result

    def merge(self, first: ts.ConvertLayoutOp, second: ts.ConvertLayoutOp) -> None:
        if _dir(first) == FORWARD and _dir(second) == FORWARD:
            raise LocatedError(second, "Expected pattern of adjacent cvts: forward + backward")
        src = first.source
        if src.type == second.result.type:
            second.result.replace_all_uses_with(src)
            Rewriter.erase_op(second)
        else:
            second.operands = [src]
            if cta_of(src) is not None and cta_of(second.result) is None:
                self.push(second, FORWARD)
        self._drop_if_dead(first)

    def through_elementwise(self, u: Operation, cta: list[int]) -> None:
        u.operands = [self.retype_value_for(v, cta, u) for v in u.operands]
        for r in u.results:
            if isinstance(r.type, TensorType) and cta_of(r) != cta:
                old = r.type
                set_type(r, with_cta(old, cta))
                if r.uses.get_length():
                    c = convert_users(r, old, InsertPoint.after(u), u)
                    self.push(c, FORWARD)

    def through_dot(self, dot: ts.DotOp, cta: list[int], index: int) -> None:
        """lhs split [m, k] / rhs split [k, n] with k == 1: the result is split [m, n]."""
        other = dot.rhs if index == 0 else dot.lhs
        mine = dot.operands[index]
        other_cta = cta_of(other) or [1, 1]
        if (index == 0 and cta[-1] != 1) or (index == 1 and cta[-2] != 1) or \
                (index == 0 and other_cta[-2] != 1) or (index == 1 and other_cta[-1] != 1):
            return  # a K split needs a cross-CTA reduction: keep the convert
        m = cta[-2] if index == 0 else other_cta[-2]
        n = other_cta[-1] if index == 0 else cta[-1]
        res_cta = [1] * (dot.result.type.get_num_dims() - 2) + [m, n]
        dot.operands[index] = self.carry(mine.owner, dot)
        dot.operands[2] = self.retype_value_for(dot.acc, res_cta, dot)
        old = dot.result.type
        set_type(dot.result, with_cta(old, res_cta))
        if dot.result.uses.get_length():
            c = convert_users(dot.result, old, InsertPoint.after(dot), dot)
            self.push(c, FORWARD)

    def through_slot(self, loop: Operation, i: int, cta: list[int], from_yield: bool) -> None:
        """Give loop-carried slot ``i`` the CTA layout; converts at the region boundaries."""
        if isinstance(loop, scf.ForOp):
            init_index = 3 + i
            regions = [(loop.body.block, i + 1)]
            yld = loop.body.block.last_op
        else:
            cond = loop.before_region.block.last_op
            if not isinstance(cond, scf.ConditionOp) or list(cond.args) != list(loop.before_region.block.args):
                return  # only the canonical while (condition forwards the before arguments)
            init_index = i
            regions = [(loop.before_region.block, i), (loop.after_region.block, i)]
            yld = loop.after_region.block.last_op
        res = loop.results[i]
        old_t = res.type
        new_t = with_cta(old_t, cta)
        if old_t == new_t:
            return
        loop.operands[init_index] = self.retype_value_for(loop.operands[init_index], cta, loop)
        for block, a in regions:
            arg = block.args[a]
            set_type(arg, new_t)
            # the while condition forwards the argument into the slot: it keeps the new type
            others = [u for u in arg.uses if not (isinstance(u.operation, scf.ConditionOp) and u.index == a + 1)]
            if others:
                c = ts.ConvertLayoutOp(arg, old_t)
                copy_location(loop, [c])
                Rewriter.insert_op(c, InsertPoint.at_start(block))
                for use in others:
                    use.operation.operands[use.index] = c.result
                self.push(c, FORWARD)
        set_type(res, new_t)
        if res.uses.get_length():
            c = convert_users(res, old_t, InsertPoint.after(loop), loop)
            self.push(c, FORWARD)
        yld.operands[i] = self.retype_value_for(yld.operands[i], cta, yld)

    def step_backward(self, cvt: ts.ConvertLayoutOp) -> None:
        cta = cta_of(cvt.result)
        if cta is None:
            return
        src = cvt.source
        p = src.owner
        if isinstance(p, ts.ConvertLayoutOp):
            if _dir(p) == FORWARD or cta_of(p.source) == cta:
                self.merge(p, cvt)
            return
        if src.uses.get_length() != 1:
            return
        if isinstance(p, Block):
            parent = p.parent_op()
            if isinstance(parent, scf.ForOp) and src.index >= 1:
                self.through_slot(parent, src.index - 1, cta, from_yield=False)
            elif isinstance(parent, scf.WhileOp):
                self.through_slot(parent, src.index, cta, from_yield=False)
            return
        if p.name in ELEMENTWISE:
            self.through_elementwise(p, cta)
            # the value now carries the split: the convert is an identity (or a layout change)
            return
        if (isinstance(p, ts.TiledLoadOp) and isinstance(p.atom, ts.TmaLoadAtomAttr) and p.dst is None) or \
                isinstance(p, ts.AllocTensorOp | arith.ConstantOp):
            self.retype_anchor(p, cta)
        elif isinstance(p, aa.SplatOp):
            set_type(p.result, with_cta(p.result.type, cta))


def plan_cta(func: Operation) -> None:
    n = num_ctas(func)
    if n == 1:
        return
    PlanCta(func, n).run()


@dataclass(frozen=True)
class PlanCTA(FunctionTransform):
    """Propagate CTA (cluster) layouts through the kernel; skipped when num_ctas == 1."""

    name = "tileas-plan-cta"
    transform = staticmethod(plan_cta)
