"""Session 37's paged-KV / decode set (``tileorch.testing.attnpaged37_programs``, issue 20): every program exported
through the launcher's argument description and cuTile's exporter (no GPU) and lowered for sm_90a
(``compile_memo.lower_once``) takes the path its table entry names: the chained ones say they took the tensor cores
(TMA + WGMMA), the K / V gathered slot by slot and the pages joined by ``ct.cat`` among them (session 37); the one
SIMT program (the split-KV combine, no dot) compiles without a refusal; never a silent SIMT fallback, an internal
error or a tier op name.  The flattened page walk, the 16-slot pages, the joined pages and the slot gather are
proved by ``tileorch check``; the heaviest assemble without spills.  Needs cuda-tile."""

from __future__ import annotations

import inspect
import os
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import attnpaged37_programs  # noqa: E402
from tileorch.testing.attnpaged37_programs import PROGRAMS  # noqa: E402

import cuda.tile as ct  # noqa: E402

ALL = pytest.mark.skipif(not os.environ.get("TILEORCH_EMULATE_ALL"),
                         reason="CI-sized subset: TILEORCH_EMULATE_ALL=1 runs every case")

SOURCE = str(Path(attnpaged37_programs.__file__))
C = ct.Constant
TENSOR_CORES = "chained dots compiled through the TileAS tier to TMA + WGMMA"


def _lowered(name):
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return lower_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a")


def _line_of(kernel, text):
    src, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(src) if text in ln)


