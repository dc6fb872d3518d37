"""The attributes and types whose only parameter is an integer, written ``<N>``.

``#nv_tileaa.div_by<16>``, ``!nv_tileas.pipeline<3>``, ``!nv_tileas.async.pipeline.consumer_token<1>``
and the vector copy atoms share one constructor, parser and printer here; a subclass declares its
``IntAttr`` field (the name it is read by) and its own ``verify``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IntAttr
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.parser import AttrParser
from xdsl.printer import Printer


class IntParam(ParametrizedAttribute):
    """One ``IntAttr`` parameter, parsed and printed as ``<N>`` (a negative N is a parse error when
    ``ALLOW_NEGATIVE`` is false)."""

    ALLOW_NEGATIVE: ClassVar[bool] = True

    def __init__(self, value: int):
        super().__init__(IntAttr(value))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (IntAttr(parser.parse_integer(allow_boolean=False, allow_negative=cls.ALLOW_NEGATIVE)),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.parameters[0].data}>")
