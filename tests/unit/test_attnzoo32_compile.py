"""Session 32's attention zoo (``tileorch.testing.attnzoo32_programs``, issue 20): each program exported
through the launcher's argument description and cuTile's exporter (no GPU) and lowered for sm_90a
(``compile_memo.lower_once``: the driver's decision and remarks) takes the path its table entry names; a
program the tensor-core tier refuses says why at the user's line (a located warning holding the table's
text), never a silent SIMT fallback or the tier's internal words; the heaviest chained kernels assemble
with ptxas without spilling.  Needs cuda-tile."""

from __future__ import annotations

import inspect
import math
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import cuda.tile as ct  # noqa: E402

from tileorch.testing import attnzoo32_programs  # noqa: E402
from tileorch.testing.attnzoo32_programs import _S64, PROGRAMS, _kpos, _online, _state  # noqa: E402

SOURCE = str(Path(attnzoo32_programs.__file__))
TENSOR_CORES = "chained dots compiled through the TileAS tier to TMA + WGMMA"


def _lowered(name):
    """The lowering's record (``lower_once``); of a program test_chained_kernel_assembles_without_spills compiles
    (``SPILL_CHECKED``), read off that compile (``lower_once_compiled``: lowered once for both)."""
    from tileorch.testing.compile_memo import lower_once, lower_once_compiled
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    lower = lower_once_compiled if name in SPILL_CHECKED else lower_once
    return lower(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a")


def _line_of(kernel, text):
    src, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(src) if text in ln)


