"""Names read from PTX text (stdlib only): what the compile path needs of a PTX module without
importing the CUDA runtime (:mod:`tileorch.runtime.module` re-exports it)."""

from __future__ import annotations

import re

_ENTRY = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\(")


def ptx_entries(ptx: str) -> list[str]:
    """Names of the kernels (``.entry``) in a PTX text."""
    return _ENTRY.findall(ptx)


__all__ = ["ptx_entries"]
