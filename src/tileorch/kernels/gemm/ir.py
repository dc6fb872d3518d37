"""The MLIR text of a GEMM kernel, for people and tools that read text.

The kernel is built by :func:`tileorch.kernels.gemm.build.build_gemm_kernel`; this module only
prints it (``tileorch gemm --emit mlir``, ``tileorch check`` inputs, benchmarks that write the
kernel to a file).  The compile paths take the built module directly.
"""

from __future__ import annotations

import io

from xdsl.printer import Printer

from tileorch.kernels.gemm.build import build_gemm_kernel
from tileorch.kernels.gemm.config import GemmConfig


def gemm_kernel_ir(cfg: GemmConfig) -> str:
    """The MLIR text of the kernel ``cfg.name`` (one ``func.func`` in a module), headed by a
    comment naming the configuration; it parses back to the module the builder made."""
    out = io.StringIO()
    out.write(f"// Warp-specialized persistent GEMM (TMA + WGMMA), built by tileorch.kernels.gemm for\n"
              f"// {cfg}\n"
              f"//   C[M, N] = A{'^T' if cfg.a_major == 'm' else ''} @ B{'^T' if cfg.b_major == 'k' else ''}, "
              f"{cfg.dtype} inputs, f32 accumulation, {cfg.out_dtype} output\n"
              f"//   block = {cfg.threads} threads, dynamic shared memory = {cfg.smem_bytes} bytes, "
              f"cluster = {cfg.cluster_m}x1\n")
    Printer(stream=out).print_op(build_gemm_kernel(cfg))
    out.write("\n")
    return out.getvalue()
