#!/usr/bin/env bash
# Session 41, the lead's final GPU call (main after every merge): s41-gpufix's script (the 8 earlier-sweep twin
# failures of 14:22 with --tb=long, then the twins that run did not reach), then the GPU tests nearest to this
# session's lowering changes (the SIMT path's intrinsics: memory-bound programs; the k-vector TMA path; sweep 33;
# the tier zoo; cuTile; attention).  Run (carry .whl): CMD="bash benchmarks/session41_final.sh" bash benchmarks/device_session.sh shell
OUT=${OUT:-/tmp/out}; S="$OUT/s41final"; mkdir -p "$S"
t0=$(date +%s)
bash benchmarks/session41_gpufix.sh 2>&1 | grep -E "^\[s41 " | cut -c1-400
echo "[s41 final] gpufix done in $(( $(date +%s) - t0 )) s"
t1=$(date +%s)
timeout ${REST_S:-170} python3 -m pytest -q --tb=long -p no:cacheprovider -rfE -n 14 \
  tests/gpu/test_memory_bound_gpu.py tests/gpu/test_k_vector_tma_gpu.py tests/gpu/test_user_sweep33_gpu.py \
  tests/gpu/test_tier_programs.py tests/gpu/test_cutile_gpu.py tests/gpu/test_attention_programs.py \
  tests/gpu/test_retile_spill_gpu.py > "$S/final_gpu_tests.log" 2>&1
echo "[s41 final] tests rc=$? $(( $(date +%s) - t1 )) s: $(tail -n 1 "$S/final_gpu_tests.log")"
grep -E "^(FAILED|ERROR)" "$S/final_gpu_tests.log" | head -20 | cut -c1-300 | sed 's/^/[s41 final] /'
