"""tileorch: CUTLASS-style kernel orchestration as a verified, lowerable xDSL IR.

Layers (one sub-package each): ``dialects`` (IR definitions and verifiers),
``transforms`` (passes), ``schedulers`` (host-side tile-scheduler math, shared
with the device lowering), ``backend`` (llvm dialect -> LLVM IR -> PTX -> ptxas),
``runtime`` (optional CUDA launcher), ``analysis`` (model checker, simulator).
"""

__version__ = "0.1.0"
