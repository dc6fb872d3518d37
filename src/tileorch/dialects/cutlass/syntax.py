"""Helpers for the custom assembly forms of the ``cutlass`` ops.

Operands of the pipeline ops are written without types (``%pipe, %state``): their types are
read from the values' definitions, which SSA dominance puts earlier in the text.  Properties
and discardable attributes share one ``{...}`` dictionary (``attributes {...}`` in front of
a region, where a bare ``{`` would be ambiguous).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.printer import Printer


def parse_defined_operand(parser: Parser) -> SSAValue:
    """Parse ``%name``, a value that is already defined; its type comes from its definition."""
    unresolved = parser.parse_unresolved_operand()
    values = parser.ssa_values.get(unresolved.operand_name)
    if values is None or unresolved.index >= len(values):
        parser.raise_error(
            f"%{unresolved.operand_name} must be defined before this use "
            "(the custom form reads operand types from their definitions)",
            unresolved.span,
        )
    return parser.resolve_operand(unresolved, values[unresolved.index].type)


def parse_defined_operands(parser: Parser) -> list[SSAValue]:
    """A comma-separated, non-empty list of already defined values."""
    return parser.parse_comma_separated_list(parser.Delimiter.NONE, lambda: parse_defined_operand(parser))


def parse_keyword_operand(parser: Parser, keyword: str) -> SSAValue | None:
    """``keyword(%value)`` if the keyword is next."""
    if parser.parse_optional_keyword(keyword) is None:
        return None
    with parser.in_parens():
        return parse_defined_operand(parser)


def print_operands(printer: Printer, values: Iterable[SSAValue]) -> None:
    printer.print_list(values, printer.print_operand)


def print_keyword_operand(printer: Printer, keyword: str, value: SSAValue | None) -> None:
    if value is not None:
        printer.print_string(f" {keyword}(")
        printer.print_operand(value)
        printer.print_string(")")


def split_attr_dict(
    op_type: type[IRDLOperation], entries: dict[str, Attribute]
) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """Split a parsed dictionary into (properties, discardable attributes) of ``op_type``."""
    prop_names = op_type.get_irdl_definition().properties.keys()
    props = {k: v for k, v in entries.items() if k in prop_names}
    attrs = {k: v for k, v in entries.items() if k not in prop_names}
    return props, attrs


def parse_attr_dict(parser: Parser, op_type: type[IRDLOperation], keyword: bool = False):
    """Parse ``{...}`` (or ``attributes {...}`` when ``keyword``) into (properties, attributes)."""
    if keyword:
        parsed = parser.parse_optional_attr_dict_with_keyword()
        entries = dict(parsed.data) if parsed is not None else {}
    else:
        entries = parser.parse_optional_attr_dict()
    return split_attr_dict(op_type, entries)


def print_attr_dict(printer: Printer, op: IRDLOperation, skip: Sequence[str] = (), keyword: bool = False) -> None:
    """Print the op's properties (except ``skip``) and attributes as one dictionary."""
    entries = {k: v for k, v in op.properties.items() if k not in skip}
    entries.update(op.attributes)
    if not entries:
        return
    printer.print_string(" attributes " if keyword else " ")
    printer.print_attr_dict(entries)


def print_body(printer: Printer, region: Region) -> None:
    """Print a single-block region without its entry-block header (``{}`` when empty)."""
    if not region.blocks or not region.block.ops:
        printer.print_string("{}")
        return
    printer.print_region(region, print_entry_block_args=False, print_block_terminators=False)


def parse_body(parser: Parser, arguments: Sequence[Parser.Argument] = ()) -> Region:
    """Parse a single-block region; ``{}`` gives one empty block (with ``arguments``' types)."""
    region = parser.parse_region(arguments)
    if not region.blocks:
        region.add_block(Block([arg.type for arg in arguments]))
    return region
