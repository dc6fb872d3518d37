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
import re
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


def upstream_batch(texts: list[str], *args: str) -> list[tuple[str, list[str]]]:
    """One iree-opt run over ``texts`` (``--split-input-file``: each text is its own module);
    for each text, (what upstream printed, upstream's error lines).  One process for many
    modules: iree-opt takes most of a second to start."""
    joined, spans, line = [], [], 1
    for text in texts:
        text = text if text.endswith("\n") else text + "\n"
        spans.append((line, line + text.count("\n")))
        joined.append(text)
        line += text.count("\n") + 1  # the separator line
    proc = subprocess.run([IREE_OPT, "-", "--split-input-file", *args], input="// -----\n".join(joined),
                          capture_output=True, text=True, timeout=600)
    outputs = proc.stdout.split("// -----\n")
    errors: list[list[str]] = [[] for _ in texts]
    for m in re.finditer(r"^<stdin>:(\d+):\d+: error: .*$", proc.stderr, re.M):
        n = int(m.group(1))
        i = next(i for i, (a, b) in enumerate(spans) if a <= n < b)
        errors[i].append(m.group(0))
    if proc.returncode != 0 and not any(errors):
        raise AssertionError(f"iree-opt failed: {proc.stderr[:2000]}")
    outputs += [""] * (len(texts) - len(outputs))
    return list(zip(outputs, errors))


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


FORMS = ["nvvm", "nvvm-generic", "llvm", "llvm-generic"]

# (example, form) -> the known gap (docs/nvvm-conformance.md "Not verified"); xfail, not strict, so
# that the fix shows as XPASS and the entry is then removed
KNOWN_GAPS: dict = {}


@pytest.fixture(scope="module")
def lowered() -> dict[Path, tuple[str, str, str, str] | str]:
    """Every example's four texts, or why tileorch itself does not lower it (an input for
    another front end, say: there is no output to check)."""
    out: dict[Path, tuple[str, str, str, str] | str] = {}
    for path in EXAMPLES:
        try:
            out[path] = _lower(path)
        except Exception as exc:  # noqa: BLE001  (the lowering's own tests cover its errors)
            out[path] = str(exc).splitlines()[0][:200]
    return out


@pytest.fixture(scope="module")
def verdicts(lowered) -> dict[tuple[Path, str], tuple[str, list[str]]]:
    keys = [(p, f) for p, texts in lowered.items() if not isinstance(texts, str) for f in FORMS]
    results = upstream_batch([lowered[p][FORMS.index(f)] for p, f in keys])
    return dict(zip(keys, results))


def _texts(lowered, path):
    texts = lowered[path]
    if isinstance(texts, str):
        pytest.skip(f"tileorch does not lower {path.name}: {texts}")
    return texts


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
@pytest.mark.parametrize("form", FORMS)
def test_upstream_accepts(lowered, verdicts, path, form, request):
    text = _texts(lowered, path)[FORMS.index(form)]
    if (path.stem, form) in KNOWN_GAPS:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_GAPS[(path.stem, form)], strict=False))
    if form == "nvvm":  # kernels leave the nvvm stage as llvm.func
        assert not re.search(r"^\s*func\.func [^\n]*nvvm\.kernel", text, re.M)
    printed, errors = verdicts[(path, form)]
    assert errors == [], "upstream MLIR rejected the module:\n" + "\n".join(errors)
    assert "llvm.func" in printed


@pytest.fixture(scope="module")
def read_back(lowered, verdicts):
    """For each example: tileorch parses upstream's custom printing of its nvvm stage; the
    result, and the original, printed generically by upstream (insensitive to SSA names)."""
    pairs, keys, skipped = [], [], {}
    for path, texts in lowered.items():
        if isinstance(texts, str):
            continue
        printed, errors = verdicts[(path, "nvvm-generic")]
        if errors:
            skipped[path] = "upstream rejected the nvvm stage (test_upstream_accepts reports it)"
            continue
        if "scf.while : () -> ()" in printed:
            skipped[path] = "xDSL 0.74's scf.while parser needs the `(...)` of init values that upstream omits"
            continue
        module = parse_module(make_context(), printed, f"upstream-{path.name}")
        assert verify_located(module) == []
        pairs += [_print(module, True), texts[1]]
        keys.append(path)
    results = upstream_batch(pairs, "--mlir-print-op-generic")
    return {p: (results[2 * i], results[2 * i + 1]) for i, p in enumerate(keys)}, skipped


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_tileorch_reads_upstream_printing(lowered, read_back, path):
    """Upstream's custom syntax of the nvvm stage (kernels as llvm.func, ``scope = cluster``,
    ``<alignment = 4>``, ``aligned`` ...) parses in tileorch to the module tileorch printed.
    (Upstream's generic printing spells out every default-valued property, some of which
    xDSL's llvm ops do not define: it is not checked here.)"""
    _texts(lowered, path)
    results, skipped = read_back
    if path in skipped:
        pytest.skip(skipped[path])
    (again, e1), (expected, e2) = results[path]
    assert e1 == [] and e2 == []
    # xDSL's llvm.func parser adds the default `unnamed_addr = 0`
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
    bad = [
        'func.func @k() attributes {nvvm.kernel} {\n  func.return\n}\n',
        'llvm.func @k() {\n  "nvvm.setmaxregister"() <{regCount = 40 : i32, action = #nvvm<action decrease>}> : () -> ()\n  llvm.return\n}\n',
        'llvm.func @k() {\n  nvvm.cluster.arrive.relaxed {aligned}\n  llvm.return\n}\n',
        'llvm.func @k(%p: !llvm.ptr<1>) {\n  %0 = llvm.load %p {alignment = 4 : i64} : !llvm.ptr<1> -> i32\n  llvm.return\n}\n',
        'llvm.func @k() {\n  llvm.return\n}\n',
    ]
    results = upstream_batch(bad)
    assert [bool(errors) for _, errors in results] == [True, True, True, True, False]


def test_there_are_examples():
    assert len(EXAMPLES) >= 7


if os.environ.get("TILEORCH_UPSTREAM_EXTRA"):  # more .mlir files to check, ':'-separated
    EXTRA = [Path(p) for p in os.environ["TILEORCH_UPSTREAM_EXTRA"].split(":") if p]

    @pytest.mark.parametrize("path", EXTRA, ids=lambda p: p.stem)
    def test_extra_inputs(path):
        for text in _lower(path):
            upstream(text)
