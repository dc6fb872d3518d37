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


def __getattr__(name):
    # loaded on first use (no GPU, torch or cuda.tile at import), then bound in this module so
    # that later reads find the function itself: ``tileorch.gemm`` is
    # tileorch.launchers.gemm.gemm (``out = a @ b`` on torch CUDA tensors with tileorch's TMA +
    # WGMMA kernel) and ``tileorch.cutile`` the cuTile launcher; no wrapper adds to a call's host
    # time (issue 22).  ``from tileorch import timing`` asks here first for a submodule not
    # imported yet: nothing is imported for those (``importlib`` cost a relaunch ``warnings``)
    if name == "gemm":
        from tileorch.launchers.gemm import gemm as value
    elif name == "cutile":
        import tileorch.cutile as value
    else:
        raise AttributeError(f"module 'tileorch' has no attribute {name!r}")
    globals()[name] = value
    return value
