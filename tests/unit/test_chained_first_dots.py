"""Several first dots sharing their A tile in the chained-dots kernel (issue 20: "the same passes
must handle other two-dot programs"): SwiGLU's ``g = x W1_h``, ``u = x W3_h``, then
``y += (silu(g) * u) W2_h``.  ``analyze_chained_dots`` takes first dots that read the same A
value, whose results feed the second dot's A through elementwise ops; the kernel loads A once,
streams each first dot's B tile into the same ring stage (side by side: one ``n = k1 * tn``
WGMMA reads them as one operand) and gives each first dot its columns of the joint accumulator.
Here: what the analysis takes and refuses (located remarks at the user's line, the SIMT path
then runs the program), the kernel's shape (tensor maps, one n128 WGMMA chain per tile, the
stage's transaction bytes) and ``tileorch check``'s proof of its ring.  The numerics: the PTX
emulator against float64 numpy (tests/unit/test_user_sweep3_emulated.py ``-k swiglu``) and the
GPU (tests/gpu/test_user_sweep3_gpu.py ``-k swiglu``).  Needs cuda-tile."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")


def _compiled(name: str):
    from tileorch.testing.gemm_emulation import compile_cutile
    from tileorch.testing.user_programs3 import PROGRAMS

    p = PROGRAMS[name]
    return compile_cutile(p.kernel, p.spec, name)


def _lowered(name: str, persistent: str = "0"):
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs3 import PROGRAMS

    p = PROGRAMS[name]
    ctx = make_context()
    old = os.environ.get("TILEORCH_ATTN_PERSISTENT")
    os.environ["TILEORCH_ATTN_PERSISTENT"] = persistent  # "0": the ring alone (test_check_chained.py's setting)
    try:
        kind, lowered = lower_program(load(cutile_bytecode(p.kernel, p.spec), name, ctx), ctx)
    finally:
        if old is None:
            os.environ.pop("TILEORCH_ATTN_PERSISTENT", None)
        else:
            os.environ["TILEORCH_ATTN_PERSISTENT"] = old
    assert kind == "chained"
    return lowered


@pytest.mark.parametrize("name, tn, d, dv, tm", [("mlp_swiglu", 64, 64, 64, 128), ("mlp_swiglu_tm64", 32, 128, 128, 64),
                                                 ("mlp_swiglu_wt", 64, 128, 64, 128),
                                                 ("mlp_swiglu_bf16", 64, 64, 128, 128)])
def test_swiglu_takes_the_chained_kernel(name, tn, d, dv, tm):
    """Two first dots: four tensor maps (x, W1, W3, W2), one ``m64n{2 tn}k16`` chain per tile for
    both first dots (d / 16 WGMMAs) and the second dot's ``m64n{dv}k16`` (tn / 16), the tier's
    remark and no refusal (the stage's bytes: :func:`test_swiglu_ring_is_proved`)."""
    from tileorch.testing.user_programs3 import PROGRAMS

    prog = _compiled(name)
    assert prog.kind == "chained", prog.remarks
    assert any("chained dots compiled through the TileAS tier" in r for r in prog.remarks), prog.remarks
    assert not [r for r in prog.remarks if "refused" in r or "warning" in r], prog.remarks
    rec = prog.chained
    assert rec["first_dots"] == 2 and (rec["tm"], rec["tn"], rec["d"], rec["dv"]) == (tm, tn, d, dv)
    assert [t["arg"] for t in rec["tmaps"]] == [0, 5, 10, 15]  # x, W1, W3, W2: each array's base pointer
    dt = "bf16" if PROGRAMS[name].spec[0][1] == "bfloat16" else "f16"
    wide = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n{2 * tn}k16\.f32\.{dt}\.{dt}", prog.ptx)
    second = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n{dv}k16\.f32\.{dt}\.{dt}", prog.ptx)
    assert wide and len(wide) % (d // 16) == 0, len(wide)
    assert second and len(second) % (tn // 16) == 0, len(second)
    if tn != dv:
        assert not re.findall(rf"m64n{tn}k16", prog.ptx)  # no first dot on its own


def test_first_dots_with_their_own_a_tiles():
    """``relu(x W1) * (z W3)``: the first dots read two A tiles (session 23; refused before): each is
    loaded once into the Q slot (two A tensor maps, X's and Z's, then W1's, W3's, W2's), each first
    dot is its own WGMMA chain of n = tn (no joint n = 2 tn WGMMA: the A tiles differ), and the
    second first dot's line says so."""
    from tileorch.testing import user_programs3

    prog = _compiled("mlp_geglu_two_inputs")
    assert prog.kind == "chained", prog.remarks
    assert len(prog.chained["tmaps"]) == 5
    assert re.findall(r"wgmma\.mma_async\S*m64n64k16", prog.ptx)
    assert not re.findall(r"wgmma\.mma_async\S*m64n128k16", prog.ptx)
    source = str(Path(user_programs3.__file__))
    line = next(i for i, t in enumerate(Path(source).read_text().splitlines(), 1) if "u = ct.mma(z," in t)
    hits = [r for r in prog.remarks if "reads its own A tile" in r]
    assert hits and hits[0].startswith(f"{source}:{line}:"), prog.remarks


def test_first_dots_beyond_the_register_budget_are_refused():
    """128-wide hidden and output tiles: the two first dots' 128 accumulator registers, P (64) and
    the 128x128 output accumulator (64) exceed the budget of 200: a located refusal naming the
    count, the SIMT path compiles it."""
    prog = _compiled("mlp_swiglu_wide")
    assert prog.kind == "simt"
    hits = [r for r in prog.remarks if "first dots of [128, 128] tiles" in r]
    assert hits and "need 256 registers of the consumer's 200" in hits[0], prog.remarks


def test_one_first_dot_keeps_the_two_dot_kernel():
    """A two-GEMM MLP (one first dot): no ``first_dots`` in the record, three tensor maps."""
    prog = _compiled("mlp_relu_sq_chain")
    assert prog.kind == "chained" and "first_dots" not in prog.chained and len(prog.chained["tmaps"]) == 3


@pytest.mark.parametrize("name, persistent, stage", [("mlp_swiglu", "0", 3 * 64 * 64 * 2),
                                                     ("mlp_swiglu", "1", 3 * 64 * 64 * 2),
                                                     ("mlp_three_gates", "1", 4 * 64 * 32 * 2)])
def test_swiglu_ring_is_proved(name, persistent, stage):
    """``tileorch check`` on the kernel (one CTA per instance; persistent: the Q slots' ring too):
    the stage holds every first dot's B tile and W2's (one ``expect_tx`` of their bytes), one full
    arrival, one release per consumer thread; deadlock- and race-free for every trip count it
    explores."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract

    (proto,) = extract(_lowered(name, persistent))
    ring = proto.pipelines[0]
    assert ring.stage_bytes == stage and ring.full_count == 1
    assert ring.empty_count == 128 * (2 if name == "mlp_swiglu" else 1)
    result = check(proto)
    assert result.ok, result.violation
