"""Types of the tile-scheduler and MODS families.

* ``!cutlass.tile_scheduler<kind>``: a device-side scheduler handle (its mutable state, the
  current linear work id, sits behind the handle);
* ``!cutlass.tile_scheduler_{dp,static_persistent,streamk}_params[<cga = [x, y, z], raster = r>]``:
  the host-built ``Params`` record a scheduler reads; the optional parameters fix the CGA
  (cluster) shape and the raster order in the type;
* ``!cutlass.{dp,static_persistent,streamk}_work_tile_info``: an immutable work-tile record;
* ``!cutlass.mods_instrumentation``: the MODS throttle/timing configuration record.

``SCHEDULER_FAMILY`` maps each scheduler kind to the params / work-tile-info family it uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, IntAttr, NoneAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.attr_factory import attr_class
from tileorch.dialects.cutlass.attrs import check_cluster_size
from tileorch.dialects.cutlass.scheduler_attrs import (RasterOrder, RasterOrderAttr, TileSchedulerKind,
                                                       TileSchedulerKindAttr)


@irdl_attr_definition
class TileSchedulerType(ParametrizedAttribute, TypeAttribute):
    """``!cutlass.tile_scheduler<kind>``."""

    name = "cutlass.tile_scheduler"
    kind: TileSchedulerKindAttr

    def __init__(self, kind: TileSchedulerKind | str):
        super().__init__(TileSchedulerKindAttr(TileSchedulerKind(kind)))

    @property
    def kind_name(self) -> str:
        return self.kind.data.value

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[Attribute, ...]:
        with parser.in_angle_brackets():
            return (TileSchedulerKindAttr(parser.parse_str_enum(TileSchedulerKind)),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.kind_name)


class _SchedulerParamsType(ParametrizedAttribute, TypeAttribute):
    """Shared shape of the three params types: an optional CGA shape and raster order."""

    FAMILY: ClassVar[str]
    cga_shape: ArrayAttr[IntAttr] | NoneAttr
    raster_order: RasterOrderAttr | NoneAttr

    def __init__(
        self,
        cga_shape: tuple[int, int, int] | None = None,
        raster_order: RasterOrder | str | None = None,
    ):
        super().__init__(
            ArrayAttr([IntAttr(v) for v in cga_shape]) if cga_shape is not None else NoneAttr(),
            RasterOrderAttr(RasterOrder(raster_order)) if raster_order is not None else NoneAttr(),
        )

    def cga(self) -> tuple[int, ...] | None:
        """The CGA shape fixed by the type, or None."""
        if isinstance(self.cga_shape, NoneAttr):
            return None
        return tuple(v.data for v in self.cga_shape.data)

    def raster(self) -> str | None:
        """The raster order fixed by the type, or None."""
        if isinstance(self.raster_order, NoneAttr):
            return None
        return self.raster_order.data.value

    def verify(self) -> None:
        cga = self.cga()
        if cga is not None and (len(cga) != 3 or any(v < 1 for v in cga)):
            raise VerifyException(
                f"{self.name}: cga shape must be three positive extents, found {list(cga)}"
            )
        if cga is not None:
            check_cluster_size(f"{self.name}: cga shape", cga)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[Attribute, ...]:
        cga: Attribute = NoneAttr()
        raster: Attribute = NoneAttr()
        if parser.parse_optional_punctuation("<") is None:
            return (cga, raster)

        def parse_entry() -> None:
            nonlocal cga, raster
            key = parser.parse_identifier(" (`cga` or `raster`)")
            parser.parse_punctuation("=")
            if key == "cga":
                start = parser.pos
                values = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, parser.parse_integer
                )
                if len(values) != 3 or any(v < 1 for v in values):
                    parser.raise_error(
                        f"cga shape must be three positive extents, found {values}", start, parser.pos
                    )
                cga = ArrayAttr([IntAttr(v) for v in values])
            elif key == "raster":
                raster = RasterOrderAttr(parser.parse_str_enum(RasterOrder))
            else:
                parser.raise_error(f"expected `cga` or `raster`, found `{key}`")

        parser.parse_comma_separated_list(parser.Delimiter.NONE, parse_entry)
        parser.parse_punctuation(">")
        return (cga, raster)

    def print_parameters(self, printer: Printer) -> None:
        entries = []
        if (cga := self.cga()) is not None:
            entries.append(f"cga = [{', '.join(str(v) for v in cga)}]")
        if (raster := self.raster()) is not None:
            entries.append(f"raster = {raster}")
        if entries:
            printer.print_string(f"<{', '.join(entries)}>")


class _WorkTileInfoType(ParametrizedAttribute, TypeAttribute):
    """The (parameterless) work-tile info of one scheduler family."""


_FAMILIES = (("Dp", "dp"), ("StaticPersistent", "static_persistent"), ("StreamK", "streamk"))


def _per_family(kind: str, base: type, name_of: Callable[[str], str]) -> tuple[type, ...]:
    """One ``<Family><kind>`` type of ``base`` per scheduler family, named ``name_of(family)``."""
    return tuple(attr_class(prefix + kind, (base,), name=name_of(family), FAMILY=family, module=__name__)
                 for prefix, family in _FAMILIES)


DpParamsType, StaticPersistentParamsType, StreamKParamsType = _per_family(
    "ParamsType", _SchedulerParamsType, lambda family: f"cutlass.tile_scheduler_{family}_params")
DpWorkTileInfoType, StaticPersistentWorkTileInfoType, StreamKWorkTileInfoType = _per_family(
    "WorkTileInfoType", _WorkTileInfoType, lambda family: f"cutlass.{family}_work_tile_info")


@irdl_attr_definition
class ModsInstrumentationType(ParametrizedAttribute, TypeAttribute):
    name = "cutlass.mods_instrumentation"


PARAMS_TYPES: tuple[type[_SchedulerParamsType], ...] = (
    DpParamsType,
    StaticPersistentParamsType,
    StreamKParamsType,
)
WORK_TILE_INFO_TYPES = (DpWorkTileInfoType, StaticPersistentWorkTileInfoType, StreamKWorkTileInfoType)
ParamsType = DpParamsType | StaticPersistentParamsType | StreamKParamsType
WorkTileInfoType = DpWorkTileInfoType | StaticPersistentWorkTileInfoType | StreamKWorkTileInfoType

# scheduler kind -> the params / work-tile-info family it reads and produces
SCHEDULER_FAMILY = {
    "dp": "dp",
    "dynamic_persistent": "dp",
    "static_persistent": "static_persistent",
    "streamk": "streamk",
}

ATTRS: list[type] = [
    TileSchedulerType,
    *PARAMS_TYPES,
    *WORK_TILE_INFO_TYPES,
    ModsInstrumentationType,
]
