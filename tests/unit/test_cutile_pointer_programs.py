"""Issue 21 (pointer tiles and atomics) with cuTile: the programs of cutile_pointer_programs.py
(gathers and scatters by index tiles and scalars, a histogram, every atomic mode, a compare-and-swap
spin lock in a while loop, a split-K GEMM serialized by a lock and a counter) compile through
convert-cudatile-to-tileaa and the SIMT lowering to PTX that ptxas accepts (GPU-free); a
system-scope atomic_rmw is a located "not supported yet" error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

PROGRAMS = Path(__file__).with_name("cutile_pointer_programs.py")
NAMES = ["histogram", "histogram_f32", "gather_rows", "scatter_rows", "gather_masked", "scalar_counter",
         "spin_lock", "split_k_gemm", "atomic_zoo"]


@pytest.fixture(scope="module")
def bytecode(tmp_path_factory):
    out = tmp_path_factory.mktemp("pointers")
    subprocess.run([sys.executable, str(PROGRAMS), str(out)], check=True, capture_output=True, timeout=300)
    return out


def _ptxas() -> bool:
    from tileorch.backend.ptxas import ptxas_available

    return ptxas_available()


def _compile(bytecode: Path, name: str, **kw):
    """Once per program in a test run: the compile test and the PTX checks of a program share it."""
    from tileorch.testing.compile_memo import compile_once

    return compile_once((bytecode / f"{name}.tileirbc").read_bytes(), name, ptxas=_ptxas(), **kw)


@pytest.mark.parametrize("name", NAMES)
def test_program_compiles_through_the_simt_lowering(bytecode, name):
    prog = _compile(bytecode, name)
    assert prog.kind == "simt" and f".entry {prog.kernel}(" in prog.ptx
    if _ptxas():
        assert prog.cubin and prog.cubin[:4] == b"\x7fELF"


def test_spin_lock_takes_an_acquire_cas_and_releases_with_an_exchange(bytecode):
    ptx = _compile(bytecode, "spin_lock").ptx
    assert "atom.acquire.gpu.global.cas.b32" in ptx
    release = ptx.index("fence.release.gpu")
    assert ptx.index("atom.global.exch.b32", release) > release


def test_split_k_gemm_locks_around_its_partial_sums(bytecode):
    ptx = _compile(bytecode, "split_k_gemm").ptx
    cas = ptx.index("atom.acquire.gpu.global.cas.b32")
    xchg = ptx.index("atom.global.exch.b32")
    assert cas < ptx.index("st.global", cas) < xchg  # C (and the counter) written under the lock
    assert "fence.release.gpu" in ptx[cas:xchg]


def test_atomic_modes_map_to_ptx(bytecode):
    ptx = _compile(bytecode, "atomic_zoo").ptx
    for instr in ("atom.global.add.u32", "atom.global.max.s32", "atom.global.min.s32", "atom.global.and.b32",
                  "atom.global.or.b32", "atom.global.xor.b32", "atom.global.exch.b32", "atom.global.add.f32",
                  "fence.release.cta", "fence.acquire.gpu"):
        assert instr in ptx, instr


def test_histogram_needs_no_fence_when_relaxed(bytecode):
    ptx = _compile(bytecode, "histogram").ptx
    assert "atom.global.add.u32" in ptx and "fence" not in ptx


def test_system_scope_atomic_rmw_is_a_located_error(bytecode):
    from tileorch.diagnostics import LocatedError

    with pytest.raises(LocatedError) as info:
        _compile(bytecode, "atomic_sys")
    message = str(info.value)
    assert message.startswith(f"{PROGRAMS}:") and "'nv_tileaa.atomic_rmw' is not supported yet" in message
    assert "system-scope" in message and "internal error" not in message
