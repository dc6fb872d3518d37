"""The thirty-sixth user sweep's invalid inputs (``tileorch.testing.user_programs36``), through the shared skeletons
of invalid_sweep_checks.py:

* :data:`INVALID` programs (cuTile accepts them, tileorch cannot run them: a RoPE tile stored with its head axis
  into a 2-D output, attention scores in 512 x 512 tiles): the located error at the user's line by the driver,
  ``tileorch compile`` and ``tileorch.cutile.launch``;
* :data:`REJECTED_BY_CUTILE` (the mistakes of users porting torch / Triton LLM kernels: ``ct.softmax``, ``ct.topk``,
  ``ct.clamp``, torch's ``dim=`` / ``keepdim=`` / ``.to()`` / ``.T``, ``math.exp`` of a tile, ``ct.zeros`` without a
  dtype, a 2-D gather with one index tile, fp8 x bf16 ``mma``, a bf16 accumulator, ``where`` without its else value,
  a tile shape from a float argument, a dtype string, ``atomic_max`` into f32, a Python list of tiles, a scatter
  mask of another shape, ``ct.bid()``, ``x[0]`` of a tile): cuTile's own error at the user's line;
* hand-written ``cuda_tile`` text of the paged KV-cache append with one mistake each (:data:`TEXT_MISTAKES`):
  ``tileorch compile`` exits non-zero with ``k.mlir:L:C: error:`` at the line of the mistake, no traceback;
* other files given as the program (:data:`OTHER_FILES`): a safetensors file and CUDA C++ source (found by this
  sweep: "@ identifier expected to start with letter" / "Operation __global__ is not registered"; now named), a
  cubin, a gzip'd module, a truncated export;
* launch mistakes at ``tileorch.cutile.launch`` (:data:`LAUNCH_MISTAKES`) on the KV-cache append: an exception
  naming what is wrong, nothing launched."""

from __future__ import annotations

import gzip
import struct

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs36  # noqa: E402
from tileorch.testing.user_programs36 import INVALID, PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import (_device_array, cutile_rejects_tests, invalid_sweep_tests,  # noqa: E402
                                  invalid_text_and_launch_tests, launch_mistake_tests, other_file_tests,
                                  text_mistake_tests)

SOURCE = user_programs36.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["rope_tile_stored_with_its_head_axis"])
_text_route, test_cutile_launch_stops_at_the_users_line = invalid_text_and_launch_tests(INVALID, SOURCE, [])
test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)

BASE = "kv_cache_paged_append_slot_mapping"
"""The valid program whose ``cuda_tile`` text the mistakes below edit (``load_ptr_tko`` with a mask and padding,
``make_partition_view``, ``divi`` / ``remi`` of the slot, ``store_ptr_tko`` with a mask)."""

TEXT_MISTAKES = {
    # name: (the text replaced, its replacement, words of the error, text of the line the error names)
    "divi_rounding_nearest_even": ("%62 = divi %54, %22 signed rounding<negative_inf>",
                                   "%62 = divi %54, %22 signed rounding<nearest_even>",
                                   "rounding mode must be one of 'zero', 'positive_inf' or 'negative_inf', got "
                                   "'nearest_even'", "rounding<nearest_even>"),
    "remi_signedness_misspelt": ("%64 = remi %54, %23 signed", "%64 = remi %54, %23 unsinged",
                                 "expected signedness to be one of: {'unsigned', 'signed'}", "remi %54, %23 unsinged"),
    "store_mask_of_the_token_column": ("%112 = store_ptr_tko weak %109, %58, %111 token",
                                       "%112 = store_ptr_tko weak %109, %58, %75 token",
                                       "operand is used with type !cuda_tile.tile<8x64xi1>, but has been previously "
                                       "used or defined with type !cuda_tile.tile<8x1xi1>", "store_ptr_tko weak"),
    "load_padding_of_i64": ("load_ptr_tko weak %53, %49, %21 token", "load_ptr_tko weak %53, %49, %20 token",
                            "operand is used with type !cuda_tile.tile<8xi32>, but has been previously used or "
                            "defined with type !cuda_tile.tile<8xi64>", "load_ptr_tko weak %53, %49, %20"),
    "iota_of_6": ("%41 = iota : tile<8xi32>", "%41 = iota : tile<6xi32>", "all dimensions must be powers of two, got [6]",
                  "iota : tile<6xi32>"),
    "partition_tile_of_rank_3": ("%57 = make_partition_view %29 : partition_view<tile=(8x64)",
                                 "%57 = make_partition_view %29 : partition_view<tile=(8x64x1)",
                                 "expected tensor_view rank and tile rank to match, got tensor_view of rank 2 and "
                                 "tiles of rank 3", "tile=(8x64x1)"),
    "block_id_bound_to_two_results": ("%37, %38, %39 = get_tile_block_id", "%37, %38 = get_tile_block_id",
                                      "Operation has 3 results, but was given 2 to bind", "%37, %38 = get_tile_block_id"),
    "constant_of_f32_for_an_i32_tile": ("%22 = constant <i32: 16> : tile<8xi32>",
                                        "%22 = constant <f32: 16.0> : tile<8xi32>",
                                        "mismatch between the element type: f32 and the tile element type i32",
                                        "constant <f32: 16.0>"),
}

