// SPDX-License-Identifier: Apache-2.0
package dev.memplan.bench;

import dev.memplan.MemPlan;
import dev.memplan.Schedule;
import dev.memplan.testing.NaivePlanner;
import java.util.function.IntToLongFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * One request on a 100-owner graph, compiled beforehand: the native engine pays a JNI crossing
 * and its buffer set-up per plan, so this is where that cost would show against Java.
 */
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx4g", "-XX:+UseParallelGC", "-XX:+AlwaysPreTouch"}) // 100 owners need no 10 GiB
public class SmallGraphBenchmark extends GeneratedGraphBenchmark {
    static final int OWNERS = 100;

    @Param({"native", "java", "naive"})
    public String engine;

    private Schedule schedule;
    private NaivePlanner.Liveness liveness;
    private IntToLongFunction sizes;

    @Setup
    public void setUp() {
        load(OWNERS);
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
        return NaivePlanner.allocate(workload.graph, liveness, sizes, false);
    }
}
