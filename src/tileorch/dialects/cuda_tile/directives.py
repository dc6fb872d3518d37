"""The ``custom<...>`` directives of the ``cuda_tile`` op formats."""

from __future__ import annotations

from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.printer import Printer

from tileorch.dialects.cuda_tile import attrs as A
from tileorch.dialects.cuda_tile.format import CUSTOM, CustomDirective, ParseState, _peek
from tileorch.dialects.cuda_tile.syntax import ct_type_str, error_at, parse_ct_type, pos


def _name(arg: str) -> str:
    import re

    m = re.search(r"\$(\w+)", arg)
    return m.group(1) if m else arg.strip()


class KeywordEnum(CustomDirective):
    """A required bare enum keyword (``signed``, ``less_than``, ``ordered``)."""

    def __init__(self, cls, what: str):
        self.cls, self.what = cls, what

    def parse(self, parser, st, cls, args):
        start = pos(parser)
        word = parser.parse_optional_identifier()
        values = [v.value for v in self.cls.enum_type]
        if word not in values:
            error_at(parser, start, f"expected {self.what} to be one of: {{" + ", ".join(f"'{v}'" for v in values)
                     + "}")
        st.props[_name(args[0])] = self.cls(self.cls.enum_type(word))

    def print(self, printer, op, args):
        printer.print_string(op.properties[_name(args[0])].data.value)


class Rounding(CustomDirective):
    """Optional ``rounding<mode>``; absent means ``default``; only ``allowed`` modes parse."""

    def __init__(self, default: str, allowed: tuple[str, ...], strict: bool = True):
        self.default, self.allowed, self.strict = default, allowed, strict

    def present(self, parser):
        return _peek(parser).text == "rounding"

    def parse(self, parser, st, cls, args):
        name = _name(args[0])
        if parser.parse_optional_keyword("rounding") is None:
            st.props[name] = A.RoundingModeAttr(A.RoundingMode(self.default))
            return
        parser.parse_punctuation("<")
        start = pos(parser)
        word = parser.parse_optional_identifier()
        parser.parse_punctuation(">")
        valid = [v.value for v in A.RoundingMode]
        if word not in valid or (self.strict and word not in self.allowed):
            error_at(parser, start, "expected rounding mode to be one of: " + ", ".join(f"'{m}'" for m in self.allowed)
                     + f", got: '{word}'")
        st.props[name] = A.RoundingModeAttr(A.RoundingMode(word))

    def print(self, printer, op, args):
        v = op.properties.get(_name(args[0]))
        if v is not None and v.data.value != self.default:
            printer.print_string(f"rounding<{v.data.value}>")


class AssumePredicate(CustomDirective):
    def parse(self, parser, st, cls, args):
        start = pos(parser)
        tok = _peek(parser)
        if tok.kind.name == "HASH_IDENT":
            a = parser.parse_attribute()
            if not isinstance(a, A.AssumePredicate):
                error_at(parser, start, "expected assume predicate attribute")
        else:
            word = parser.parse_optional_identifier()
            if word not in A.ASSUME_PREDICATES:
                error_at(parser, start, f"unknown assume predicate attribute: {word} (expected 'div_by', "
                                        "'same_elements', or 'bounded')")
            acls = A.ASSUME_PREDICATES[word]
            a = acls(*acls.parse_parameters(parser))
        st.props[_name(args[0])] = a

    def print(self, printer, op, args):
        printer.print_string(op.properties[_name(args[0])].short_str())


class DenseElements(CustomDirective):
    """``<f32: [1.0, 2.0]> : tile<2xf32>``; with a result operand it also sets the result type."""

    def __init__(self, with_result: bool):
        self.with_result = with_result

    def parse(self, parser, st, cls, args):
        attr = A.parse_dense_body(parser)
        st.props[_name(args[0])] = attr
        if self.with_result:
            st.types[_name(args[1])] = [attr.type]

    def print(self, printer, op, args):
        attr = op.properties[_name(args[0])]
        printer.print_string(f"<{attr.body_str()}> : {attr.type.short_str()}")


class SymbolVisibility(CustomDirective):
    def present(self, parser):
        return _peek(parser).text in ("public", "private")

    def parse(self, parser, st, cls, args):
        word = parser.parse_optional_keyword("public") or parser.parse_optional_keyword("private") or "public"
        st.props[_name(args[0])] = A.SymbolVisibilityAttr(A.SymbolVisibility(word))

    def print(self, printer, op, args):
        v = op.properties.get(_name(args[0]))
        if v is not None and v.data.value != "public":
            printer.print_string(v.data.value)


