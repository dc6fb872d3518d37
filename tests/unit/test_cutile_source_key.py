"""A cuTile kernel's source identity (tileorch.launchers.cutile_source_key) and the on-disk index
that lets a relaunch in a new process find its compiled program without exporting bytecode
(issue 22): what changes the identity (the file, a global the kernel or a helper reads, compiler
options, cuTile's switches), what makes it unstatable (a function of another module), and
``compiled()`` reading the program by it after the in-process caches are gone."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from types import SimpleNamespace

import pytest

from tileorch.launchers import cutile as rc
from tileorch.launchers.cutile_source_key import source_identity

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

KERNELS = '''
import math
import cuda.tile as ct
from cuda.tile import Constant

SCALE = 2.0
SHIFT = 1


@ct.function
def shifted(t):
    return t + SHIFT


@ct.kernel
def scale(x, y, tile: Constant[int]):
    i = ct.bid(0)
    ct.store(y, index=(i,), tile=shifted(ct.load(x, index=(i,), shape=(tile,))) * SCALE)


@ct.kernel
def plain(x, y, tile: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(tile,)) * math.pi)
'''


def load(tmp_path, text=KERNELS, name="kernels_mod"):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def mod(tmp_path):
    yield load(tmp_path)
    sys.modules.pop("kernels_mod", None)


def test_identity_is_stable_and_names_the_options(mod):
    import cuda.tile as ct

    first, why = source_identity(mod.scale)
    assert why == "" and len(first) == 64 and source_identity(mod.scale) == (first, "")
    # the same function as another kernel object: the same identity; other compiler options: another
    assert source_identity(ct.kernel(mod.scale._annotated_function.pyfunc))[0] == first
    assert source_identity(ct.kernel(mod.scale._annotated_function.pyfunc, occupancy=2))[0] != first
    assert source_identity(mod.plain)[0] not in (first, None)


def test_a_global_the_kernel_or_its_helper_reads_is_part_of_it(mod):
    first = source_identity(mod.scale)[0]
    mod.SCALE = 3.0  # read by the kernel
    second = source_identity(mod.scale)[0]
    mod.SHIFT = 2  # read by the @ct.function helper only
    third = source_identity(mod.scale)[0]
    assert len({first, second, third}) == 3
    mod.SCALE, mod.SHIFT = 2.0, 1
    assert source_identity(mod.scale)[0] == first
    mod.SCALE = -0.0  # 0.0 and -0.0 are different constants
    zero = source_identity(mod.scale)[0]
    mod.SCALE = 0.0
    assert source_identity(mod.scale)[0] != zero


def test_an_edit_of_the_file_changes_it(mod, tmp_path):
    first = source_identity(mod.plain)[0]
    path = tmp_path / "kernels_mod.py"
    path.write_text(path.read_text() + "\n# an edit below the kernels\n")
    assert source_identity(mod.plain)[0] != first


def test_cutile_switches_are_part_of_it(mod, monkeypatch):
    first = source_identity(mod.plain)[0]
    monkeypatch.setenv("CUDA_TILE_CACHE_DIR", "/elsewhere")  # where cuTile writes: not a switch
    monkeypatch.setenv("CUDA_TILE_TEMP_DIR", "/tmp/other")
    assert source_identity(mod.plain)[0] == first
    monkeypatch.setenv("CUDA_TILE_TESTING_DISABLE_DIV", "1")
    assert source_identity(mod.plain)[0] != first


@pytest.mark.parametrize("reads, why", [
    ("helper = __import__('os').path.join", "reads the function posixpath.join of another file"),
    ("helper = __import__('json')", "reads module json"),
    ("helper = object()", "reads a builtins.object"),
])
def test_what_cannot_be_stated_gives_no_identity(tmp_path, reads, why):
    text = KERNELS + f"\n{reads}\n\n@ct.kernel\ndef uses(x, tile: ct.Constant[int]):\n    helper\n    ct.bid(0)\n"
    module = load(tmp_path, text, "kernels_bad")
    try:
        assert source_identity(module.uses) == (None, f"the kernel {why}")
        assert source_identity(module.scale)[0] is not None  # the module's other kernels keep theirs
    finally:
        sys.modules.pop("kernels_bad", None)


def test_postponed_annotations_have_an_identity(tmp_path):
    """With ``from __future__ import annotations`` (cuTile evaluates the kernel's annotations when
    it is decorated) the kernel has an identity; the names its annotations spell are read as
    globals (a rebinding changes it: a miss, never a stale hit), and the parameters' kinds (a
    constant or not) are part of it."""
    text = "from __future__ import annotations\n" + KERNELS.replace("SHIFT = 1\n", "SHIFT = 1\nConst = Constant[int]\n")
    text = text.replace("tile: Constant[int]):\n    i =", "tile: Const):\n    i =")
    module = load(tmp_path, text, "kernels_future")
    try:
        first, why = source_identity(module.scale)
        assert why == "" and first is not None and source_identity(module.scale)[0] == first
        module.Const = module.Constant[float]
        assert source_identity(module.scale)[0] not in (first, None)
        other = load(tmp_path, text.replace("Const = Constant[int]", "Const = int"), "kernels_future2")
        assert source_identity(other.scale)[0] != first  # (also another file)
    finally:
        sys.modules.pop("kernels_future", None)
        sys.modules.pop("kernels_future2", None)


def test_a_name_only_the_source_spells_is_read(tmp_path):
    """An annotation of a local variable is never evaluated by Python (the code object does not
    read it) but cuTile's front end sees it in the source: its value is part of the identity."""
    text = KERNELS + """
LocalType = ct.float32


@ct.kernel
def annotated(x, y, tile: ct.Constant[int]):
    t: LocalType = ct.load(x, index=(ct.bid(0),), shape=(tile,))
    ct.store(y, index=(ct.bid(0),), tile=t)
"""
    module = load(tmp_path, text, "kernels_local")
    try:
        assert "LocalType" not in module.annotated._annotated_function.pyfunc.__code__.co_names
        first = source_identity(module.annotated)[0]
        module.LocalType = module.ct.float16
        assert source_identity(module.annotated)[0] not in (first, None)
        module.LocalType = __import__("json")
        assert source_identity(module.annotated) == (None, "the kernel reads module json")
    finally:
        sys.modules.pop("kernels_local", None)


