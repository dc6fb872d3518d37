"""Passes over the cutlass dialect and its lowerings (one module per pass).

Importing the package puts :func:`tileorch.transforms.op_init.fast_irdl_op_init` in place of
xDSL's IRDL op builder (the same ops, built with less bookkeeping: the lowerings build
thousands), :func:`tileorch.transforms.op_accessors.fast_get` in place of xDSL's read of a named
single operand or result (``op.lhs``: the same value, without a view made per read) and
:mod:`tileorch.transforms.fast_walk`'s walks in place of xDSL's
``Operation.walk``, ``Region.walk`` and ``Block.walk`` (the same ops in the same order, through
fewer generators: the passes walk a module some twenty times) and
:func:`tileorch.transforms.attach_op.attach_op` in place of ``Block._attach_op`` (the same checks,
without climbing to the top for an inserted op that has no regions), and
:mod:`tileorch.transforms.value_uses`' ``SSAValue.replace_all_uses_with`` and ``SSAValue.get`` (the
same uses moved in the same order, the same value returned, without a view and a tuple rebuilt from
slices per use or a ``typing`` subscription per call), and :mod:`tileorch.transforms.llvm_memory_ops`'
constructors of ``llvm.getelementptr``, ``llvm.load`` and ``llvm.store`` (the same properties, from
attributes made once per value)."""

from tileorch.transforms import attach_op as _attach_op
from tileorch.transforms import fast_walk as _fast_walk
from tileorch.transforms import llvm_memory_ops as _llvm_memory_ops
from tileorch.transforms import op_accessors as _op_accessors
from tileorch.transforms import op_init as _op_init
from tileorch.transforms import value_uses as _value_uses

_op_init.install()
_op_accessors.install()
_fast_walk.install()
_attach_op.install()
_value_uses.install()
_llvm_memory_ops.install()
