"""The names an xDSL function's code reads: how :mod:`~tileorch.transforms.fast_walk`,
:mod:`~tileorch.transforms.op_accessors` and :mod:`~tileorch.transforms.op_init` check that the xDSL
code they stand in for is the version they mirror before installing themselves."""

from __future__ import annotations


def code_names(fn, nested: bool = False) -> set[str]:
    """The global and attribute names ``fn``'s code reads (``co_names``; empty for a function
    without code); ``nested``: with those of the code objects among its constants (its
    generators and comprehensions)."""
    code = getattr(fn, "__code__", None)
    names = set(getattr(code, "co_names", ()))
    if nested:
        for const in getattr(code, "co_consts", ()):
            names.update(getattr(const, "co_names", ()))
    return names
