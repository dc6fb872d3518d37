"""tileorch's output that leaves its own dialects is upstream MLIR, checked by upstream MLIR itself.

``iree-opt`` (from the ``iree-base-compiler`` wheel, a build of upstream MLIR with its ``builtin``,
``func``, ``arith``, ``scf``, ``cf``, ``llvm``, ``nvvm`` and ``gpu`` dialects) must parse and verify,
for every example in ``examples/``:

* the nvvm stage: the module after ``backend.pipeline.CUTLASS_LOWERING`` then
  ``convert-gpu-ids-to-nvvm`` (what ``tileorch-opt -p ...,convert-pipeline-to-nvvm,convert-gpu-ids-to-nvvm``
  prints), in custom and in generic form;
* the final ``llvm``-dialect module (``tileorch compile --emit=mlir``), in custom and in generic form;

and tileorch must read back what ``iree-opt`` prints for the nvvm stage (upstream's own custom
syntax) to the same module.  Skipped when ``iree-opt`` is not installed.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.printer import Printer

from tileorch.backend import pipeline
from tileorch.diagnostics import parse_module, verify_located
from tileorch.registry import make_context

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
NVVM_STAGE = pipeline.CUTLASS_LOWERING + ["convert-gpu-ids-to-nvvm"]


def _iree_opt() -> str | None:
    here = Path(sys.executable).parent / "iree-opt"  # the venv's, even when not on PATH
    return str(here) if here.exists() else shutil.which("iree-opt")


IREE_OPT = _iree_opt()
pytestmark = pytest.mark.skipif(IREE_OPT is None, reason="iree-opt (pip install iree-base-compiler) not installed")


def _print(module, generic: bool) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue() + "\n"


def upstream(text: str, *args: str) -> str:
    """Run iree-opt on ``text`` (it verifies after parsing); return what it prints."""
    proc = subprocess.run([IREE_OPT, "-", *args], input=text, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise AssertionError(f"upstream MLIR rejected the module:\n{proc.stderr[:3000]}")
    return proc.stdout


def _lower(path: Path):
    """(nvvm-stage module text custom, generic, final custom, final generic) for one example."""
    ctx = make_context()
    module = parse_module(ctx, path.read_text(), str(path))
    assert verify_located(module) == []
    pipeline.run_passes(ctx, module, pipeline.make_passes(NVVM_STAGE))
    assert verify_located(module) == []
    stage = (_print(module, False), _print(module, True))
    pipeline.run_passes(ctx, module, pipeline.make_passes(pipeline.STD_LOWERING))
    assert verify_located(module) == []
    return stage + (_print(module, False), _print(module, True))


_CACHE: dict[Path, tuple[str, str, str, str] | Exception] = {}


def lowered(path: Path) -> tuple[str, str, str, str]:
    """The four texts; an example that tileorch itself cannot lower (an input for another
    front end, say) has no output to check and is skipped with the reason."""
    if path not in _CACHE:
        try:
            _CACHE[path] = _lower(path)
        except Exception as exc:  # noqa: BLE001  (the lowering's own tests cover its errors)
            _CACHE[path] = exc
    if isinstance(_CACHE[path], Exception):
        pytest.skip(f"tileorch does not lower {path.name}: {str(_CACHE[path]).splitlines()[0][:200]}")
    return _CACHE[path]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
@pytest.mark.parametrize("stage", ["nvvm", "nvvm-generic", "llvm", "llvm-generic"])
def test_upstream_accepts(path, stage):
    index = ["nvvm", "nvvm-generic", "llvm", "llvm-generic"].index(stage)
    text = lowered(path)[index]
    if stage.startswith("nvvm"):
        assert '"func.func"' not in text or "nvvm.kernel" not in text.split('"func.func"', 1)[1][:400]
    upstream(text)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_tileorch_reads_upstream_printing(path):
    """Upstream's custom syntax of the nvvm stage (kernels as llvm.func, ``scope = cluster``,
    ``<alignment = 4>``, ``aligned`` ...) parses in tileorch to the module tileorch printed.
    (Upstream's generic printing spells out every default-valued property, some of which
    xDSL's llvm ops do not define: it is not checked here.)"""
    custom, generic = lowered(path)[:2]
    expected = upstream(generic, "--mlir-print-op-generic")
    printed_by_upstream = upstream(generic)
    if "scf.while : () -> ()" in printed_by_upstream:
        pytest.skip("xDSL 0.74's scf.while parser needs the `(...)` of init values that upstream omits")
    module = parse_module(make_context(), printed_by_upstream, "upstream.mlir")
    assert verify_located(module) == []
    # compare through upstream's generic printer, which is insensitive to SSA names (xDSL's
    # llvm.func parser adds the default `unnamed_addr = 0`)
    again = upstream(_print(module, True), "--mlir-print-op-generic")
    assert again.replace("unnamed_addr = 0 : i64, ", "") == expected.replace("unnamed_addr = 0 : i64, ", "")


def test_every_current_nvvm_op_is_upstream():
    """Every op of tests/filecheck/nvvm/roundtrip.mlir but the older ``.shared`` spellings (kept
    only so that old inputs parse) is accepted by upstream in tileorch's custom and generic form."""
    src = (ROOT / "tests" / "filecheck" / "nvvm" / "roundtrip.mlir").read_text()
    legacy = (".shared %", ".shared.")
    body = "\n".join(l for l in src.splitlines()
                     if not l.lstrip().startswith("//") and not any(k in l for k in legacy))
    ctx = make_context()
    module = parse_module(ctx, body, "roundtrip.mlir")
    assert verify_located(module) == []
    upstream(_print(module, False))
    upstream(_print(module, True))


def test_upstream_rejects_what_it_should():
    """The check can fail: the spellings tileorch used before are rejected by upstream."""
    for bad in (
        'func.func @k() attributes {nvvm.kernel} {\n  func.return\n}\n',
        'llvm.func @k() {\n  "nvvm.setmaxregister"() <{regCount = 40 : i32, action = #nvvm<action decrease>}> : () -> ()\n  llvm.return\n}\n',
        'llvm.func @k() {\n  nvvm.cluster.arrive.relaxed {aligned}\n  llvm.return\n}\n',
        'llvm.func @k(%p: !llvm.ptr<1>) {\n  %0 = llvm.load %p {alignment = 4 : i64} : !llvm.ptr<1> -> i32\n  llvm.return\n}\n',
    ):
        with pytest.raises(AssertionError, match="upstream MLIR rejected"):
            upstream(bad)


def test_there_are_examples():
    assert len(EXAMPLES) >= 7


if os.environ.get("TILEORCH_UPSTREAM_EXTRA"):  # more .mlir files to check, ':'-separated
    EXTRA = [Path(p) for p in os.environ["TILEORCH_UPSTREAM_EXTRA"].split(":") if p]

    @pytest.mark.parametrize("path", EXTRA, ids=lambda p: p.stem)
    def test_extra_inputs(path):
        for text in lowered(path):
            upstream(text)
