"""``tileorch.lazy_import``: a module imported on first attribute read; the SIMT route of a
compile does not import the TileAS tier's dialect nor the mma.sync payload ops (a fresh process
compiling a softmax), a dot on the SIMT route does import the payload ops."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tileorch.lazy_import import lazy_module


def test_lazy_module_imports_on_first_read_and_sees_patches(monkeypatch):
    import json

    lazy = lazy_module("json")
    assert "not" not in repr(lazy) and "imported" not in repr(lazy)
    assert lazy.dumps([1]) == "[1]"
    assert "(imported)" in repr(lazy)
    monkeypatch.setattr(json, "dumps", lambda x: "patched")
    assert lazy.dumps([1]) == "patched"


PROGRAM = """cuda_tile.module @m {
  entry @expk(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %n: tile<i32>) {
    %tok = make_token : token
    %tvx = make_tensor_view %x, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %tvy = make_tensor_view %y, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %px = make_partition_view %tvx : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %py = make_partition_view %tvy : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %t, %t1 = load_view_tko weak %px[%bx] token = %tok : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %e = exp %t : tile<128xf32>
    %t3 = store_view_tko weak %e, %py[%bx] : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  }
}
"""


def test_simt_compile_does_not_import_the_tier_dialect_or_mma_payload(tmp_path):
    src = tmp_path / "expk.mlir"
    src.write_text(PROGRAM)
    code = textwrap.dedent(f"""
        import sys
        from tileorch.api import compile
        kernel = compile({str(src)!r}, ptxas=False, cache=False)
        assert "ex2.approx" in kernel.ptx, kernel.ptx[:200]
        print(sorted(m for m in sys.modules if m.endswith(("nv_tileas_tile", "nvvm_payload"))))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stdout + proc.stderr
