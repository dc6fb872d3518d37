"""Compile-for-the-arguments, cache and launch: the cuTile launcher (:mod:`.cutile`, behind
``tileorch.cutile.launch``) and ``tileorch.gemm`` (:mod:`.gemm`, :mod:`.gemm_host`,
:mod:`.gemm_program`).

This layer sits above the compile driver and the CUDA runtime it uses: it imports both, and
neither imports it.  Nothing here needs a GPU or cuda.tile at import time."""
