# Session 34's GPU calls after merging every branch, from main's tree (carry .whl):
#   CMD="bash benchmarks/session34_final.sh" TAIL=200 bash benchmarks/device_session.sh shell
# PART=1 (no tileiras needed): [atomics] benchmarks/session34_atomics.sh (CE 4096 with combined atomics by default vs
#   off, CE fwd+bwd 32000 before/after, controls, atomics GPU tests); [gpu] the GPU twins of sweep 26, attention zoo 34
#   (stacked query heads, auto), the row-groups tests, and the launcher GPU tests on the default (C) path.
# PART=2 (tileiras staged first: device_session.sh stage_tc with .tc1 then .tc2): [launch] benchmarks/session34_launch.sh
#   (C launcher by default vs cuda.tile.launch, tileorch.gemm vs torch.matmul); [coldc] benchmarks/session34_coldc.sh
#   when present (cold first launch vs cuda.tile.launch).
set -u
if [ "${PART:-1}" = 1 ]; then
echo "######## atomics $(date -u +%T)"
bash benchmarks/session34_atomics.sh 2>&1 | tail -n 45
echo "######## gpu tests $(date -u +%T)"
S="$OUT/s34gpu"; mkdir -p "$S"
timeout ${GPU_TESTS:-170} python3 -m pytest -q --tb=short -p no:cacheprovider -rfE -n 12 tests/gpu/test_user_sweep26_gpu.py \
  tests/gpu/test_attnzoo34_gpu.py tests/gpu/test_attention_programs.py::test_attention_row_groups tests/gpu/test_bound_launches_gpu.py tests/gpu/test_cutile_gpu.py > "$S/tests.log" 2>&1
echo "[gpu tests] rc=$?"; grep -E "^(FAILED|ERROR)" "$S/tests.log" | sort -u | head -30; tail -n 1 "$S/tests.log"
else
echo "######## launch $(date -u +%T)"
bash benchmarks/session34_launch.sh 2>&1 | tail -n 60
if [ -f benchmarks/session34_coldc.sh ]; then echo "######## coldc $(date -u +%T)"; bash benchmarks/session34_coldc.sh 2>&1 | tail -n 40; fi
fi
echo "######## end $(date -u +%T)"
cd "$OUT" && for d in */; do d=${d%/}; [ -f "$d.tgz" ] || tar czf "$d.tgz" "$d"; rm -rf "$d"; done; ls
