# Shared preamble of the device-call scripts (bench/results/*/device-calls/callN.sh), which
# each session's calls had repeated: source it from the repository root on the GPU machine.
#
#   . bench/device_call.sh r1          # results in a temp dir, archived as $OUT/r1.tgz
#   dc_liger                           # the carried Liger-Kernel wheel into /tmp/site
#   dc_variants                        # build-var/var.tar.xz unpacked into var/
#   t NAME CMD...                      # CMD's output in NAME.txt, its rc and seconds in times.txt
#   dc_ab NAME VARIANT OPS DTYPES      # gpu_compare.py --impls opkit through variant vVARIANT
#                                      # (base: build-check's own vendor) into NAME.json
#   pack                               # the archive, now (call after each step)
#
# The archive leaves out Triton's and Inductor's caches.
set -u
DC_ARCHIVE=${1:?the archive name, e.g. r1}
R=$(mktemp -d)
mkdir -p "$R/triton" "$R/inductor"
export OPKIT_LOG_LEVEL=error
DC_LIB=$PWD/build-check/lib/libopkit.so.1

t() {
    local name=$1
    shift
    local t0=$SECONDS
    "$@" > "$R/$name.txt" 2>&1
    echo "$name rc $? $((SECONDS - t0)) s" | tee -a "$R/times.txt"
}

pack() { tar czf "$OUT/$DC_ARCHIVE.tgz" --exclude=triton --exclude=inductor -C "$R" .; }

dc_liger() {
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
}

dc_variants() { mkdir -p var && tar xJf build-var/var.tar.xz -C var; }

dc_ab() {
    local vp=
    [ "$2" != base ] && vp=$PWD/var/v$2/libopkit_vendor_cuda.so
    t "$1" timeout 90 env PYTHONPATH="$PWD/python" OPKIT_LIBRARY="$DC_LIB" OPKIT_VENDOR_PATH="$vp" \
        python3 bench/gpu_compare.py --impls opkit --ops "$3" --dtypes "$4" --out "$R/$1.json"
}
