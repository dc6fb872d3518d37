"""``convert-tileaa-to-tileas``: nv_tileaa tile programs become nv_tileas (see convert.py)."""

from .convert import ConvertTileAAToTileAS

__all__ = ["ConvertTileAAToTileAS"]
