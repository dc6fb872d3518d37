# Session 42, s42-launchpath: batched tier GEMMs on a strided batch of A and a stride-0 broadcast B (3-D tensor maps'
# batch stride; the b_shared=1 kernel) on the GPU: benchmarks/launchpath_check.py (the path each launch ran, vs torch
# fp32 with NaN-prefilled outputs, a short timing beside stacked copies and torch.bmm / torch.matmul, JSON), then the
# sweeps' GPU twins of those launches (now expected on the tier); also a K vector at a misaligned base
# (the kvec_global=1 kernel); < 150 s.
# Output: $OUT/s42launchpath.tgz (JSON and logs).  Run (carry .whl): bash benchmarks/session42_launchpath.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s42launchpath"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | sed 's/^/[s42 launchpath] /'
T0=$(date +%s)
timeout ${CHECK_S:-90} python3 benchmarks/launchpath_check.py --out "$S/launchpath.json" > "$S/launchpath.log" 2>&1
echo "[s42 launchpath] check rc=$? $(( $(date +%s) - T0 )) s"; grep -E "^\[s42 launchpath\]" "$S/launchpath.log" | head -12
tail -n 5 "$S/launchpath.log" | grep -v "^\[s42" | cut -c1-300 | sed 's/^/[s42 launchpath] check tail: /'
T1=$(date +%s)
timeout ${TESTS_S:-40} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 8 \
  tests/gpu/test_user_sweep26_gpu.py tests/gpu/test_user_sweep28_gpu.py tests/gpu/test_user_sweep31_gpu.py \
  -k "broadcast or expanded or strided_batch" > "$S/gpu_tests.log" 2>&1
echo "[s42 launchpath] twins rc=$? $(( $(date +%s) - T1 )) s: $(tail -n 1 "$S/gpu_tests.log")"
grep -E "^(FAILED|ERROR)" "$S/gpu_tests.log" | head -12 | cut -c1-300 | sed 's/^/[s42 launchpath] /'
tar czf "$OUT/s42launchpath.tgz" -C "$OUT" s42launchpath && rm -rf "$S"
