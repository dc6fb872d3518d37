"""The twenty-first user sweep's programs as PTX (after LLVM, not the MLIR the SIMT interpreter runs)
run CTA by CTA on the CPU by ``tileorch.testing.ptx_emulator``, against the same independent numpy
references as test_user_sweep21_interp.py: each test there named in :data:`EMULATED` runs again with
its ``run`` swapped for test_user_sweep10_emulated.emulate (its program table pointed at this
sweep's; outputs NaN / sentinel prefilled, ragged sizes, the launcher's parameter order).  The
compiles are shared with test_user_sweep21_compile.py (``compile_once``).  Needs cuda-tile, no GPU,
no ptxas."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep21_interp as s21  # noqa: E402

from tileorch.testing.user_programs21 import PROGRAMS  # noqa: E402

EMULATED = ["test_rmsnorm_residual_fp8_quant_amax", "test_moe_expert_counts_and_slots",
            "test_int8_per_token_quant_rounding_modes", "test_e5m2_block_quant_roundtrip_recip_scale",
            "test_int32_requant_multiplier_rounding_shift", "test_int4_signed_pack_unpack_shifts",
            "test_stochastic_round_f32_to_bf16", "test_byte_popcount_reverse_parity",
            "test_kv_cache_append_paged_slots",
            "test_paged_kv_gather_block_table", "test_causal_conv1d_width4_silu", "test_im2col_3x3_pad1_gather",
            "test_token_dropping_capacity_by_cumsum", "test_every_second_column_by_reshape_extract",
            "test_truncating_casts_with_one_rounding_mode", "test_swin_window_partition_rank5",
            "test_norm_interval_bounds_directed_sqrt"]
"""The tests of test_user_sweep21_interp.py run here on the PTX (a CI-sized subset; all 45 passed on
the emulator in session 25, ``TILEORCH_EMULATE_ALL=1`` runs all): the amax by ``atom.max`` on f32
bits and the saturating e4m3 / e5m2 conversions, ``atom.add``'s returned old value, floor / ceil /
the magic-number round / truncation narrowed to int8, 64-bit arithmetic shifts, int8 shifts with sign
extension, integer bit tricks on bytes, 3-D index scatters and gathers with masks (paged cache,
conv1d taps, im2col), ``cumsum`` of a one-hot along axis 0, ``extract`` of a rank-3 phase,
``cvt.rz.bf16.f32`` and the widenings given ``rounding_mode=RZ``, a rank-5 ``permute``, ``sqrt.rm`` /
``.rp`` / ``.rz``."""
if os.environ.get("TILEORCH_EMULATE_ALL"):
    EMULATED = sorted(n for n in dir(s21) if n.startswith("test_"))


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s21, "run", s10e.emulate)
    s21.every_case(getattr(s21, test))
