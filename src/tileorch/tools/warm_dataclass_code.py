"""``python -m tileorch.tools.warm_dataclass_code``: fill :mod:`tileorch.dataclass_code`'s table
with the dataclasses of the compiler's modules (every dialect and pass of
:mod:`tileorch.registry`, the drivers, the frontends, the backend: what a cold ``tileorch
compile`` of any input kind creates) and write it, whatever ``PYTHONDONTWRITEBYTECODE`` says;
as ``compileall`` fills ``__pycache__`` (``benchmarks/compile_time.py`` runs both before its cold
compiles).  Prints the file and its size; exit status 1 when it could not be written."""

from __future__ import annotations

import sys
from importlib import import_module

from tileorch import dataclass_code

MODULES = ("tileorch.driver", "tileorch.backend.compile", "tileorch.backend.llvm_translate", "tileorch.frontend.cutile",
           "tileorch.frontend.cuda_tile_bytecode", "tileorch.launchers.gemm_host", "tileorch.cli.compile",
           "tileorch.cli.gemm", "xdsl.irdl.declarative_assembly_format_parser")
"""Imported besides the registry's dialects and passes (the last: where an op's assembly format is
parsed, on its first use: :mod:`tileorch.dialects.lazy_formats`)."""


def main() -> int:
    dataclass_code.install()
    from tileorch import registry

    for ref in (*registry.DIALECTS.values(), *registry.PASSES.values()):
        import_module(ref.split(":", 1)[0])
    for name in MODULES:
        import_module(name)
    written = dataclass_code.save(force=True)
    counts = dataclass_code.stats()
    print(f"{dataclass_code.cache_path()}: {counts['loaded']} dataclass method texts"
          + ("" if written else " (up to date)" if not counts["compiled"] else " (NOT written)"))
    return 0 if written or not counts["compiled"] else 1


if __name__ == "__main__":
    sys.exit(main())
