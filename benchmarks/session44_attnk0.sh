# Session 44 (issue 20, K0): TILEORCH_ATTN_EARLY_TMA (thread 0 issues the first instance's Q and first K/V tiles
# right after the mbarrier init, before the CTA barrier and setmaxnreg) off/on, same process, alternated 3 rounds:
# d64 / d128 x seq 1k (issue 20's 550 / 450 TFLOP/s rows) / 4k (no regression), 128x128, non-causal, bh 262144/seq;
# max error vs torch fp32 (NaN-prefilled output), bit-identity off vs on, SDPA cuDNN beside.  Then the K0 probe
# (session37_k0.py, d64 1k bh 256) with the switch on, 20 s at most.  < 150 s.
# Output: $OUT/s44attnk0.tgz (JSON + logs); stdout lines "[s44 attnk0] ...".  Run: bash benchmarks/session44_attnk0.sh
OUT=${OUT:-/tmp/out}; S="$OUT/s44attnk0"; mkdir -p "$S"
if ls .whl/cuda_tile*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
  export PYTHONPATH=/tmp/site:${PYTHONPATH:-}
fi
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache-s44attnk0} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | sed 's/^/[s44 attnk0] /'
git rev-parse --short HEAD 2>/dev/null | sed 's/^/[s44 attnk0] commit /'
T0=$(date +%s)
timeout ${AB_S:-110} python3 benchmarks/session44_attnk0.py --dims 64,128 --seqs 1024,4096 --rounds 3 \
  --json "$S/attnk0.json" > "$S/attnk0.log" 2>&1
echo "[s44 attnk0] a/b rc=$? $(( $(date +%s) - T0 )) s"; grep "^\[s44 attnk0\]" "$S/attnk0.log" || tail -n 20 "$S/attnk0.log"
T1=$(date +%s)
TILEORCH_ATTN_EARLY_TMA=1 timeout ${K0_S:-20} python3 benchmarks/session37_k0.py --d 64 --seq 1024 --bh 256 \
  --launches 8 --reps 2 > "$S/k0_early.log" 2>&1
echo "[s44 attnk0] k0 (early on) rc=$? $(( $(date +%s) - T1 )) s"
grep "^\[k0\]" "$S/k0_early.log" | grep -i "summary\|gap\|TMA\|wait\|dot retired\|bar.sync" | head -14 | sed 's/^/[s44 attnk0] /'
tar czf "$OUT/s44attnk0.tgz" -C "$OUT" s44attnk0 && rm -rf "$S"
