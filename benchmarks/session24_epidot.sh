# Session 24 s24-epidot on the GPU (one device call, < 150 s; run from the repository root with the compiler
# installed; results under $OUT): the GEMM kernel's second dot on the accumulator (GEMM then GEMM).
#  1. tests/gpu/test_epilogue_dot_gpu.py (torch fp32 references, NaN-prefilled, ragged M and K) and sweep 16's
#     lowrank_chain_xa_b (tests/gpu/test_user_sweep16_gpu.py), which now takes the GEMM tier: all should pass;
#  2. benchmarks/epilogue_dot.py: the new path (tileorch) against the same program on the SIMT path (where it ran
#     before), tileiras and torch; rel_err columns should be ~1e-3, tileorch_kind "gemm", tileorch_simt_kind "simt".
S="$OUT/s24_epidot"; mkdir -p "$S"
timeout 65 python3 -m pytest -q -p no:cacheprovider -rfE tests/gpu/test_epilogue_dot_gpu.py \
  "tests/gpu/test_user_sweep16_gpu.py::test_lowrank_chain_xa_b" > "$S/gpu_tests.log" 2>&1
echo "tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | tail -n 12
timeout 75 python3 benchmarks/epilogue_dot.py --iters 20 --shapes 8192x4096x64x4096,16384x2048x128x2048 --out "$S/epilogue_dot.json" 2>&1 | tee "$S/bench.log" \
  | python3 -c "
import json, sys
for line in sys.stdin:
    if not line.startswith('{'):
        print(line.rstrip()[:200]); continue
    r = json.loads(line)
    print(r['program'], '%dx%dx%dx%d' % (r['m'], r['k'], r['r'], r['n']),
          *['%s=%s' % (k, r.get(k)) for k in ('tileorch_kind', 'tileorch_ms', 'tileorch_simt_ms', 'tileiras_ms',
                                              'torch_ms', 'vs_tileorch_simt', 'vs_torch', 'tileorch_rel_err')],
          *[r[k] for k in r if k.endswith('_error')])
"
