#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the library and the benchmarks, runs JMH, and prints a Markdown table of medians and
# the target ratios of the slots planner and of offsets beside slots (hard packing included).
#
#   benchmarks/run.sh               short profile: selected graphs and sizes, 1 fork, short
#                                   iterations (about 10 minutes on 2 cores)
#   benchmarks/run.sh --full        long profile: every generator x size x engine x strategy, 2 forks,
#                                   5 x 1 s warmup and measurement (about 3.5 hours)
#   benchmarks/run.sh --skip-build  reuse the installed library and benchmarks/target/benchmarks.jar
#
# Results: benchmarks/target/results/<profile>-<time>/*.json (JMH JSON), *.log, table.md.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
profile=short
build=1
for arg in "$@"; do
    case "$arg" in
        --full) profile=full ;;
        --short) profile=short ;;
        --skip-build) build=0 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument '$arg' (use --full, --short, --skip-build)" >&2; exit 2 ;;
    esac
done

if [[ $build == 1 ]]; then
    echo "== building the library and the benchmarks (mvn -DskipTests -pl benchmarks -am package) ..."
    (cd "$root" && mvn -q -B -DskipTests -pl benchmarks -am package)
fi
jar="$here/target/benchmarks.jar"
[[ -f $jar ]] || { echo "run.sh: $jar is missing; run without --skip-build" >&2; exit 1; }

out="$here/target/results/$profile-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
started=$(date +%s)

# jmh NAME REGEX [JMH OPTIONS...]: one JMH invocation, its JSON in $out/NAME.json.
jmh() {
    local name="$1"; shift
    local regex="$1"; shift
    echo "== $name ($(( $(date +%s) - started )) s elapsed)"
    java -jar "$jar" "$regex" "$@" -foe true -rf json -rff "$out/$name.json" > "$out/$name.log" 2>&1 || {
        echo "run.sh: JMH failed for $name; see $out/$name.log" >&2
        tail -30 "$out/$name.log" >&2
        exit 1
    }
}

methods='^dev\.memplan\.bench\.PlanningBenchmark\.(compile|allocate|endToEnd)$'
allocate='^dev\.memplan\.bench\.PlanningBenchmark\.allocate$'
pack='^dev\.memplan\.bench\.PackingBenchmark\.pack$'
naive='^dev\.memplan\.bench\.NaiveBaselineBenchmark\.(compile|allocate|endToEnd)$'
touch='^dev\.memplan\.bench\.TouchBenchmark\.touch$'
small='^dev\.memplan\.bench\.SmallGraphBenchmark\.smallGraph$'
cold='^dev\.memplan\.bench\.ColdStartBenchmark\.'
# heap bytes and minor page faults per operation, printed beside the times
perop=(-prof gc -prof dev.memplan.bench.PageFaultProfiler)

if [[ $profile == short ]]; then
    # One fork, short iterations; only the graphs and sizes the targets need, most important first.
    quick=(-f 1 -wi 2 -w 400ms -i 3 -r 400ms)
    # Slots on all three paths; offsets on allocate only, at the sizes the offsets targets name.
    jmh transformer "$methods" "${quick[@]}" -p kind=transformer -p owners=1000,10000,100000,1000000 -p engine=native,java -p strategy=slots
    jmh transformer-offsets "$allocate" "${quick[@]}" -p kind=transformer -p owners=10000,100000,1000000 -p engine=native,java -p strategy=offsets
    jmh touch "$touch" "${quick[@]}" -p kind=transformer -p owners=1000,10000,100000,1000000
    jmh random-dag "$methods" "${quick[@]}" -p kind=random_dag -p owners=10000,100000 -p engine=native,java -p strategy=slots
    jmh random-dag-offsets "$allocate" "${quick[@]}" -p kind=random_dag -p owners=10000,100000,1000000 -p engine=native,java -p strategy=offsets
    jmh naive-dag "$naive" "${quick[@]}" -p kind=random_dag -p owners=10000,100000
    jmh naive-transformer "$naive" "${quick[@]}" -p kind=transformer -p owners=10000
    # A few microseconds per op: the JIT needs longer than the quick warmup to settle.
    jmh small-graph "$small" -f 1 -wi 5 -w 1s -i 5 -r 1s -p kind=transformer,random_dag,resnet -p engine=native,java,naive
    jmh other-kinds "$methods" "${quick[@]}" -p kind=resnet,unet,chain -p owners=10000 -p engine=native,java -p strategy=slots
    jmh other-kinds-offsets "$allocate" "${quick[@]}" -p kind=resnet,unet,chain -p owners=10000 -p engine=native,java -p strategy=offsets
    jmh per-op "$allocate" "${quick[@]}" "${perop[@]}" -p kind=transformer,resnet,chain -p owners=10000 -p engine=native,java -p strategy=slots,offsets
    # The first plans of fresh JVMs: one sample per fork, so many short forks.
    jmh cold-start "$cold" -f 6 -p kind=transformer -p strategy=offsets,slots
    jmh packing "$pack" "${quick[@]}" -p seed=1,2,3,4 -p engine=native,java
else
    # Every parameter of every benchmark, with the forks and iterations of the annotations.
    jmh planning "$methods"
    jmh touch "$touch"
    jmh naive "$naive"
    jmh small-graph "$small"
    jmh packing "$pack"
    jmh cold-start "$cold"
fi

echo "== done in $(( $(date +%s) - started )) s; results in $out"
echo
java -cp "$jar" dev.memplan.bench.Report "$out" "memplan planning benchmarks ($profile profile)" | tee "$out/table.md"
