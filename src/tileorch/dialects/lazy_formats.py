"""Op assembly formats parsed on first use instead of when the op class is defined.

xDSL's ``irdl_op_definition`` parses every op's declarative ``assembly_format`` when the class is
defined (``FormatProgram.from_str``) and closes the op's ``parse``/``print`` over the program.  A
cold compile defines some 430 ops (xDSL's arith, llvm, math, scf, cf, func; our nvvm and
nv_tileaa), 265 of them with a format: 0.065-0.09 s of a cold SIMT compile of ~1 s, which then
prints and parses no op text (cuTile bytecode in, LLVM IR out).

Importing this module runs :func:`install`, which puts :class:`LazyFormatProgram` in
``FormatProgram.from_str``'s place: the op
class gets a program that parses its format text the first time an op of that class is parsed
or printed, with the same result (the very ``FormatProgram`` xDSL would have made) and the same
error (``PyRDLOpDefinitionError`` "Error during the parsing of the assembly format: ..."), now
raised at that first use rather than at the class's definition.  :func:`materialize_all` parses
every format still pending, so that a test keeps checking every op's format (tests/unit/
test_lazy_formats.py does, for every dialect the registry lists).

Ops defined before it ran keep their eager programs; the modules that define or load dialects
on the compile route import it first (``tileorch.backend.compile``, ``tileorch.registry``,
``tileorch.dialects.nvvm``, ``tileorch.dialects.nv_tileaa``, ``tileorch.driver``: the GEMM route,
``tileorch gemm`` / ``tileorch.gemm``, reaches xDSL's arith and scf there first, and
``tileorch.frontend.tile``).
"""

from __future__ import annotations

import xdsl.irdl.declarative_assembly_format as _daf
from xdsl.utils.exceptions import ParseError, PyRDLOpDefinitionError

import tileorch.dialects.lazy_ops  # noqa: F401  (op definitions made on first use too, from here on)

_XDSL_FROM_STR = _daf.FormatProgram.from_str
_PENDING: list[LazyFormatProgram] = []
"""Every program made since :func:`install` whose format has not been parsed yet (pruned by
:func:`materialize_all` and :func:`pending`)."""


class LazyFormatProgram:
    """Stands for ``FormatProgram.from_str(text, op_def)`` until an op is parsed or printed."""

    __slots__ = ("text", "op_def", "_program")

    def __init__(self, text: str, op_def) -> None:
        self.text = text
        self.op_def = op_def
        self._program = None

    @property
    def parsed(self) -> bool:
        return self._program is not None

    def program(self) -> _daf.FormatProgram:
        """The format parsed (once); ``PyRDLOpDefinitionError`` as ``irdl_op_definition`` raises it."""
        program = self._program
        if program is None:
            try:
                program = _XDSL_FROM_STR(self.text, self.op_def)
            except ParseError as e:
                raise PyRDLOpDefinitionError("Error during the parsing of the assembly format: ", e.args) from e
            self._program = program
        return program

    def parse(self, parser, op_type):
        return self.program().parse(parser, op_type)

    def print(self, printer, op):
        return self.program().print(printer, op)

    def __repr__(self) -> str:
        return f"<assembly format of {self.op_def.name} ({'parsed' if self.parsed else 'not parsed yet'})>"


def _lazy_from_str(text: str, op_def) -> LazyFormatProgram:
    program = LazyFormatProgram(text, op_def)
    _PENDING.append(program)
    return program


def _mirrors_xdsl() -> bool:
    """Whether xDSL's op definition uses a format program as written for here: made by
    ``FormatProgram.from_str`` (its ``ParseError`` turned into ``PyRDLOpDefinitionError``), and
    read by the op's ``parse`` and ``print`` only, through the program's ``parse`` and ``print``."""
    import xdsl.irdl.operations as irdl_ops

    code = getattr(getattr(irdl_ops, "get_accessors_from_op_def", None), "__code__", None)
    if code is None or not {"FormatProgram", "from_str", "ParseError", "PyRDLOpDefinitionError"} <= set(code.co_names):
        return False
    nested = {c.co_name: set(c.co_names) for c in code.co_consts if hasattr(c, "co_names")}
    return nested.get("parse_with_format") == {"parse"} and nested.get("print_with_format") == {"print"}


def install() -> bool:
    """Make the formats of ops defined from now on lazy (idempotent); False, with xDSL's eager
    parsing left in place, when xDSL's op definition is not the one this was written for."""
    if _daf.FormatProgram.from_str is _lazy_from_str:
        return True
    if not _mirrors_xdsl():
        return False
    _daf.FormatProgram.from_str = staticmethod(_lazy_from_str)
    return True


def installed() -> bool:
    return _daf.FormatProgram.from_str is _lazy_from_str


def pending() -> list[LazyFormatProgram]:
    """The programs whose format has not been parsed yet."""
    _PENDING[:] = [p for p in _PENDING if not p.parsed]
    return list(_PENDING)


def materialize_all() -> list[str]:
    """Parse every pending format; the op names and errors of those that do not parse (each
    stays pending, and raises again at its op's first parse or print)."""
    errors = []
    for program in pending():
        try:
            program.program()
        except PyRDLOpDefinitionError as exc:
            errors.append(f"{program.op_def.name}: {exc}")
    pending()
    return errors


install()
