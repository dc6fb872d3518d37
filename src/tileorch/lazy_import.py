"""A module imported on first use: ``ts = lazy_module("tileorch.dialects.nv_tileas_tile")``.

For a module that a pass needs on one route only (the TileAS tier's dialect, the mma.sync
payload ops) while the pass itself runs on every route: the SIMT route of a cold compile then
does not pay for defining that dialect's classes.  ``ts.Name`` imports the module the first
time and reads ``Name`` from it every time (a monkeypatched attribute is seen).
"""

from __future__ import annotations

import importlib
from types import ModuleType


class LazyModule:
    """Stands for the module ``name``; an attribute read imports it (once) and reads it there."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str):
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}{'' if self._module is None else ' (imported)'}>"


def lazy_module(name: str) -> LazyModule:
    return LazyModule(name)


__all__ = ["LazyModule", "lazy_module"]
