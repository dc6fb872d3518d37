"""The SIMT lowering of ordered view accesses: a ``tiled_load`` / ``tiled_store`` whose
``mem_semantic`` is not ``weak`` (cuTile's ``ct.load(..., memory_order=ACQUIRE)`` /
``ct.store(..., memory_order=RELEASE)``, ``RELAXED``, ``ACQ_REL``).  The weak lowering of these
ops (vector runs, whole-tile branches, plain ``ld.global`` / ``st.global``) drops the ordering, so
``op_nv_tileaa_tiled_load`` / ``_store`` hand such an op here.

Contract (a mixin of ``FunctionLowering``, beside ``PointerLowering``, whose ordered element
accesses it shares):

* each thread accesses the elements it owns one at a time (the view's bounds and the ragged
  tile's slots as predicates, a load's padding outside);
* a load's elements are LLVM atomic loads with the op's ordering and scope (``ld.acquire.gpu``,
  ``ld.relaxed.gpu``...); after an ``acquire`` / ``acq_rel`` one the CTA passes a ``bar.sync``, so
  that the CTA's later accesses, whichever thread makes them, come after the acquire (PTX's
  causality order through the barrier);
* before a ``release`` / ``acq_rel`` store the CTA passes a ``bar.sync`` (its earlier accesses, by
  every thread, come before the store: cumulativity of the release) and each thread issues a
  ``fence.release`` at the op's scope (the system's for ``sys``), then stores its elements as
  relaxed atomic stores (``st.relaxed.sys``); a ``relaxed`` store is the relaxed stores alone.
  A store is followed by ``bar.sync`` when the kernel also loads (as the weak store).

:func:`ordered_view_remarks` says so at each such access's line (the driver's remarks): it has no
vector access.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, TensorType, i64

from tileorch.diagnostics import format_error
from tileorch.dialects import llvm_ext
from tileorch.transforms.tileaa_to_simt.emit import Emitter, Tile, byte_size, global_type, reg_type
from tileorch.transforms.tileaa_to_simt.pointers import _order


def ordered(op) -> bool:
    """Whether the view access ``op`` has an ordering other than ``weak``."""
    return _order(op)[2]


_VIEW_ACCESSES = {"nv_tileaa.tiled_load": "load", "nv_tileaa.tiled_store": "store"}


def ordered_view_remarks(module) -> list[str]:
    """One located ``remark:`` per ordered view access of ``module`` (a ``tiled_load`` /
    ``tiled_store`` that :func:`ordered` holds for): its element-by-element lowering (module
    docstring) and the barrier / fence beside it."""
    out = []
    for op in module.walk():
        kind = _VIEW_ACCESSES.get(op.name)
        if kind is None or not ordered(op):
            continue
        sem = op.mem_semantic.value.data
        scope = op.mem_scope.value.data if op.mem_scope is not None else "gpu"
        beside = ("; then the CTA passes a barrier" if kind == "load" and sem in ("acquire", "acq_rel") else
                  "; after a CTA barrier and a release fence" if kind == "store" and sem in ("release", "acq_rel")
                  else "")
        out.append(format_error(op, f"this {sem} view {kind} ({scope} scope) runs element by element as ordered "
                                    f"atomic {kind}s, no vector access{beside}", "remark"))
    return out


class OrderedViewLowering:
    """Mixin of ``FunctionLowering``: ordered ``tiled_load`` / ``tiled_store``."""

    def _ordered_elements(self, e: Emitter, op, view, shape, slots: int, mt):
        """(pointer, predicate) of each element slot of the ``shape`` tile ``op`` accesses
        (``mt``: the element's type in memory)."""
        idx = self._indices(e, op, op.indices)
        out = []
        for _, width, f0, extra in self._runs(e, op, shape, slots):
            run = self._run_address(e, view, idx, e.unravel(f0, shape))
            for j in range(width):
                out.append(self._run_element(e, run, j, mt, extra))
        return out

    def ordered_tiled_load(self, e: Emitter, op) -> None:
        view = self.get(op.view)
        rt: TensorType = op.results[0].type
        shape, elt = tuple(rt.get_shape()), rt.element_type
        sem, scope, _ = _order(op)
        from tileorch.transforms.tileaa_to_simt import _padding

        pad_kind = op.padding_value.value.data if op.padding_value is not None else "zero"
        pad = _padding(e, str(pad_kind), elt)
        out = [self._guarded(e, ok, lambda b, p=p: self._load_one(b, p, elt, sem, scope), lambda b: pad,
                             reg_type(elt))
               for p, ok in self._ordered_elements(e, op, view, shape, self.slots_of(rt, op), global_type(elt))]
        if sem in ("acquire", "acq_rel"):
            e.barrier()
        self.vals[op.results[0]] = Tile(shape, elt, out)
        self.vals[op.results[1]] = None

    def ordered_tiled_store(self, e: Emitter, op) -> None:
        view = self.get(op.view)
        tile = self.tile(op.tile)
        elt = tile.element
        mt = global_type(elt)
        sem, scope, _ = _order(op)
        if sem in ("release", "acq_rel"):
            e.barrier()
            e.add(llvm_ext.FenceOp("release", scope))

        def store(b: Emitter, p, v) -> None:
            st = llvm.StoreOp(self._to_memory(b, v, elt), p, alignment=byte_size(mt))
            st.properties["ordering"] = IntegerAttr(llvm_ext.ORDERINGS["monotonic"], i64)
            b.add(st)

        for (p, ok), v in zip(self._ordered_elements(e, op, view, tile.shape, len(tile.slots), mt), tile.slots):
            self._guarded(e, ok, lambda b, p=p, v=v: store(b, p, v), None, None)
        if self.has_loads and self._load_may_follow(op):
            e.barrier()
        self.vals[op.results[0]] = None
