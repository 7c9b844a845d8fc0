#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The native engine against the Java engine on every path, both side by side: every point runs as its
# own JMH invocation with -p engine=native,java, so the forks of a graph, size and strategy run
# back to back and meet the same load. Each point reports the wall-clock median and the CPU time
# per operation (PageFaultProfiler's cpu.all.norm: only what the fork ran, so a loaded machine
# moves it far less), minor page faults per op, and for the 10k-owner allocate rows heap bytes
# per op (-prof gc). Prints the table that docs/performance.md's "Native against Java" condenses.
#
#   benchmarks/native-vs-java.sh              all rows (about 50 minutes on a 2-core VM)
#   benchmarks/native-vs-java.sh --quick      10k owners only (allocate, compile, endToEnd)
#
# Needs the library installed and benchmarks/target/benchmarks.jar built (see README.md).
# Results: benchmarks/target/results/native-vs-java-<time>/*.json, table.md.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/benchmarks.jar"
[[ -f $jar ]] || { echo "native-vs-java.sh: $jar is missing; build it first (README.md)" >&2; exit 1; }
quick=0
for arg in "$@"; do
    case "$arg" in
        --quick) quick=1 ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "native-vs-java.sh: unknown argument '$arg' (use --quick)" >&2; exit 2 ;;
    esac
done

# The library inside benchmarks.jar comes from ~/.m2, which any worktree's `mvn install` overwrites:
# refuse to measure one that is not this worktree's own build (target/memplan-*.jar).
lib=dev/memplan/engine/linux-x86_64/libjniMemplanNative.so
own=$(ls "$here"/../core/target/memplan-*-SNAPSHOT.jar 2>/dev/null | grep -v -- '-tests\|-sources' | head -1 || true)
if [[ -n $own ]] && ! cmp -s <(unzip -p "$jar" "$lib") <(unzip -p "$own" "$lib"); then
    echo "native-vs-java.sh: the native library in $jar is not the one in $own (another mvn install?);" \
        "rebuild the benchmarks jar from this worktree's library" >&2
    exit 1
fi

out="$here/target/results/native-vs-java-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
# Three forks per engine and point, the median over all their iterations: a fork's JIT and memory
# layout moved one engine's median by up to 45% from fork to fork on this machine (native endToEnd
# resnet 10k: 336, 416 and 492 us in one run), so one fork decided a ratio by chance.
iters=(-f 3 -wi 2 -w 300ms -i 3 -r 400ms)
# compile and endToEnd at 100k grow the heap for their first iterations: warm up longer (the third
# pass's transformer compile, 0.80 in four iterations of one fork, was 1.21 and 1.37 with ten).
iters_100k=(-f 3 -wi 4 -w 300ms -i 4 -r 400ms)
cpu=(-prof dev.memplan.bench.PageFaultProfiler)
kinds=(transformer resnet chain unet random_dag)
n=0

# point METHOD KIND OWNERS STRATEGY [JMH OPTIONS...]: both engines of one point, back to back.
point() {
    local method="$1" kind="$2" owners="$3" strategy="$4"; shift 4
    n=$((n + 1))
    local name
    name=$(printf '%03d-%s-%s-%s-%s' "$n" "$method" "$kind" "$owners" "$strategy")
    echo "== $name ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))"
    echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)" > "$out/$name.load"
    local timing=("${iters[@]}")
    [[ $method != allocate && $owners == 100000 ]] && timing=("${iters_100k[@]}")
    java -jar "$jar" "^dev\\.memplan\\.bench\\.PlanningBenchmark\\.$method\$" "${timing[@]}" "${cpu[@]}" "$@" \
        -p kind="$kind" -p owners="$owners" -p strategy="$strategy" -p engine=native,java \
        -foe true -rf json -rff "$out/$name.json" > "$out/$name.log" 2>&1 || {
        echo "native-vs-java.sh: JMH failed for $name; see $out/$name.log" >&2
        tail -20 "$out/$name.log" >&2
    }
}

for kind in "${kinds[@]}"; do
    for strategy in slots offsets; do
        point allocate "$kind" 10000 "$strategy" -prof gc
    done
done
for owners in 10000 100000; do
    [[ $quick == 1 && $owners != 10000 ]] && continue
    for kind in "${kinds[@]}"; do
        point compile "$kind" "$owners" slots
        for strategy in slots offsets; do
            point endToEnd "$kind" "$owners" "$strategy"
        done
    done
done
if [[ $quick == 0 ]]; then
    for owners in 1000 100000 1000000; do
        for kind in "${kinds[@]}"; do
            for strategy in slots offsets; do
                point allocate "$kind" "$owners" "$strategy"
            done
        done
    done
fi

python3 "$here/native-vs-java-table.py" "$out" | tee "$out/table.md"