class Dev:
    def __init__(self, ptr, n):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": (n,), "typestr": "<f4", "strides": None,
                                         "version": 3}


def test_a_new_process_reads_the_program_by_the_identity_without_exporting(mod, tmp_path, monkeypatch):
    """compiled() stores an index entry beside the program; with the in-process caches cleared
    (a new process), the same kernel and signature read the program without cuTile's exporter;
    another signature, or an edited global, exports and compiles again."""
    import tileorch.driver as frontend

    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILEORCH_CACHE", raising=False)
    compiles, exports = [], []
    export = rc.export_bytecode

    def counted_export(kernel, arguments):
        exports.append(kernel)
        return export(kernel, arguments)

    def compile_program(data, name, arch="sm_90a", schedule="persistent", ptxas=True, **_):
        compiles.append(name)
        return SimpleNamespace(kind="simt", ptx=".version 8.0\n", cubin=b"\x7fELF" + data[:16], kernel=f"k{len(compiles)}",
                               threads=128, gemm_config=None, gemm_args=None, seconds=0.0)

    monkeypatch.setattr(frontend, "compile_program", compile_program, raising=False)
    monkeypatch.setattr(rc, "export_bytecode", counted_export)
    args = (Dev(0x10000, 4096), Dev(0x20000, 4096), 256)
    rc.clear_caches()
    try:
        first = rc.compiled(mod.scale, rc.describe_arguments(mod.scale, args), "sm_90a", "persistent")
        assert len(exports) == 1 and len(compiles) == 1 and first.source_key is not None
        rc.clear_caches()  # a new process
        again = rc.compiled(mod.scale, rc.describe_arguments(mod.scale, args), "sm_90a", "persistent")
        assert len(exports) == 1 and len(compiles) == 1
        assert again.source_key_remark == "read by the kernel's source identity (no bytecode export)"
        assert again.program.cubin == first.program.cubin and again.program.kernel == first.program.kernel
        # another signature (the tile constant): not in the index
        rc.compiled(mod.scale, rc.describe_arguments(mod.scale, args[:2] + (512,)), "sm_90a", "persistent")
        assert len(exports) == 2 and len(compiles) == 2
        rc.clear_caches()
        # a global changed after cuTile's front end read the kernel in this process: cuTile keeps
        # what it read (its export does not change), so the identity of the values now must be
        # neither read nor written (a new process with SCALE = 5.0 would export another program)
        mod.SCALE = 5.0
        changed = rc.compiled(mod.scale, rc.describe_arguments(mod.scale, args), "sm_90a", "persistent")
        assert len(exports) == 3 and changed.source_key is None
        assert changed.source_key_remark.startswith("scale reads other values (or its file changed) since")
        assert not any(p.name.startswith(".") for p in (tmp_path / "cache").rglob("*"))
        # the cache off: no index read or written
        rc.clear_caches()
        monkeypatch.setenv("TILEORCH_CACHE", "0")
        off = rc.compiled(mod.scale, rc.describe_arguments(mod.scale, args), "sm_90a", "persistent")
        assert off.source_key is None and off.source_key_remark == "the on-disk cache is off" and len(exports) == 4
    finally:
        rc.clear_caches()


