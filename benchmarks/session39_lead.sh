# Session 39's GPU work in one device call (< 560 s), most decisive first; each script prints its own
# "[s3x ...]" lines and leaves its files under $OUT:
#   session38_headdim.sh  attention at the arrays' head dims (decides TILEORCH_ATTN_HEAD_DIM_WIDTH's default)
#   session38_pdl.sh      programmatic dependent launch: chains vs torch, then A/B (decides TILEORCH_PDL's default)
#   session39_issue21.sh  outputs that cannot be written correctly, refused at launch; bound launches
#   session39_fp8acc.sh   fp8 two-level accumulation on/off: accuracy and TFLOP/s (when present)
#   session39_sweep31.sh  sweep 31's GPU twins (when present)
# Run (carry .whl):  CMD="bash benchmarks/session39_lead.sh" TAIL=150 bash benchmarks/device_session.sh shell
# LEAD_S (default 500): a script is skipped once fewer than 150 s of it are left (each takes < 150 s), so the
# archive is always written before the call's limit
T0=$(date +%s)
for s in session38_headdim session38_pdl session39_issue21 session39_fp8acc session39_sweep31; do
  [ -f "benchmarks/$s.sh" ] || { echo "[s39 lead] $s: not in this tree"; continue; }
  start=$(date +%s)
  (( start - T0 + 150 > ${LEAD_S:-500} )) && { echo "[s39 lead] $s: skipped (time)"; continue; }
  bash "benchmarks/$s.sh"
  echo "[s39 lead] $s: rc=$? $(( $(date +%s) - start )) s"
done
# the device returns 8 files at most: everything in one archive, only it and shell.log left in $OUT
cd "$OUT" && tar czf /tmp/s39lead_all.tgz --exclude=shell.log . 2>/dev/null \
  && find . -mindepth 1 -maxdepth 1 ! -name shell.log -exec rm -rf {} + && mv /tmp/s39lead_all.tgz "$OUT/"
ls "$OUT"
