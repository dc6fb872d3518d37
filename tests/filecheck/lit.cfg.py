# lit configuration for tileorch's FileCheck tests (run by tests/test_lit.py).
import os
import shutil
import sys

import lit.formats

config.name = "tileorch"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "__pycache__", "Output", "inputs"]
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(sys.executable), os.environ.get("PATH", "")]
)
# Under pytest, tests/tool_forkserver.py's clients come first: tileorch-opt, tileorch and filecheck
# then run as forks of a server that imported them once, instead of fresh Pythons.
if os.environ.get("TILEORCH_TOOL_FORKSERVER_BIN"):
    config.environment["PATH"] = os.environ["TILEORCH_TOOL_FORKSERVER_BIN"] + os.pathsep + config.environment["PATH"]
config.environment["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
# Under pytest (tests/test_lit.py) the session's compile cache and backend memo (tests/conftest.py):
# no stale hits from ~/.cache, and a kernel the unit tests or another lit test already compiled
# is not compiled again.  Run alone, lit keeps tileorch's defaults.
# TILEORCH_VERIFY_EACH_PASS too (the suite's 0: tileorch-opt verifies its input and the pipeline's result, not
# the IR between the passes of -p, as the unit tests' compiles; tests/unit/test_verify_each_pass.py verifies
# every route after every pass).
for name in ("TILEORCH_CACHE_DIR", "TILEORCH_BACKEND_MEMO", "TILEORCH_VERIFY_EACH_PASS"):
    if os.environ.get(name):
        config.environment[name] = os.environ[name]
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    (
        "TILEORCH_ROUNDTRIP",
        "tileorch-opt %s --split-input-file --print-op-generic"
        " | tileorch-opt --split-input-file | filecheck %s",
    )
)
config.substitutions.append(
    (
        "TILEORCH_CUSTOM_ROUNDTRIP",
        "tileorch-opt %s --split-input-file | tileorch-opt --split-input-file | filecheck %s",
    )
)
if shutil.which("ptxas"):
    config.available_features.add("ptxas")