def ensure_terminator(region: Region, term_cls) -> None:
    if not region.blocks:
        region.add_block(Block())
    block = region.blocks[0]
    last = block.last_op
    if last is None or not last.has_trait(_is_terminator()):
        block.add_op(term_cls.build(operands=[[]]))


def _is_terminator():
    from xdsl.traits import IsTerminator

    return IsTerminator


def print_cf_region(printer: Printer, region: Region, implicit_term_cls) -> None:
    """Print a single-block region, leaving out an implicit terminator without operands."""
    block = region.blocks[0] if region.blocks else None
    term = block.last_op if block else None
    print_term = not (term is not None and isinstance(term, implicit_term_cls) and not term.operands)
    printer.print_region(region, print_entry_block_args=False, print_block_terminators=print_term)


class IfRegion(CustomDirective):
    def present(self, parser):
        return _peek(parser).text == "{"

    """A region whose operand-less terminator is implicit; the op names that terminator
    (``implicit_terminator()``), so this module imports no op."""

    def parse(self, parser, st, cls, args):
        r = parser.parse_region()
        ensure_terminator(r, cls.implicit_terminator())
        st.regions[_name(args[0])] = r

    def print(self, printer, op, args):
        print_cf_region(printer, getattr(op, _name(args[0])), type(op).implicit_terminator())

    def is_present(self, op, args):
        return bool(getattr(op, _name(args[0])).blocks)


def parse_arg_list(parser: Parser) -> list[Parser.Argument]:
    """``(%a: tile<f32>, %b: tile<f32>)``"""
    args: list[Parser.Argument] = []
    parser.parse_punctuation("(")
    if parser.parse_optional_punctuation(")") is not None:
        return args
    while True:
        name = parser.parse_argument(expect_type=False)
        parser.parse_punctuation(":")
        t = parse_ct_type(parser)
        args.append(name.resolve(t))
        if parser.parse_optional_punctuation(",") is None:
            break
    parser.parse_punctuation(")")
    return args


def print_arg_list(printer: Printer, block: Block) -> None:
    printer.print_string("(")
    for i, a in enumerate(block.args):
        if i:
            printer.print_string(", ")
        printer.print_operand(a)
        printer.print_string(": " + ct_type_str(a.type))
    printer.print_string(")")


class ArgumentRegion(CustomDirective):
    def parse(self, parser, st, cls, args):
        a = parse_arg_list(parser)
        st.regions[_name(args[0])] = parser.parse_region(a)

    def print(self, printer, op, args):
        region = getattr(op, _name(args[0]))
        printer._print_new_line()  # noqa: SLF001
        print_arg_list(printer, region.blocks[0])
        printer.print_string(" ")
        printer.print_region(region, print_entry_block_args=False)


CUSTOM.update({
    "Signedness": KeywordEnum(A.SignednessAttr, "signedness"),
    "ComparisonPredicate": KeywordEnum(A.ComparisonPredicateAttr, "'comparison_predicate'"),
    "ComparisonOrdering": KeywordEnum(A.ComparisonOrderingAttr, "'comparison_ordering'"),
    "IEEERoundingMode": Rounding("nearest_even", ("nearest_even", "zero", "negative_inf", "positive_inf")),
    "DivFOpRoundingMode": Rounding("nearest_even", ("nearest_even", "zero", "negative_inf", "positive_inf", "approx",
                                                    "full"), strict=False),
    "SqrtOpRoundingMode": Rounding("nearest_even", ("nearest_even", "zero", "negative_inf", "positive_inf", "approx"),
                                   strict=False),
    "TanHOpRoundingMode": Rounding("full", ("approx", "full"), strict=False),
    "ExpOpRoundingMode": Rounding("full", ("approx", "full"), strict=False),
    "IntegerRoundingMode": Rounding("nearest_int_to_zero", ("nearest_int_to_zero",)),
    "AssumePredicate": AssumePredicate(),
    "DenseTypedElementsAttr": DenseElements(True),
    "DenseTypedElementsAttrNoResult": DenseElements(False),
    "SymbolVisibility": SymbolVisibility(),
    "IfOpRegion": IfRegion(),
    "ArgumentRegion": ArgumentRegion(),
})
