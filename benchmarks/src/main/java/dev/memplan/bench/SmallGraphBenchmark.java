// SPDX-License-Identifier: Apache-2.0
package dev.memplan.bench;

import dev.memplan.MemPlan;
import dev.memplan.Schedule;
import java.util.concurrent.TimeUnit;
import java.util.function.IntToLongFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One request on a 100-owner graph, compiled beforehand: the native engine pays a JNI crossing
 * and its buffer set-up per plan, so this is where that cost would show against Java.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx4g", "-XX:+UseParallelGC"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class SmallGraphBenchmark {
    static final int OWNERS = 100;

    @Param({"transformer", "resnet", "unet", "random_dag", "chain"})
    public String kind;

    @Param({"native", "java", "naive"})
    public String engine;

    private Workload workload;
    private Schedule schedule;
    private NaivePlanner.Liveness liveness;
    private IntToLongFunction sizes;

    @Setup
    public void setUp() {
        workload = new Workload(kind, OWNERS);
        if (engine.equals("naive")) {
            liveness = NaivePlanner.liveness(workload.graph, workload.views, false);
            long[] byValue = workload.sizeByValue;
            sizes = v -> byValue[v];
        } else {
            schedule = MemPlan.compile(workload.graph, workload.views, Workload.options(engine));
            Workload.requireEngine(schedule, engine);
        }
    }

    @Benchmark
    public Object smallGraph() {
        if (schedule != null) {
            return schedule.plan(workload.ownerSizes);
        }
        return NaivePlanner.plan(workload.graph, liveness, sizes, false);
    }
}