test_a_cuda_tile_text_mistake_stops_at_its_line = text_mistake_tests(PROGRAMS, BASE, TEXT_MISTAKES)


def _safetensors(_data):
    header = b'{"w": {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 8]}}'
    return struct.pack("<Q", len(header)) + header + bytes(8)


_CU = b'// the kernel being ported\n#include <cuda_fp16.h>\nextern "C" __global__ void k(float* x) { x[0] += 1; }\n'
OTHER_FILES = {
    # name: (file name, its bytes from the program's, words of the error)
    # found by this sweep: was "@ identifier expected to start with letter, '_', or '\"'." (a header length of 64)
    "a_safetensors_file": ("w.safetensors", _safetensors, "this is a safetensors file"),
    # found by this sweep: was "Operation __global__ is not registered"
    "cuda_cpp_source": ("k.cu", lambda d: _CU, "this is CUDA C++ source (a __global__ / __device__ function)"),
    "a_cubin": ("k.cubin", lambda d: b"\x7fELF\x02\x01\x01\x00" + bytes(56), "this is an ELF file"),
    "the_module_gzipped": ("k.mlir.gz", lambda d: gzip.compress(b"module {}\n"), "this is gzip-compressed data"),
    "the_export_cut_in_its_middle": ("k.tileirbc", lambda d: d[:len(d) // 2], "invalid CUDA Tile IR bytecode at offset"),
}

(test_another_binary_or_a_broken_export_exits_non_zero_naming_the_file, test_every_dropped_byte_exits_cleanly) = \
    other_file_tests(PROGRAMS, BASE, OTHER_FILES, every=389)


def _x(i, shape, dt="float16"):
    return _device_array(i, shape, dt)


LAUNCHED = "kv_cache_append_rows_at_positions"
_OK = (_x(0, (21, 128)), _x(1, (21, 128)), _x(2, (21,), "int32"), _x(3, (64, 128)), _x(4, (64, 128)), 16, 128)
LAUNCH_MISTAKES = {
    # name: (program, grid, args, exception type, words of its message)
    "a_token_tile_of_24": (LAUNCHED, (1,), _OK[:5] + (24, 128), Exception,
                           "Result tile shape must be power of 2, got 24"),
    "the_positions_left_out": (LAUNCHED, (2,), _OK[:2] + _OK[3:], TypeError,
                               "kernel 'kv_cache_append_rows_at_positions' takes 7 arguments"),
    "a_grid_of_no_tiles": (LAUNCHED, (0,), _OK, ValueError, "grid extents must be positive"),
    "the_cache_on_the_new_keys": (LAUNCHED, (2,), _OK[:3] + (_x(0, (64, 128)),) + _OK[4:], ValueError,
                                  "argument 3 ('KCache') shares memory with argument 0 ('KNew')"),
}

(test_a_launch_mistake_raises_naming_what_is_wrong, test_the_launch_of_a_valid_program_gets_as_far_as_the_driver) = \
    launch_mistake_tests(PROGRAMS, LAUNCH_MISTAKES, SOURCE,
                         (LAUNCHED, (2,), _OK, ("no kernel named", "No module named 'cuda.bindings'")))


def test_the_sweep_has_its_invalid_inputs():
    """About 35 invalid inputs (the brief): cuTile's refusals, tileorch's located refusals, text mistakes, other files
    and launch mistakes."""
    assert len(REJECTED_BY_CUTILE) + len(INVALID) + len(TEXT_MISTAKES) + len(OTHER_FILES) + len(LAUNCH_MISTAKES) >= 35
