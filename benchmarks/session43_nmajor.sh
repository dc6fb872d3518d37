# Session 43, s43-nmajor: N-major B (and M-major A) for tf32 / fp8 / int8 GEMMs read through the launcher's K-major
# copy, now tileorch's copy program (launchers/k_major_copy.py) bound with the GEMM's launch.  (1) the copy's
# bandwidth vs torch's transposed copy (bit-exact check first); (2) tests/gpu/test_k_major_copy_gpu.py and the
# copy-ordering test (vs float64 references, NaN-prefilled outputs); (3) benchmarks/tile_programs.py at 4096^3 for the
# three N-major-B programs and their K-major twins (tileorch, tileiras where cuTile finds it, torch; one process).
# < 150 s.  Output: $OUT/s43nmajor.tgz (JSON and logs).  Run: bash benchmarks/session43_nmajor.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s43nmajor"; mkdir -p "$S"
ls .whl/*.whl >/dev/null 2>&1 && python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | sed 's/^/[s43 nmajor] /'
T0=$(date +%s)
timeout ${COPY_S:-30} python3 benchmarks/k_major_copy_bw.py --json "$S/copy_bw.json" > "$S/copy_bw.log" 2>&1
echo "[s43 nmajor] copy rc=$? $(( $(date +%s) - T0 )) s"; grep -E "^\[s43 nmajor\]" "$S/copy_bw.log" | head -6
tail -n 4 "$S/copy_bw.log" | grep -v "^\[s43" | cut -c1-300 | sed 's/^/[s43 nmajor] copy tail: /'
T1=$(date +%s)
timeout ${TESTS_S:-45} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 4 \
  tests/gpu/test_k_major_copy_gpu.py tests/gpu/test_launch_copy_ordering_gpu.py > "$S/gpu_tests.log" 2>&1
echo "[s43 nmajor] tests rc=$? $(( $(date +%s) - T1 )) s: $(tail -n 1 "$S/gpu_tests.log")"
grep -E "^(FAILED|ERROR)|^E  " "$S/gpu_tests.log" | head -12 | cut -c1-300 | sed 's/^/[s43 nmajor] /'
T2=$(date +%s)
timeout ${BENCH_S:-65} python3 benchmarks/tile_programs.py --sizes 4096x4096x4096 --iters 20 --out "$S/bench" \
  --programs gemm_fp8_e4m3_n_major_b,gemm_tf32_n_major_b,gemm_i8_n_major_b,gemm_fp8_e4m3_scaled,linear_tf32,linear_i8_i32 \
  > "$S/bench.log" 2>&1
echo "[s43 nmajor] bench rc=$? $(( $(date +%s) - T2 )) s"
python3 - "$S/bench/tile_programs.json" <<'PY' 2>&1 | sed 's/^/[s43 nmajor] /'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"] if isinstance(d, dict) and "rows" in d else d
for r in rows:
    print(f"{r['program']}: tileorch {r.get('tileorch_tflops')} TFLOP/s ({r.get('tileorch_ms')} ms, err "
          f"{r.get('tileorch_rel_err')}), tileiras {r.get('tileiras_tflops', r.get('tileiras_error', '-'))}, "
          f"torch {r.get('library_tflops')}, vs tileiras {r.get('vs_tileiras')}, vs torch {r.get('vs_library')}")
PY
tail -n 4 "$S/bench.log" | cut -c1-300 | sed 's/^/[s43 nmajor] bench tail: /'
tar czf "$OUT/s43nmajor.tgz" -C "$OUT" s43nmajor && rm -rf "$S"
