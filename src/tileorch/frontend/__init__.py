"""Python front door to the TileAS tier: write a tile program, get ``nv_tileaa`` IR.

``Array``, ``Loop``, ``TileProgram`` and ``tile_gemm`` (:mod:`tileorch.frontend.tile`) are imported on
first use: the package's other modules (the cuTile bytecode reader, :mod:`tileorch.frontend.cutile`) are
on every cuTile compile's route, which builds no tile program in Python."""

_TILE_NAMES = ("Array", "Loop", "TileProgram", "tile_gemm")


def __getattr__(name: str):
    if name in _TILE_NAMES:
        from tileorch.frontend import tile

        return getattr(tile, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Array", "Loop", "TileProgram", "tile_gemm"]
