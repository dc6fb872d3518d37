"""``convert-nv-tileaa-to-simt`` (the SIMT path below the tile tier): the pass and the names it shares
live in :mod:`.convert`; the package's submodules (``emit``, ``pointers``, ``mma``, ...) import on
their own.

The package imports nothing itself (issue 22: the TileAS tier's GEMM lowering reads ``emit``'s
``Emitter`` and a cold GEMM compile would otherwise define the whole SIMT lowering, ~2,500 lines and
its ~30 modules): a name of :mod:`.convert` read from the package (``from
tileorch.transforms.tileaa_to_simt import ELEMENTWISE``) imports :mod:`.convert` then, a submodule's
name imports that submodule (PEP 562 ``__getattr__``).
"""

from __future__ import annotations

import importlib


_NOT_SUBMODULES: set[str] = set()


def __getattr__(name: str):
    if name.startswith("__"):  # (``__path__``-like probes: not names of the lowering)
        raise AttributeError(name)
    if name not in _NOT_SUBMODULES:  # a submodule (``from tileorch.transforms.tileaa_to_simt import f64_math``)
        try:
            return importlib.import_module(f"{__name__}.{name}")  # (the import binds it here)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            _NOT_SUBMODULES.add(name)
    return getattr(importlib.import_module(f"{__name__}.convert"), name)  # (read there: a patched name is seen)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(dir(importlib.import_module(f"{__name__}.convert"))))
