"""The targets and PTX versions the back end generates code for: constants only, importing
nothing, so that :func:`tileorch.compile` checks its options and finds a cached kernel in a new
process without importing :mod:`tileorch.backend.ptx` (issue 22: a relaunch imports almost
nothing).  :mod:`tileorch.backend.ptx` re-exports them."""

DEFAULT_ARCH = "sm_90a"
SUPPORTED_ARCHS = ("sm_90a", "sm_100a")
"""Targets whose PTX the lowering produces: it uses sm_90a-specific instructions (setmaxnreg,
wgmma), which exist on no plain sm_XX target, and the cluster/mbarrier features of sm_90+."""
DEFAULT_PTX_VERSION = 86
SUPPORTED_PTX_VERSIONS = (80, 81, 82, 83, 84, 85, 86, 87, 88, 90)