def test_the_zoo_has_its_programs():
    assert len(PROGRAMS) >= 20
    assert sum(p.path == "chained" for p in PROGRAMS.values()) >= 13


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path(name):
    """The table's path; a chained kernel says it took the tensor cores; a refused one names the refusal at a
    line of this set's file; no internal error, no unlocated 'left a kernel unlowered', no tier op name."""
    p = PROGRAMS[name]
    prog = _lowered(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    assert not [r for r in remarks if "refused" in r and ("producer agent" in r or "'nv_tile" in r)], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.error:
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
    else:
        assert not refusals, remarks
    if p.path == "chained":
        assert any(TENSOR_CORES in r for r in remarks), remarks


def test_gathered_kv_takes_the_chained_kernel():
    """Pages narrower than the key tile, K gathered by slot: every operand tile of the loop is a gather, so the tier
    built no pipeline; before session 32 the only word was an unlocated 'the TileAS tier left a kernel
    unlowered', then a warning at the gather.  Since session 37 ``tileas-paged-gather`` loads each 64-key tile as
    its four 16-slot pages (TMA boxes of 16 rows), said in a remark at the user's ct.gather of K."""
    line = _line_of(attnzoo32_programs.z32_paged_slot_gather, "k = ct.gather(Kc")
    prog = _lowered("z32_paged_slot_gather")
    remarks = list(prog.remarks)
    assert prog.kind == "chained", remarks
    hit = [r for r in remarks if r.startswith(f"{SOURCE}:{line}:") and "remark:" in r.split("\n")[0]]
    assert hit and "4 pages of 16 slots" in hit[0], remarks


def test_lse_alone_takes_the_chained_kernel():
    """The LSE alone (one dot per key tile from zeros, reduced by rows): refused before session 32 with the tier's
    'expected a producer agent with 2 TMA tile loads', in session 32 at the dot ('not accumulated over its loop');
    now the chained kernel with an unread second dot (tileas-row-statistics-chain), said at the dot, the record's
    unread_second_dot set."""
    line = _line_of(attnzoo32_programs.z32_lse_only, "s = ct.mma(")
    prog = _lowered("z32_lse_only")
    assert prog.kind == "chained", list(prog.remarks)
    assert prog.chained.get("unread_second_dot") is True
    assert any(r.startswith(f"{SOURCE}:{line}:") and "only reduced over its loop" in r for r in prog.remarks), \
        list(prog.remarks)


@ct.kernel
def _lse_kt(Q, KT, LSE, sm_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """The LSE alone with K stored transposed ``[BH, D, S]`` (the dot's B a loaded ``[D, BN]`` tile, no transpose;
    a test program of this file)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = KT.shape[2]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        kt = ct.load(KT, index=(bh, 0, j), shape=(1, D, BN), padding_mode=ct.PaddingMode.ZERO).reshape((D, BN))
        s = ct.mma(q, kt, ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        l_i = l_i * ct.exp(m_i - m_new) + ct.sum(ct.exp(s - m_new), axis=1, keepdims=True)
        m_i = m_new
    ct.store(LSE, index=(bh, qt), tile=(m_i + ct.log(l_i)).reshape((1, BM)))


@ct.kernel
def _lse_computed_k(Q, K, LSE, sm_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """The LSE alone with each K tile scaled in the loop before the dot (a computed B; a test program of this
    file)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        k = (k.astype(ct.float32) * 0.5).astype(K.dtype)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale  # the dot
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        l_i = l_i * ct.exp(m_i - m_new) + ct.sum(ct.exp(s - m_new), axis=1, keepdims=True)
        m_i = m_new
    ct.store(LSE, index=(bh, qt), tile=(m_i + ct.log(l_i)).reshape((1, BM)))


def test_unaccumulated_dot_with_a_computed_b_is_refused_at_its_line():
    """The LSE alone whose K tile is computed in the loop: tileas-row-statistics-chain takes a loaded B only, so the
    program stays on the SIMT path with a located warning (the computed operand's, at the cast)."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    spec = [((2, 150, 64), "float16"), ((2, 170, 64), "float16"), ((2, 150), "float32"), 0.125, 64, 64, 64]
    prog = lower_once(cutile_bytecode(_lse_computed_k, spec), "z32_test_lse_computed_k", arch="sm_90a")
    line = _line_of(_lse_computed_k, "k = (k.astype")
    assert prog.kind == "simt" and not prog.chained
    assert any(r.startswith(f"{Path(__file__)}:{line}:") and "warning: this dot operand is computed in the kernel"
               in r for r in prog.remarks), list(prog.remarks)


def test_lse_alone_with_k_stored_transposed_takes_the_chained_kernel():
    """The dot's B a loaded [D, BN] tile (K stored [BH, D, S]): the unread second dot reads its transpose (K-major)."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    spec = [((2, 150, 64), "float16"), ((2, 64, 176), "float16"), ((2, 150), "float32"), 0.125, 64, 64, 64]
    prog = lower_once(cutile_bytecode(_lse_kt, spec), "z32_test_lse_kt", arch="sm_90a")
    assert prog.kind == "chained" and prog.chained.get("unread_second_dot"), list(prog.remarks)


SPILL_CHECKED = ["z32_causal_d160", "z32_decode_gqa8_bshd_lens", "z32_lse_only", "z32_two_mha_heads"]
"""The register-heaviest chained kernels of the set (head dim 160 in a 256-wide tile; 8-row decode at d128), and
session 33's (the LSE alone with its unread second dot: ptxas keeps the WGMMAs, no spill)."""


@pytest.mark.parametrize("name", SPILL_CHECKED)
def test_chained_kernel_assembles_without_spills(name):
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



@ct.kernel
def _v_gathered(Q, K, Vc, Slots, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """K tile-loaded, V's rows gathered by a slot list (a test program of this file)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        rows = ct.load(Slots, index=(j,), shape=(BN,), padding_mode=ct.PaddingMode.ZERO)[:, None]
        v = ct.gather(Vc, (bh, rows, ct.arange(D, dtype=ct.int32)[None, :]))  # the gather
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, Vc.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


def test_gathered_v_is_refused_at_the_gather():
    """K tile-loaded, V gathered by a slot list: refused before this session at the helper's dot as "the second
    dot's B is not a TMA tile load of the loop"; now at the user's ct.gather, saying it is gathered."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    f16 = "float16"
    spec = [((2, 128, 64), f16), ((2, 150, 64), f16), ((2, 150, 64), f16), ((192,), "int32"), ((2, 128, 64), f16),
            _S64, 64, 64, 64]
    prog = lower_once(cutile_bytecode(_v_gathered, spec), "z32_test_v_gathered", arch="sm_90a")
    line = _line_of(_v_gathered, "# the gather")
    assert prog.kind == "simt"
    assert any(r.startswith(f"{Path(__file__)}:{line}:") and "the second dot's B is gathered (ct.gather)" in r
               for r in prog.remarks), list(prog.remarks)


def test_two_heads_a_program_split_into_two_chains():
    """Two MHA heads a program, side by side in one key loop: refused before session 33 ("second dots reading
    different B tiles of their own"); now split into two programs of one chain (tileas-split-chains), said at the
    loop, the record's grid_split doubling the launch's axis 0."""
    line = _line_of(attnzoo32_programs.z32_two_mha_heads, "for j in range(")
    prog = _lowered("z32_two_mha_heads")
    assert prog.kind == "chained", list(prog.remarks)
    assert prog.chained["grid_split"] == [0, 2]
    assert any(r.startswith(f"{SOURCE}:{line}:") and "2 independent chains in one program" in r
               for r in prog.remarks), list(prog.remarks)


@pytest.mark.parametrize("name", ["z32_two_mha_heads", "z32_lse_only"])
def test_session33_kernels_are_proved(name):
    """``tileorch check`` proves the chained kernels the two-heads program (tileas-split-chains) and the LSE alone
    (tileas-row-statistics-chain) became: their pipelines' barriers and phases as for any chained program."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract
    from tileorch.testing.compile_memo import lower_once_deriving
    from tileorch.testing.export import cutile_bytecode

    def prove(module):
        results = [check(proto) for proto in extract(module)]
        return [(r.ok, str(r.violation)) for r in results]

    p = PROGRAMS[name]
    prog, results = lower_once_deriving(cutile_bytecode(p.kernel, p.spec), name, prove, "check", arch="sm_90a")
    assert prog.kind == "chained" and results and all(ok for ok, _ in results), results
