"""Passes over the cutlass dialect and its lowerings (one module per pass).

Importing the package puts :func:`tileorch.transforms.op_init.fast_irdl_op_init` in place of
xDSL's IRDL op builder (the same ops, built with less bookkeeping: the lowerings build
thousands)."""

from tileorch.transforms import op_init as _op_init

_op_init.install()
