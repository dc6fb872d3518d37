"""``nv_tileaa`` ops that ``convert-cudatile-to-tileaa`` needs beyond the base dialect:
``reduce``/``scan`` (with a combiner region ended by ``nv_tileaa.yield``) and ``permute``.
Written by the cuda_tile frontend (issue 14); the dialect's owner adds ``EXTRA_OPS`` to
``NvTileaa`` (see /work/notes/cuda_tile_needs.md)."""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, BoolAttr, DenseArrayBase, IntegerAttr, IntegerType, TensorType
from xdsl.irdl import (IRDLOperation, irdl_op_definition, lazy_traits_def, operand_def, prop_def, region_def,
                       result_def, traits_def, var_operand_def, var_result_def)
from xdsl.traits import HasParent, IsTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from .blocked import check_layout


class _Combine(IRDLOperation):
    operands_ = var_operand_def(TensorType)
    dim = prop_def(IntegerAttr[IntegerType])
    identities = prop_def(ArrayAttr)
    results_ = var_result_def(TensorType)
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def _check(self, keep_dim: bool) -> None:
        d = self.dim.value.data
        if len(self.results_) != len(self.operands_) or len(self.identities.data) != len(self.operands_):
            raise VerifyException(f"'{self.name}' needs one result and one identity per operand")
        for o, r in zip(self.operands_, self.results_):
            shape = list(o.type.get_shape())
            if not 0 <= d < len(shape):
                raise VerifyException(f"dim {d} out of range for rank {len(shape)}")
            want = shape if keep_dim else shape[:d] + shape[d + 1:]
            if list(r.type.get_shape()) != want or r.type.element_type != o.type.element_type:
                raise VerifyException(f"'{self.name}' result must have shape {want} and the operand element type")
        args = self.body.block.args
        if [a.type for a in args] != [t for o in self.operands_ for t in (o.type.element_type,) * 2]:
            raise VerifyException("the combiner takes two scalars (accumulated, next) per operand")
        if self.operands_:
            check_layout(self, self.operands_[0].type)


@irdl_op_definition
class ReduceOp(_Combine):
    """Reduce tiles along ``dim`` with the combiner region (identities seed the reduction)."""

    name = "nv_tileaa.reduce"

    def verify_(self) -> None:
        self._check(keep_dim=False)


@irdl_op_definition
class ScanOp(_Combine):
    """Inclusive prefix combination along ``dim`` (``reverse``: from the last element)."""

    name = "nv_tileaa.scan"
    reverse = prop_def(BoolAttr)

    def verify_(self) -> None:
        self._check(keep_dim=True)


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends a reduce/scan combiner with the combined scalars."""

    name = "nv_tileaa.yield"
    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(ReduceOp, ScanOp)))


@irdl_op_definition
class PermuteOp(IRDLOperation):
    """Transpose a tile: result dimension i is source dimension ``permutation[i]``."""

    name = "nv_tileaa.permute"
    source = operand_def(TensorType)
    permutation = prop_def(DenseArrayBase)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        perm = list(self.permutation.get_values())
        s, r = list(self.source.type.get_shape()), list(self.result.type.get_shape())
        if sorted(perm) != list(range(len(s))) or [s[p] for p in perm] != r:
            raise VerifyException(f"permute {perm} of shape {s} cannot give {r}")


EXTRA_OPS = [ReduceOp, ScanOp, YieldOp, PermuteOp]
