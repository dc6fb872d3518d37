"""The second attention set (``tileorch.testing.attention_programs2``, issue 20: attention-shaped
programs acceptance has not shown us): each program exported through the launcher's argument
description and cuTile's exporter (no GPU), compiled for sm_90a, takes the path its table entry
names; a program the chained tier refuses says why at the user's line (no silent slow path, no
internal error); ``tileorch check`` proves the pipelines and barrier hand-offs of the chained
kernels.  The programs the CPU runs (test_attention_programs2_emulated.py) are not compiled again
here except for the proof.

Lifted by this set (session 16): a one-query decode tile ``(1, D)`` (and sweep 6's 4-row GQA tile)
is padded to the WGMMA's 64 rows like the 8/16/32-row tiles, with split-KV's ``[1, 1]`` LSE store."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import attention_programs2  # noqa: E402
from tileorch.testing.attention_programs2 import PROGRAMS  # noqa: E402

SOURCE = str(Path(attention_programs2.__file__))
EMULATED = {"attn_softcap_causal", "attn_rel_pos_clamped", "attn_logn_scaling", "attn_bias_and_key_mask",
            "attn_uint8_mask_per_batch", "attn_sigmoid", "attn_window_both_sides_ragged", "attn_chunked_prefill",
            "attn_spec_decode_tail", "attn_varlen_q_and_k", "attn_mla_dqk192_dv128", "attn_head96_causal",
            "attn_head80", "attn_kv_packed", "attn_flat_grid_divmod", "attn_q_prescaled_exp", "attn_output_gate",
            "attn_decode_one_query", "attn_head_temperature", "attn_anti_causal", "attn_decode_gqa2",
            "attn_flat_rows_2d", "attn_dropout_mask_tensor", "attn_softcap_causal_d128_bm64_bn128",
            "attn_bias_and_key_mask_bm128_bn128", "attn_chunked_prefill_d128_bm128", "attn_decode_one_query_d128_bn128",
            "attn_window_both_sides_ragged_bm128_bn128", "attn_sink_logit", "attn_decode_split_one_query",
            "attn_decode_one_query_lens"}


def _compile(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)


def _line_of(kernel, text: str, nth: int = 0) -> int:
    fn = kernel._annotated_function.pyfunc if hasattr(kernel, "_annotated_function") else kernel  # a helper
    lines, first = inspect.getsourcelines(fn)
    return first + [i for i, ln in enumerate(lines) if text in ln][nth]


def test_the_set_has_its_programs():
    assert len(PROGRAMS) >= 20
    assert EMULATED <= set(PROGRAMS)
    assert sum(p.path == "chained" for p in PROGRAMS.values()) >= 20


@pytest.mark.parametrize("name", sorted(n for n in PROGRAMS if n not in EMULATED))
def test_program_compiles_on_its_path(name):
    p = PROGRAMS[name]
    prog = _compile(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.error:  # the tier's refusal, at the user's line, saying why
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
    else:
        assert not refusals, remarks
    if p.path == "chained":
        assert "wgmma.mma_async" in prog.ptx


@pytest.mark.parametrize("name, where, text, nth", [
    ("attn_store_probs", "attn_store_probs", "for j in range(nk):", 1),  # the second loop
    ("attn_fused_rope_q", "attn_fused_rope_q", "q = ct.cat(", 0),
])
def test_refusals_name_the_users_line(name, where, text, nth):
    prog = _compile(name)
    assert prog.kind == "simt"
    (refusal,) = [r for r in prog.remarks if "refused" in r]
    line = _line_of(getattr(attention_programs2, where), text, nth)
    assert refusal.startswith(f"{SOURCE}:{line}:"), refusal


@pytest.mark.parametrize("name", ["attn_decode_one_query", "attn_decode_split_one_query", "attn_bias_and_key_mask", "attn_window_both_sides_ragged",
                                  "attn_mla_dqk192_dv128", "attn_kv_packed", "attn_varlen_q_and_k",
                                  "attn_exp_lse_causal_bf16", "attn_causal_diag_peeled"])
@pytest.mark.parametrize("persistent", ["0", "1"])
def test_chained_kernel_is_proved(name, persistent, monkeypatch):
    """``tileorch check`` (the model checker over the extracted protocol: the K/V ring's full and
    empty barriers, the producer's fills, the consumers' releases) proves the kernel deadlock- and
    race-free, as one instance per CTA and as the persistent kernel."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    p = PROGRAMS[name]
    ctx = make_context()
    kind, lowered = lower_program(load(cutile_bytecode(p.kernel, p.spec), name, ctx), ctx)
    assert kind == "chained"
    (proto,) = extract(lowered)
    result = check(proto)
    assert result.ok, result.violation