def test_a_parameter_or_local_named_as_a_global_is_not_read(tmp_path):
    """``x`` a parameter and ``y`` a local of the kernel, both also module globals of a kind the
    identity cannot state: the kernel reads neither global."""
    text = KERNELS + """
x = object()
t = object()


@ct.kernel
def shadowing(x, y, tile: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(tile,))
    ct.store(y, index=(ct.bid(0),), tile=t)
"""
    module = load(tmp_path, text, "kernels_shadow")
    try:
        identity, why = source_identity(module.shadowing)
        assert why == "" and identity is not None
    finally:
        sys.modules.pop("kernels_shadow", None)


RELAUNCH_CHILD = """
import os, sys, importlib.util
from types import SimpleNamespace
step, path = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("kernels_relaunch", path)
mod = importlib.util.module_from_spec(spec)
sys.modules["kernels_relaunch"] = mod
spec.loader.exec_module(mod)
from tileorch.launchers import cutile as rc
from tileorch.testing.export import FakeDeviceArray
if step == "fill":  # the compile stood in for (the entry holds a cubin: it is stored)
    import tileorch.driver as frontend
    frontend.compile_program = lambda data, name, **_: SimpleNamespace(
        kind="simt", ptx=".version 8.0\\n", cubin=b"\\x7fELF" + data[:16], kernel="k1", threads=128,
        gemm_config=None, gemm_args=None, seconds=0.0)
args = (FakeDeviceArray(0x10000, (4096,)), FakeDeviceArray(0x20000, (4096,)), 256)
entry = rc.compiled(mod.scale, rc.describe_arguments(mod.scale, args), "sm_90a", "persistent")
print(entry.program.kernel, entry.source_key_remark)
print(sorted(m for m in ("xdsl", "llvmlite", "tileorch.driver", "tileorch.dialects", "tileorch.transforms",
                         "tileorch.frontend", "cuda.tile._compile") if m in sys.modules))
"""


def test_a_relaunch_in_a_new_process_imports_no_compiler(tmp_path):
    """The cuTile launcher's cache-hit path in a fresh process (the kernel found by its source
    identity): no xDSL, no tileorch compiler layer, no cuTile exporter is imported."""
    import os
    import subprocess

    path = tmp_path / "kernels_relaunch.py"
    path.write_text(textwrap.dedent(KERNELS))
    script = tmp_path / "child.py"
    script.write_text(RELAUNCH_CHILD)
    env = {**os.environ, "TILEORCH_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("TILEORCH_CACHE", None)
    outs = []
    for step in ("fill", "hit"):
        proc = subprocess.run([sys.executable, str(script), step, str(path)], capture_output=True, text=True,
                              env=env, timeout=240)
        assert proc.returncode == 0, proc.stderr[-3000:]
        outs.append(proc.stdout.strip().splitlines())
    assert outs[0][1] != "[]"  # the filling process did export and (stood-in) compile
    assert outs[1][0] == "k1 read by the kernel's source identity (no bytecode export)", outs[1]
    assert outs[1][1] == "[]", outs[1]
