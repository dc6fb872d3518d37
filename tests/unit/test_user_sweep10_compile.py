"""Tenth user sweep (``tileorch.testing.user_programs10``: programs without a dot): each program
exported through the launcher's argument description and cuTile's exporter (no GPU) and compiled
for sm_90a takes the SIMT path its entry names, with no internal error, no tensor-core
instruction, and the launch facts the GPU run and the emulator rely on (a reduction loop split over
a cluster, one program per warp) said by a remark; a ``ct.kernel`` option the SIMT path does not
apply is a warning at the user's line; the 3-D form of a RMSNorm compiles to the accesses of its
2-D form.  The compiles are shared (``compile_once``, the same key as
test_user_sweep10_emulated.py).  Runs on the GPU: tests/gpu/test_user_sweep10_gpu.py."""

from __future__ import annotations

import collections
import inspect
import re
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs10  # noqa: E402
from tileorch.testing.user_programs10 import PROGRAMS  # noqa: E402

SOURCE = str(Path(user_programs10.__file__))

EXPECTED_PATHS = dict.fromkeys([
    "layernorm_fwd_stats", "layernorm_bwd_dx_group_partials", "column_sums_of_partials", "rmsnorm_bwd_atomic_dgamma",
    "rmsnorm_rows_2d", "rmsnorm_rows_3d", "layernorm_4d_heads", "softmax_bwd_two_rows", "log_softmax_vocab_loop",
    "cross_entropy_fwd_bwd_vocab", "online_top1_vocab", "column_argmin_row_chunks", "cumprod_cols_carry",
    "cumsum_int64_reverse_rows", "custom_scan_reduce", "histogram_float_bins_atomic", "row_histogram_2d_indices",
    "embedding_gather_int64_ids", "embedding_bwd_scatter_add_2d", "rope_interleaved_reshape_permute",
    "rope_half_split_positions", "dropout_hash_uint32", "quant_rows_absmax_fp8", "dequant_fp8_rows",
    "quant_int8_round_half_away", "dequant_int8_to_f16", "bit_ops_rotate_popcount", "float_fields_by_bitcast",
    "signed_shifts_by_tiles", "pack_unpack_bytes", "int16_divmod_negatives", "int64_flat_index_gather",
    "nan_inf_cleanup", "bool_mask_masked_mean", "transpose_3d_axes", "pixel_shuffle_rank4", "outer_sum_rank4",
    "extract_insert_rank3", "one_element_tiles", "sum_to_scalar_atomic", "ragged_3d_padding_modes",
    "cat_rank1_broadcast", "nhwc_to_nchw_normalize", "printf_first_row_stats", "assert_nonnegative_sqrt",
    "grid3_num_blocks_stride", "axpy_kernel_options", "softmax_rows_by_target", "stencil_static_helpers",
    "divisible_hint_astile_weights", "array_slice_row_ranges", "advanced_indexing_rows_permuted",
    "atomics_bitwise_exchange", "atomic_min_max_int32_int64", "atomic_cas_claim_slots",
    "tiled_view_atomic_max_min_or", "acquire_flag_release", "pdl_wait_then_scale", "transcendental_zoo",
    "elementwise_functions", "constructors_dtypes", "softmax_long_rows_f32", "bias_gelu_tanh_bf16",
    "col_sum_3d_vs_2d", "f64_row_norms", "segment_sum_sorted_keys", "embedding_bwd_bf16_atomic"], "simt")

# a reduction loop whose few programs leave SMs idle: split over a cluster (cluster_split.py)
CLUSTER_SPLIT = {"column_sums_of_partials", "array_slice_row_ranges", "col_sum_3d_vs_2d"}


def _compile(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)


def test_the_sweep_has_its_programs():
    assert len(PROGRAMS) == 67
    assert set(PROGRAMS) == set(EXPECTED_PATHS)
    for name, p in PROGRAMS.items():
        assert p.outputs and p.path == EXPECTED_PATHS[name], name
        fn = p.kernel._annotated_function.pyfunc
        assert fn.__doc__, name
        src = inspect.getsource(fn)
        assert "ct.mma(" not in src and "ct.matmul(" not in src and " @ " not in src, name
        assert all(isinstance(p.spec[i], tuple) for i in p.outputs), name


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_compiles_on_its_path(name):
    prog = _compile(name)
    remarks = list(prog.remarks)
    assert prog.kind == EXPECTED_PATHS[name], remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r or "refused" in r
                or " error:" in r], remarks
    assert "wgmma" not in prog.ptx and "cp.async.bulk.tensor" not in prog.ptx
    split = [r for r in remarks if "its reduction loop is split over a cluster" in r]
    assert bool(prog.cluster_split) == (name in CLUSTER_SPLIT) == bool(split), remarks
    assert bool(prog.warp_programs) == any("one program per warp" in r for r in remarks), remarks


def _line_of(kernel, text: str) -> int:
    lines, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


@pytest.mark.parametrize("name, option", [("axpy_kernel_options", "occupancy=2"),
                                          ("softmax_rows_by_target", "occupancy=4"),
                                          ("softmax_rows_by_target", "num_ctas=2")])
def test_a_kernel_option_the_simt_path_does_not_apply_is_a_located_warning(name, option):
    said = [r for r in _compile(name).remarks if option in r]
    assert len(said) == 1, _compile(name).remarks
    line = _line_of(PROGRAMS[name].kernel, f"def {name}(")
    assert said[0].startswith(f"{SOURCE}:{line}:") and "warning:" in said[0] and "not applied" in said[0], said


def _global_accesses(ptx: str) -> collections.Counter:
    return collections.Counter(re.findall(r"\b((?:ld|st|atom|red)\.global[.\w]*)", ptx))


def test_rmsnorm_on_a_3d_array_compiles_to_the_accesses_of_its_2d_form():
    two, three = _compile("rmsnorm_rows_2d"), _compile("rmsnorm_rows_3d")
    assert two.threads == three.threads and two.warp_programs == three.warp_programs
    assert _global_accesses(two.ptx) == _global_accesses(three.ptx) != collections.Counter()
