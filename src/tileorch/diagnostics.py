"""Located diagnostics: every user-facing error reads ``file:line:col: error: message``.

xDSL keeps source positions only for parse errors.  This module adds them for
everything else:

* :class:`LocatingParser` stamps a ``FileLineColLoc`` on every parsed operation
  that carries no explicit ``loc(...)``;
* :func:`verify_located` verifies a module op by op (nested ops first) and
  returns one formatted line per failing op;
* :class:`LocatedError` is what passes raise to report a problem at an op;
* :func:`copy_location` lets rewrites keep the source position of the op they replace;
* :func:`read_source` / :func:`decode_source` turn unreadable or non-UTF-8 input into a
  :class:`SourceError` instead of an ``OSError`` / ``UnicodeDecodeError``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException


class LocatingParser(Parser):
    """An xDSL parser that records where each operation starts in the source."""

    def __init__(self, ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._text = text
        self._name = StringAttr(name)
        self._line_offset = line_offset
        self._scan_pos = 0  # newlines are counted incrementally: parsing only moves forward
        self._scan_line = 1

    def _line_col(self, pos: int) -> tuple[int, int]:
        if pos < self._scan_pos:
            self._scan_pos, self._scan_line = 0, 1
        self._scan_line += self._text.count("\n", self._scan_pos, pos)
        self._scan_pos = pos
        return self._scan_line, pos - (self._text.rfind("\n", 0, pos) + 1) + 1

    def parse_operation(self) -> Operation:
        line, col = self._line_col(self._current_token.span.start)
        op = super().parse_operation()
        if not isinstance(op.location, FileLineColLoc):
            op.location = FileLineColLoc(self._name, IntAttr(line + self._line_offset), IntAttr(col))
        return op


def parse_module(ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0) -> ModuleOp:
    """Parse ``text`` into a module whose ops carry their source positions."""
    return LocatingParser(ctx, text, name, line_offset).parse_module()


def location_str(op: Operation | None) -> str:
    """``file:line:col`` of ``op`` (or of its closest located ancestor)."""
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        op = op.parent_op()
    return "<unknown>"


def format_error(op: Operation | None, message: str, severity: str = "error") -> str:
    """One diagnostic line in the ``file:line:col: error: message`` convention."""
    return f"{location_str(op)}: {severity}: {message}"


def first_line(exc: BaseException) -> str:
    """The message of an xDSL exception without the IR dump xDSL appends to it."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class LocatedError(DiagnosticException):
    """A diagnostic tied to an operation; passes raise it to stop with a located error."""

    def __init__(self, op: Operation | None, message: str):
        super().__init__(message)
        self.op = op
        self.message = message

    def __str__(self) -> str:
        return format_error(self.op, self.message)


def _post_order(op: Operation) -> Iterable[Operation]:
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                yield from _post_order(child)
    yield op


def verify_located(module: Operation) -> list[str]:
    """Verify every op (children before parents); return one located line per failure."""
    errors: list[str] = []
    for op in _post_order(module):
        try:
            op.verify(verify_nested_ops=False)
        except (VerifyException, LocatedError) as exc:
            if isinstance(exc, LocatedError):
                errors.append(str(exc))
            else:
                errors.append(format_error(op, first_line(exc)))
    return errors


def format_exception(exc: BaseException, module: Operation | None = None) -> list[str]:
    """Turn any diagnostic exception into located lines (re-verifying ``module`` if needed)."""
    if isinstance(exc, ParseError):
        loc = exc.span.get_location()
        return [f"{loc.file}:{loc.line}:{loc.col}: error: {exc.msg}"]
    if isinstance(exc, LocatedError):
        return [str(exc)]
    if module is not None and isinstance(exc, VerifyException):
        located = verify_located(module)
        if located:
            return located
    return [f"{location_str(module)}: error: {first_line(exc)}"]


def copy_location(src: Operation, new_ops: Iterable[Operation]) -> None:
    """Give rewrite results the source position of the op they replace."""
    for op in new_ops:
        if not isinstance(op.location, FileLineColLoc):
            op.location = src.location


class SourceError(Exception):
    """Input that cannot be read as text.  ``location`` is ``file:line:col`` when the problem
    has a position in the file (a non-UTF-8 byte), else ``None`` (the file cannot be opened)."""

    def __init__(self, message: str, location: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def format(self, tool: str) -> str:
        """``file:line:col: error: message``, or ``TOOL: error: message`` without a position."""
        return f"{self.location or tool}: error: {self.message}"


def decode_source(data: bytes, name: str, line_offset: int = 0) -> str:
    """``data`` decoded as UTF-8; a bad byte raises :class:`SourceError` located at that byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1 + line_offset
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SourceError(f"invalid UTF-8 byte 0x{data[exc.start]:02x} (the input must be UTF-8 text)",
                          f"{name}:{line}:{col}") from None


def read_source(path: str) -> str:
    """The UTF-8 text of the file at ``path`` (``-`` reads stdin); raises :class:`SourceError`."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as exc:
        raise SourceError(f"cannot read {path}: {exc.strerror or exc}") from None
    return decode_source(data, "<stdin>" if path == "-" else path)
