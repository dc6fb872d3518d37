# Session 33 attention probe, step (a): are 64-row instances at two CTAs per SM faster than 128-row instances at one?
# (issue 20: non-causal d64 1k >= 450 TFLOP/s, d128 1k >= 550; session 32's H100: 401.4 / 540.2, 4k 463.6 / 645.5.)
# Session 32's sequence sweep: every 128-row instance costs F = 1.62 (d64) / 2.27 (d128) key tiles of time outside its
# key-tile loop, both consumer warp groups of the CTA in step through it (last P V, epilogue, next S_0, softmax_0:
# the tensor core idle).  Rows of attention are independent, so the same work can run as 64-row instances, one
# consumer warp group per CTA, two CTAs per SM (the existing TILEORCH_ATTN_CTAS_PER_SM=2 path, default since session
# 29, for persistent one-group kernels of <= 113 KiB shared memory): the two CTAs of an SM run different instances
# and their boundaries need not coincide, so one CTA's serial chain can run beside the other's key tiles.  Nothing
# is built for this step: the program's TILE_M constant and TILEORCH_ATTN_STAGES pick the kernels (CPU, ptxas 13.5:
# no spill, setmaxnreg 24/232, .minnctapersm 2):
#   default   128x128, 1 CTA/SM, 2 consumer groups, 4 stages (d64) / 3 (d128), 163936 / 229440 B;
#   r64s3     64x128, STAGES=3: 2 CTAs/SM, 114768 B each (3 stages, 2 Q slots)   <- the candidate (d64);
#   r64s2     64x128, STAGES=2: 2 CTAs/SM, 81984 B (2 stages: less K/V ahead of the consumer);
#   r64one    64x128, CTAS_PER_SM=1: 1 CTA/SM, 4 stages, 147552 B (the same instances without the second CTA: what
#             the occupancy alone gives);
#   r64n64    64x64 (4 stages, 2 CTAs/SM, 80 KiB);  r256 256x64 (four consumer groups of 112 registers, 1 CTA/SM:
#             direction (b)'s nearest existing kernel: two 128-row instances' rows sharing K/V, half the instances);
#   d128: default, r64n64s2 (64x64, STAGES=2: 2 CTAs/SM, 98368 B), r64n64one (64x64, 1 CTA/SM, 4 stages);
#   default2 last (the spread of the default is the noise).
# A/B in one process per head dim (benchmarks/attention_variants.py, a variant's TILES=MxN sets its tile constants and
# grid), fp16, tokens = 262144, output checked against SDPA flash (err column), cuDNN and flash timed beside.
# Then the launch remarks (CTA counts) of the 1k rows.
# What it should show: err <= 1e-3 everywhere; r64s3 against default at d64 1k: above 1.0 (and near 450 TFLOP/s) means
# the compiler's row split (128-row programs run as two 64-row CTAs) is worth building for short sequences; r64one
# below r64s3 shows the gain is the second CTA's overlap; at 4k r64s3 vs default tells where the cost rule stops.
# Run: CMD="bash benchmarks/session33_attn1k.sh" bash benchmarks/device_session.sh shell   -> $OUT/s33attn1k.tgz
# (timeouts add up to 225 s; each step's JSON is written after every case, so a cut run keeps what it finished)
S="$OUT/s33attn1k"; mkdir -p "$S"
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache-s33}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
ab() {  # name timeout dims variants
  timeout "$2" python3 benchmarks/attention_variants.py --dims "$3" --seqs 1024,4096 --causal both --tiles 128x128 \
    --iters 20 --flash --variants "$4" --out "$S/$1" > "$S/$1.log" 2>&1
  echo "[$1] rc=$?"; grep -A20 "^   d " "$S/$1.log" || tail -n 5 "$S/$1.log"
}
ab d64 130 64 "default:;r64s3:TILES=64x128,TILEORCH_ATTN_STAGES=3;r64s2:TILES=64x128,TILEORCH_ATTN_STAGES=2;\
r64one:TILES=64x128,TILEORCH_ATTN_CTAS_PER_SM=1;r64n64:TILES=64x64;r256:TILES=256x64;default2:"
ab d128 80 128 "default:;r64n64s2:TILES=64x64,TILEORCH_ATTN_STAGES=2;r64n64one:TILES=64x64,TILEORCH_ATTN_CTAS_PER_SM=1;\
default2:"
timeout 15 python3 - "$S/d64/attention_variants.json" "$S/d128/attention_variants.json" <<'EOF' 2>&1 | tee "$S/launch.txt"
import json, sys
for path in sys.argv[1:]:
    try:
        rows = json.load(open(path))["rows"]
    except (OSError, ValueError) as exc:
        print(f"{path}: {exc}")
        continue
    for r in rows:
        if r["seq"] != 1024:
            continue
        for key in sorted(k for k in r if k.endswith(("_launch", "_error", "_tiles"))):
            print(f"d{r['d']} 1k causal={r['causal']} {key}: {str(r[key])[:160]}")
EOF
tar czf "$OUT/s33attn1k.tgz" -C "$OUT" s33attn1k
