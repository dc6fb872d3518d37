#!/usr/bin/env bash
# Builds what a device session carries (run here, from the repository root; needs pip access):
#   .whl/  the compiler's Python dependencies the GPU image lacks (xdsl and its needs, cuda_tile,
#          pytest-xdist/execnet) as wheels, llvmlite 0.50 split as llvmlite_rest.tgz + libllvmlite.so.xz
#          (the whole wheel with the tree passes the 64 MiB a call carries);
#   .tc1/, .tc2/  tileiras 13.4 with the 13.4 ptxas and libnvvm.so.4 (nvidia/cu13/{bin,lib}) as one
#          xz tar split in two pieces, one per `device_session.sh stage_tc` call.
# Both folders are build outputs: keep them out of git (.git/info/exclude).
set -euo pipefail
PLAT="--only-binary=:all: --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64
  --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64"
dl() { python3 -m pip download -q --no-deps $PLAT -d "$1" "${@:2}"; }
rm -rf .whl /tmp/dw && mkdir -p .whl /tmp/dw/ll /tmp/dw/tc
dl .whl xdsl==0.74.0 immutabledict ordered-set cuda-tile==1.7.0 pytest-xdist execnet
dl /tmp/dw/ll llvmlite==0.50.0
( cd /tmp/dw/ll && python3 -m zipfile -e llvmlite-*.whl x )
so=$(cd /tmp/dw/ll/x && ls llvmlite/binding/libllvmlite.so)
xz -T0 -6 -c "/tmp/dw/ll/x/$so" > .whl/libllvmlite.so.xz && rm "/tmp/dw/ll/x/$so"
tar czf .whl/llvmlite_rest.tgz -C /tmp/dw/ll/x .
dl /tmp/dw/tc nvidia-cuda-tileiras==13.4.* nvidia-cuda-nvcc==13.4.* nvidia-nvvm==13.4.*
mkdir -p /tmp/dw/tc/x/nvidia/cu13/bin /tmp/dw/tc/x/nvidia/cu13/lib
for w in /tmp/dw/tc/*.whl; do python3 -m zipfile -e "$w" /tmp/dw/tc/u; done
find /tmp/dw/tc/u -name tileiras -type f -exec cp {} /tmp/dw/tc/x/nvidia/cu13/bin/ \;
find /tmp/dw/tc/u -name ptxas -type f -exec cp {} /tmp/dw/tc/x/nvidia/cu13/bin/ \;
find /tmp/dw/tc/u -name 'libnvvm.so*' -type f -exec cp {} /tmp/dw/tc/x/nvidia/cu13/lib/libnvvm.so.4 \;
chmod +x /tmp/dw/tc/x/nvidia/cu13/bin/*
rm -rf .tc1 .tc2 && mkdir -p .tc1 .tc2
tar cf - -C /tmp/dw/tc/x nvidia | xz -T0 -9 > /tmp/dw/tc.tar.xz
split -n 2 -d /tmp/dw/tc.tar.xz /tmp/dw/tc.part
mv /tmp/dw/tc.part00 .tc1/tc.part1 && mv /tmp/dw/tc.part01 .tc2/tc.part2
du -sh .whl .tc1 .tc2
