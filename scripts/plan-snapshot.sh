#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes every plan of the examples and the shared models into one folder, to prove a change
# leaves plans byte-identical: run it with the command-line jar before and after, then diff.
#
#   scripts/plan-snapshot.sh CLI_JAR OUT_DIR [MODELS_DIR]
#
# Each graph is planned with --format json on both engines and both strategies, once unbound
# (deferred where symbols remain) and once with every symbol of the file bound (to 3 and to 37;
# a symbol the model derives from others is left to it),
# and once through the ort runtime where ORT Java sits beside the jar. MODELS_DIR defaults to
# ../shared/models beside the repository.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="${1:?usage: plan-snapshot.sh CLI_JAR OUT_DIR [MODELS_DIR]}"
out="${2:?usage: plan-snapshot.sh CLI_JAR OUT_DIR [MODELS_DIR]}"
models="${3:-$root/../shared/models}"
mkdir -p "$out"
export ORT_DISABLE_TELEMETRY=1

files=("$root"/examples/*.json)
while IFS= read -r f; do files+=("$f"); done < <(find "$models" -name '*.onnx' | sort)

run() { # name, then the plan arguments; stdout and exit code go to one file
    local name="$1"; shift
    local rc=0
    java -jar "$jar" plan --format json "$@" >"$out/$name" 2>&1 || rc=$?
    echo "exit $rc" >>"$out/$name"
}

for f in "${files[@]}"; do
    base="$(basename "$(dirname "$f")")_$(basename "$f")"
    symbols=()
    if [[ $f == *.onnx ]]; then
        # the symbols the model names, from `symbols --format json`
        while IFS= read -r s; do [[ -n $s ]] && symbols+=("$s"); done < <(java -jar "$jar" symbols --format json "$f" |
            python3 -c 'import json,sys; [print(s["name"]) for s in json.load(sys.stdin)["symbols"] if s["bound"] is None and "derived" not in s]')
    else
        while IFS= read -r s; do [[ -n $s ]] && symbols+=("$s"); done < <(python3 - "$f" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
names = set()
for v in g.get("values", []):
    for d in v.get("shape", []):
        if isinstance(d, str):
            names.add(d)
print("\n".join(sorted(names)))
PY
)
    fi
    for engine in native java; do
        for strategy in offsets slots; do
            run "$base.$engine.$strategy.unbound" --engine "$engine" --strategy "$strategy" "$f"
        done
    done
    for n in 3 37; do
        binds=()
        for s in "${symbols[@]}"; do binds+=(--bind "$s=$n"); done
        for engine in native java; do
            for strategy in offsets slots; do
                run "$base.$engine.$strategy.bound$n" --engine "$engine" --strategy "$strategy" "${binds[@]}" "$f"
            done
        done
        if [[ $f == *.onnx ]]; then
            run "$base.ort.bound$n" --runtime ort "${binds[@]}" "$f"
        fi
    done
done
echo "$(ls "$out" | wc -l) plans in $out"
