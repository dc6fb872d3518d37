"""``tileorch-opt -t llvm-ir`` and ``-t 'ptx{arch=sm_90a ptx=86 ptxas=true}'``: the module
(already lowered to the ``llvm`` dialect, e.g. with ``-p lower-to-llvm``) as LLVM IR or PTX.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from tileorch.backend.llvm_translate import translate_module
from tileorch.backend.ptx import DEFAULT_PTX_VERSION, BackendError, llvm_to_ptx
from tileorch.backend.ptxas import run_ptxas
from tileorch.diagnostics import LocatedError


@dataclass(frozen=True)
class LLVMIRTarget(Target):
    name = "llvm-ir"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(translate_module(module))


@dataclass(frozen=True)
class PTXTarget(Target):
    name = "ptx"
    arch: str = "sm_90a"
    ptx: int = DEFAULT_PTX_VERSION
    ptxas: bool = False

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        try:
            text = llvm_to_ptx(translate_module(module), self.arch, self.ptx, isolate=True)
            if self.ptxas:
                run_ptxas(text, self.arch)
        except BackendError as exc:
            raise LocatedError(module, str(exc)) from None
        output.write(text)
