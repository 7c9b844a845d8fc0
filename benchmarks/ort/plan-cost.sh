#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What --runtime ort adds to a plan on the command line: wall time and peak resident set of
# `memplan plan` and `memplan plan --runtime ort` on one model and binding, each in a fresh JVM,
# interleaved round by round so both see the same machine; prints each run, then the medians and
# their ratio. Uses the CLI jar that `mvn package` puts in cli/target (with ONNX Runtime in lib/).
#   benchmarks/ort/plan-cost.sh ROUNDS MODEL.onnx [--bind SYM=N ...]
# The target: bge-small-en-v1.5 fp32 at 4 x 256 (scripts/public-models.sh fetches it), ratio <= 2:
#   benchmarks/ort/plan-cost.sh 7 target/public-models/bge-small-en-v1.5.onnx \
#     --bind batch_size=4 --bind sequence_length=256
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
rounds="$1"
shift
jar="$(ls "$root"/cli/target/memplan-cli-*-all.jar | head -1)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for ((i = 1; i <= rounds; i++)); do
  for kind in plain ort; do
    extra=()
    [ "$kind" = ort ] && extra=(--runtime ort)
    ORT_DISABLE_TELEMETRY=1 /usr/bin/time -f "%e %M" -o "$out/time" java -jar "$jar" plan "${extra[@]}" "$@" >/dev/null
    read -r wall kb <"$out/time"
    echo "$kind $wall $kb" | tee -a "$out/runs"
  done
done
python3 - "$out/runs" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    kind, wall, kb = line.split()
    runs.setdefault(kind, []).append((float(wall), int(kb)))
med = {k: (statistics.median(w for w, _ in v), statistics.median(m for _, m in v) / 1024) for k, v in runs.items()}
for k, (w, m) in med.items():
    print("median %-5s wall %.2f s, peak resident %.0f MiB (%d runs)" % (k, w, m, len(runs[k])))
print("ratio ort / plain: wall %.2f, peak resident %.2f" % (med["ort"][0] / med["plain"][0], med["ort"][1] / med["plain"][1]))
PY
