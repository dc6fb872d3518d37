"""Python front door to the TileAS tier: write a tile program, get ``nv_tileaa`` IR."""

from .tile import Array, Loop, TileProgram, tile_gemm

__all__ = ["Array", "Loop", "TileProgram", "tile_gemm"]
