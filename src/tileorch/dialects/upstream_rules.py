"""Rules upstream MLIR enforces on its own ops that xDSL 0.74 does not check (run with every
located verification, see :func:`tileorch.diagnostics.verify_op_located`).

* ``arith.cmpi`` / ``llvm.icmp`` predicates are 0-9 and ``arith.cmpf`` / ``llvm.fcmp`` predicates
  0-15 (upstream's enum attributes accept nothing else; an out-of-range integer otherwise reached
  LLVM translation and crashed there).
* ``llvm.load`` / ``llvm.store`` alignments are powers of two (upstream's verifier and LLVM's
  ``Align`` reject anything else; an alignment below the element size is legal).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

PREDICATE_RANGES = {"arith.cmpi": 10, "llvm.icmp": 10, "arith.cmpf": 16, "llvm.fcmp": 16}


ALIGNED_OPS = ("llvm.load", "llvm.store")


def verify_upstream_rules(op: Operation) -> None:
    """Raise VerifyException when ``op`` breaks one of the rules above."""
    if op.name in ALIGNED_OPS:
        align = op.properties.get("alignment") or op.attributes.get("alignment")
        if isinstance(align, IntegerAttr):
            a = align.value.data
            if a < 0 or (a & (a - 1)) != 0:
                raise VerifyException(f"{op.name} alignment must be a power of two (or 0: the type's ABI "
                                      f"alignment), got {a}")
        return
    bound = PREDICATE_RANGES.get(op.name)
    if bound is None:
        return
    pred = op.properties.get("predicate") or op.attributes.get("predicate")
    if isinstance(pred, IntegerAttr) and not 0 <= pred.value.data < bound:
        raise VerifyException(f"{op.name} predicate must be in [0, {bound - 1}], got {pred.value.data}")