def test_the_set_has_its_programs():
    assert len(PROGRAMS) >= 16
    assert sum(p.path == "chained" for p in PROGRAMS.values()) >= 15


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path(name):
    p = PROGRAMS[name]
    prog = _lowered(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    assert not [r for r in remarks if "refused" in r and ("producer agent" in r or "'nv_tile" in r)], remarks
    refusals = [r for r in remarks if "refused" in r or "warning:" in r]
    if p.error:
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
    else:
        assert not [r for r in refusals if "refused" in r], remarks
    if p.path == "chained":
        assert any(TENSOR_CORES in r for r in remarks), remarks


def test_joined_pages_load_one_box_per_page():
    """The key tile of two 32-slot pages joined by ``ct.cat`` (refused before session 37: "computed from its tile by
    'nv_tileaa.cat', which depends on the element's position") takes the chained kernel: its K and V tensor maps'
    boxes are one page (32 rows), and the producer issues two boxes per tile and operand (d128: two 64-wide
    column chunks each), i.e. 8 TMA loads of a stage."""
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS["p37_decode_pages_cat_bs32"]
    prog = compile_once(cutile_bytecode(p.kernel, p.spec), "p37_decode_pages_cat_bs32", arch="sm_90a", ptxas=False)
    assert prog.kind == "chained", list(prog.remarks)
    assert [t["rows"] for t in prog.chained["tmaps"]] == [64, 32, 32], prog.chained["tmaps"]
    loads = [ln for ln in prog.ptx.splitlines() if "cp.async.bulk.tensor" in ln]
    assert len(loads) == 2 + 8, loads  # Q: two column chunks; K, V: 2 pages x 2 chunks each


@ct.kernel
def q_joined(Q, K, V, O, G: ct.Constant[int], D: ct.Constant[int]):
    b = ct.bid(0)
    q0 = ct.load(Q, index=(b, 0, 0), shape=(1, G, D)).reshape((G, D))
    q1 = ct.load(Q, index=(b, 1, 0), shape=(1, G, D)).reshape((G, D))
    q = ct.cat((q0, q1), axis=0)
    acc = ct.zeros((2 * G, D), dtype=ct.float32)
    for j in range(ct.cdiv(K.shape[1], 64)):
        k = ct.load(K, index=(b, j, 0), shape=(1, 64, D)).reshape((64, D))
        v = ct.load(V, index=(b, j, 0), shape=(1, 64, D)).reshape((64, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((2 * G, 64), dtype=ct.float32))
        acc = ct.mma(ct.exp2(s).astype(ct.float16), v, acc)
    ct.store(O, index=(b, 0, 0), tile=acc.astype(O.dtype).reshape((1, 2 * G, D)))



@pytest.mark.parametrize("name,kernel,pages", [
    ("p37_decode_slot_gather_bs16", attnpaged37_programs.p37_decode_slot_gather, 4),
    ("p37_decode_slot_gather_flat_bs16", attnpaged37_programs.p37_decode_slot_gather_flat, 4),
    ("p37_decode_slot_gather_bs32_g64", attnpaged37_programs.p37_decode_slot_gather, 4)])
def test_slot_gather_loaded_page_by_page(name, kernel, pages):
    """K / V gathered slot by slot (refused before session 37: "this dot operand is gathered") take the chained
    kernel: a remark at each gather (K's and V's lines) says how many pages a tile is, and the tensor maps' boxes
    are one page."""
    prog = _lowered(name)
    assert prog.kind == "chained", list(prog.remarks)
    for text in ("k = ct.gather(", "v = ct.gather("):
        line = _line_of(kernel, text)
        assert any(r.startswith(f"{SOURCE}:{line}:") and "remark:" in r and f"{pages} pages of" in r
                   for r in prog.remarks), (text, list(prog.remarks))
    bs = PROGRAMS[name].spec[-3]
    assert [t["rows"] for t in prog.chained["tmaps"][1:]] == [bs, bs], prog.chained["tmaps"]


def test_joined_query_tile_refused_at_the_cat():
    """``ct.cat`` on the query tile (loaded once) stays refused, at the ``ct.cat``, naming the loop operands as what
    the kernel joins."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    spec = [((2, 64, 64), "float16"), ((2, 256, 64), "float16"), ((2, 256, 64), "float16"),
            ((2, 64, 64), "float16"), 32, 64]
    prog = lower_once(cutile_bytecode(q_joined, spec), "q_joined", arch="sm_90a")
    assert prog.kind == "simt"
    assert any("is tiles joined by ct.cat" in r and "loop operand" in r for r in prog.remarks), list(prog.remarks)


@ct.kernel
def slot_gather_while(Q, Kc, Vc, Table, Lens, O, qk_scale: float, G: C[int], BS: C[int], BN: C[int], D: C[int]):
    """``p37_decode_slot_gather`` with its key walk written as a ``while`` loop (the tier turns it into a ``for``
    before the paged gather matches it)."""
    g, b = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, b)
    q = attnpaged37_programs._q_rows(Q, b, g, G, D)
    m_i, l_i, acc = attnpaged37_programs._state(G, D)
    d = ct.arange(D, dtype=ct.int32)[None, :]
    j = 0
    while j < ct.cdiv(n, BN):
        t = attnpaged37_programs._kpos(j, BN)
        page = ct.gather(Table, (b, t // BS))[:, None]
        slot = (t % BS)[:, None]
        k = ct.gather(Kc, (page, slot, g, d))
        v = ct.gather(Vc, (page, slot, g, d))
        m_i, l_i, acc = attnpaged37_programs._step(q, k, v, m_i, l_i, acc, (t < n)[None, :], qk_scale, Vc.dtype)
        j += 1
    attnpaged37_programs._store_rows(O, b, g, G, D, acc / l_i)


def test_slot_gather_in_a_while_loop_is_remarked():
    """Found by session 37's final read: the driver computed the paged gather's remark on the module before the
    tier's passes, where the walk was still a ``while`` loop the pass does not match, so the gathers were taken as
    page tiles with no remark.  The pass now says it as it rewrites (``remark_sink``): one remark at each gather."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    spec = PROGRAMS["p37_decode_slot_gather_bs16"].spec
    prog = lower_once(cutile_bytecode(slot_gather_while, spec), "slot_gather_while", arch="sm_90a")
    assert prog.kind == "chained", list(prog.remarks)
    here = str(Path(__file__))
    for text in ("k = ct.gather(", "v = ct.gather("):
        line = _line_of(slot_gather_while, text)
        assert any(r.startswith(f"{here}:{line}:") and "remark:" in r and "4 pages of" in r
                   for r in prog.remarks), (text, list(prog.remarks))


def test_nested_page_loop_flattened_with_a_remark():
    """The page walk written as pages outside, the page's key tiles inside: flattened (the page number's read
    repeated at every step), with the flattening's located remark."""
    prog = _lowered("p37_decode_page_inner_loop_r2")
    assert any(r.startswith(f"{SOURCE}:") and "remark: nested K loops" in r for r in prog.remarks), list(prog.remarks)


@pytest.mark.parametrize("name", [pytest.param("p37_decode_page_inner_loop_r2", marks=ALL),
                                  pytest.param("p37_decode_page_gather_bs16", marks=ALL),
                                  "p37_decode_pages_cat_bs32", "p37_decode_slot_gather_bs16"])
def test_paged_kernels_are_proved(name):
    """``tileorch check`` proves the flattened page walk's, the 16-slot pages' and the ``ct.cat``-joined pages'
    kernels (their pipelines' barriers and phases as for any chained program; the joined pages' stage completes on
    four TMA loads' bytes)."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract
    from tileorch.testing.compile_memo import lower_once_deriving
    from tileorch.testing.export import cutile_bytecode

    def prove(module):
        return [(r.ok, str(r.violation)) for r in (check(proto) for proto in extract(module))]

    p = PROGRAMS[name]
    prog, results = lower_once_deriving(cutile_bytecode(p.kernel, p.spec), name, prove, "check", arch="sm_90a")
    assert prog.kind == "chained" and results and all(ok for ok, _ in results), results


@pytest.mark.parametrize("name", [pytest.param("p37_decode_page_gather_g64_bn128", marks=ALL),
                                  pytest.param("p37_decode_page_inner_loop_r2", marks=ALL),
                                  pytest.param("p37_decode_pages_cat_bs32", marks=ALL),
                                  pytest.param("p37_prefill_slot_gather_causal_bs16", marks=ALL)])
def test_chained_kernel_assembles_without_spills(name):
    """64 GQA rows against 128-key pages at head dim 128, the flattened page walk and the joined pages assemble
    without spills."""
    from tileorch.backend.ptxas import ptxas_available, run_ptxas
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    p = PROGRAMS[name]
    prog = compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)
    assert "wgmma.mma_async" in prog.ptx
    result = run_ptxas(prog.ptx, "sm_90a")
    assert not result.spill_warnings(), (name, result.summary())
