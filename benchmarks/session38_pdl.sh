# Session 38 (issue 20, K0): programmatic dependent launch (TILEORCH_PDL=1, transforms/gdc_insertion.py).
# One device call, < 150 s.  Correctness first, then same-process A/B of PDL off/on:
#   [s38 pdl] check ...  benchmarks/session38_pdl.py --check: chains of 16 dependent launches (each kernel reads what
#                        the one before it wrote; NaN-prefilled outputs; no sync inside the chain): attention d64 and
#                        d128 seq 1k, GEMM 2048^3; each step against torch fp32 on its actual input; compiled for PDL.
#   [s38 pdl] A/B ...    --ab: d64/d128 x seq 1k/4k (bh = 262144/seq), 128x128 tiles, non-causal: back-to-back
#                        batches (two events around 20 launches) and an event per launch, off/on/off/on, best of each;
#                        GEMM 2048^3 back to back.
#   [s38 pdl] variants   attention_variants.py --tiles 128x128 --causal no --flash (off vs pdl variants, event per
#                        launch, SDPA cuDNN / flash beside).
#   [s38 pdl] k0         session37_k0.py with TILEORCH_PDL=1 (d64 1k bh 256): the gap between launches (session 37,
#                        PDL off: 2.4-2.8 us) -- negative where the next launch's CTAs start before the last exit.
# Expectation: the back-to-back time per launch drops by up to the ~2.5 us gap + the next launch's prologue
# (~1.5 us to the first TMA) at bh 256 (170.7 us: ~2%); the event-per-launch timing may show less (an event
# between the launches).  Run: bash benchmarks/session38_pdl.sh
S="$OUT/s38pdl"; mkdir -p "$S"
if ls .whl/cuda_tile*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
  export PYTHONPATH=/tmp/site:${PYTHONPATH:-}
fi
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache-s38pdl} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
timeout ${CHECK_S:-95} python3 benchmarks/session38_pdl.py --check --ab --json "$S/pdl.json" > "$S/pdl.log" 2>&1
echo "[s38 pdl] check+ab rc=$?"; grep "^\[s38 pdl\]" "$S/pdl.log" || tail -n 25 "$S/pdl.log"
timeout ${VAR_S:-30} python3 benchmarks/attention_variants.py --tiles 128x128 --causal no --flash --dims 64,128 \
  --seqs 1024,4096 --iters 20 --variants 'off:TILEORCH_PDL=0;pdl:TILEORCH_PDL=1' --out "$S/variants" > "$S/variants.log" 2>&1
echo "[s38 pdl] variants rc=$?"; grep -A6 "^   d " "$S/variants.log" | sed 's/^/[s38 pdl] variants /' || tail -n 10 "$S/variants.log"
TILEORCH_PDL=1 timeout ${K0_S:-20} python3 benchmarks/session37_k0.py --d 64 --seq 1024 --bh 256 --launches 8 --reps 2 \
  > "$S/k0.log" 2>&1
echo "[s38 pdl] k0 (PDL on) rc=$?"; grep "^\[k0\]" "$S/k0.log" | grep -i "gap\|summary\|entry\|exit" | sed 's/^/[s38 pdl] /' | head -20
if command -v nvdisasm >/dev/null 2>&1 || [ -n "${NVDISASM:-}" ]; then  # the prologue's SASS: 3 UTMACCTL.PF (was 6)
  TILEORCH_PDL=1 timeout 20 python3 benchmarks/session37_k0.py --prologue > "$S/prologue.log" 2>&1
  echo "[s38 pdl] prologue SASS (PDL on) rc=$?"; grep -i "UTMACCTL\|griddep\|ACQBULK\|entry ->\|producer\|consumer" "$S/prologue.log" | head -12 | sed 's/^/[s38 pdl] /'
fi
tar czf "$OUT/s38pdl.tgz" -C "$OUT" s38pdl && rm -rf "$S"
