"""Run ``ptxas`` on PTX text: the user learns at compile time, not at launch, that it is wrong."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from tileorch.backend.ptx import BackendError


@dataclass(frozen=True)
class PtxasResult:
    cubin_bytes: int
    messages: list[str]  # ptxas info/warning lines (e.g. C7508 'setmaxnreg ignored')


def ptxas_available() -> bool:
    return shutil.which("ptxas") is not None


def _clean(line: str, path: str) -> str:
    return line.replace(path, "<ptx>").strip()


def run_ptxas(ptx: str, arch: str, extra_args: tuple[str, ...] = ()) -> PtxasResult:
    """Assemble ``ptx`` for ``arch``; raise :class:`BackendError` with ptxas's errors.

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
        return PtxasResult(os.path.getsize(out), lines)
