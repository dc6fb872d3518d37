"""tileorch: CUTLASS-style kernel orchestration as a verified, lowerable xDSL IR.

Layers (one sub-package each): ``dialects`` (IR definitions and verifiers),
``transforms`` (passes), ``schedulers`` (host-side tile-scheduler math, shared
with the device lowering), ``backend`` (llvm dialect -> LLVM IR -> PTX -> ptxas),
``runtime`` (optional CUDA runtime), ``analysis`` (model checker, simulator), ``kernels``
(IR builders), ``driver`` (the pipeline per input kind), ``launchers`` (compile, cache and
launch for ``tileorch.cutile.launch`` and ``tileorch.gemm``), ``cli``.
"""

__version__ = "0.1.0"

from tileorch.api import Kernel, compile  # noqa: E402,A004  (tileorch.compile(text) -> Kernel; stdlib-only import)


def gemm(a, b, out=None, *, schedule: str = "auto", config=None):
    """``out = a @ b`` on torch CUDA tensors with tileorch's TMA + WGMMA kernel (bf16/fp16 in,
    fp32 accumulation); see :func:`tileorch.launchers.gemm.gemm`."""
    from tileorch.launchers.gemm import gemm as _gemm

    return _gemm(a, b, out, schedule=schedule, config=config)


def __getattr__(name):
    # tileorch.cutile (the cuTile launcher) loads on first use: no GPU or cuda.tile at import
    if name == "cutile":
        import importlib

        return importlib.import_module("tileorch.cutile")
    raise AttributeError(f"module 'tileorch' has no attribute {name!r}")
