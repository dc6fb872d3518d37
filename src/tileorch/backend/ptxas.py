"""Run ``ptxas`` on PTX text: the user learns at compile time, not at launch, that it is wrong.

ptxas reports a dropped ``setmaxnreg`` (C7504, C7508) as an info line and succeeds, but a
warp-specialized kernel then runs without its register reallocation (the consumer warp groups
may spill): :func:`run_ptxas` treats those two codes as errors unless asked not to.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from tileorch.backend.ptx import BackendError


IGNORED_SETMAXNREG_CODES = ("C7504", "C7508")
SETMAXNREG_HINT = (
    "setmaxnreg needs the register count at kernel entry: give the kernel nvvm.maxntid and "
    "nvvm.minctasm (C7508), and do not call external device functions (func.func private "
    "declarations become .extern .func, relocatable code compiled separately: C7504)"
)


class IgnoredSetmaxnregError(BackendError):
    """ptxas dropped ``setmaxnreg``; ``kernels`` are the PTX entry points that use it."""

    def __init__(self, message: str, kernels: list[str]):
        super().__init__(message)
        self.kernels = kernels


def setmaxnreg_kernels(ptx: str) -> list[str]:
    """Names of the ``.entry`` functions whose bodies contain ``setmaxnreg``."""
    names: list[str] = []
    current = None
    for line in ptx.splitlines():
        header = re.match(r"\s*(?:\.visible\s+|\.weak\s+)?\.(entry|func)\s+(?:\([^)]*\)\s*)?(\w+)", line)
        if header:
            current = header.group(2) if header.group(1) == "entry" else None
        elif current is not None and "setmaxnreg" in line and current not in names:
            names.append(current)
    return names


@dataclass(frozen=True)
class PtxasResult:
    cubin_bytes: int
    messages: list[str]  # ptxas info/warning lines (e.g. C7508 'setmaxnreg ignored')


def ptxas_available() -> bool:
    return shutil.which("ptxas") is not None


def _clean(line: str, path: str) -> str:
    return line.replace(path, "<ptx>").strip()


def run_ptxas(
    ptx: str, arch: str, extra_args: tuple[str, ...] = (), allow_ignored_setmaxnreg: bool = False
) -> PtxasResult:
    """Assemble ``ptx`` for ``arch``; raise :class:`BackendError` with ptxas's errors, and
    :class:`IgnoredSetmaxnregError` when ptxas ignored ``setmaxnreg`` (C7504 / C7508) unless
    ``allow_ignored_setmaxnreg``.

    PTX that calls functions declared ``.extern`` (external device functions) is relocatable
    code, linked later: it is assembled with ``-c`` (compile only), like ``nvcc -rdc``.
    """
    if re.search(r"^\.extern \.func", ptx, re.M) and "-c" not in extra_args:
        extra_args = ("-c", *extra_args)
    if not ptxas_available():
        raise BackendError("ptxas not found on PATH (use --no-ptxas to skip assembling)")
    with tempfile.TemporaryDirectory(prefix="tileorch-ptxas-") as tmp:
        src, out = os.path.join(tmp, "kernel.ptx"), os.path.join(tmp, "kernel.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        proc = subprocess.run(
            ["ptxas", f"-arch={arch}", *extra_args, src, "-o", out], capture_output=True, text=True
        )
        lines = [_clean(l, src) for l in (proc.stdout + proc.stderr).splitlines() if l.strip()]
        if proc.returncode != 0:
            errors = [l for l in lines if "error" in l.lower()] or lines
            raise BackendError("ptxas rejected the PTX:\n  " + "\n  ".join(errors))
        ignored = [l for l in lines if any(f"({code})" in l for code in IGNORED_SETMAXNREG_CODES)]
        if ignored and not allow_ignored_setmaxnreg:
            kernels = setmaxnreg_kernels(ptx)
            raise IgnoredSetmaxnregError(
                f"ptxas ignored setmaxnreg in kernel {', '.join(kernels) or '<unknown>'}: "
                + "; ".join(ignored) + f"; {SETMAXNREG_HINT}",
                kernels,
            )
        return PtxasResult(os.path.getsize(out), lines)
