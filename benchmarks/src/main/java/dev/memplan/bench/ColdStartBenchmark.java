// SPDX-License-Identifier: Apache-2.0
package dev.memplan.bench;

import dev.memplan.ActivationPlan;
import dev.memplan.MemPlan;
import dev.memplan.Schedule;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The first requests of a fresh JVM, before the JIT has compiled the planner: each fork builds
 * the graph and compiles its schedule (not measured), then times single plans with no warm-up.
 * {@code firstPlan} is the very first plan; {@code first100Plans} times each of the first 100
 * plans as its own iteration, so the JSON's raw data per fork is their distribution (Report
 * prints the first, the median and the slowest). Many forks, because each fork gives one first
 * plan. The set-up never plans: a plan there would warm the path measured.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 10, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+UseParallelGC", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 0)
public class ColdStartBenchmark extends GeneratedGraphBenchmark {

    @Param({"10000"})
    public int owners;

    @Param({"native", "java"})
    public String engine;

    @Param({"offsets", "slots"})
    public String strategy;

    private Schedule schedule;
    /** The last plan made, checked after the measurement for the strategy asked for. */
    private ActivationPlan last;

    @Setup
    public void setUp() {
        load(owners);
        schedule = MemPlan.compile(workload.graph, workload.views, Workload.options(engine, strategy));
        Workload.requireEngine(schedule, engine);
    }

    /** Fails the fork when the plans were made with another strategy than the one asked for. */
    @TearDown
    public void checkStrategy() {
        Workload.requireStrategy(last, strategy);
    }

    @Benchmark
    @Measurement(iterations = 1, batchSize = 1)
    public ActivationPlan firstPlan() {
        last = schedule.plan(workload.ownerSizes);
        return last;
    }

    @Benchmark
    @Measurement(iterations = 100, batchSize = 1)
    public ActivationPlan first100Plans() {
        last = schedule.plan(workload.ownerSizes);
        return last;
    }
}
