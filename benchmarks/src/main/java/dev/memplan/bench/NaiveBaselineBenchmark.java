// SPDX-License-Identifier: Apache-2.0
package dev.memplan.bench;

import dev.memplan.ActivationPlan;
import dev.memplan.Schedule;
import dev.memplan.testing.NaivePlanner;
import java.util.function.IntToLongFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The seed's planner ({@link NaivePlanner}) on the same paths as {@link PlanningBenchmark}. 1M
 * owners are left out of the default parameters: its linear scan makes the random DAG at 1M take
 * many seconds per plan (see docs/performance.md).
 */
public class NaiveBaselineBenchmark extends GeneratedGraphBenchmark {

    @Param({"1000", "10000", "100000"})
    public int owners;

    private NaivePlanner.Liveness liveness;
    private IntToLongFunction sizes;

    @Setup
    public void setUp() {
        load(owners);
        long[] byValue = workload.sizeByValue;
        sizes = v -> byValue[v];
        liveness = NaivePlanner.liveness(workload.graph, workload.views, false);
        checkAgainstJavaEngine();
    }

    /** The baseline must plan exactly what the engines plan, or the comparison means nothing. */
    private void checkAgainstJavaEngine() {
        NaivePlanner.Slots naive = NaivePlanner.allocate(workload.graph, liveness, sizes, false);
        // The baseline restates the slot planner: compare with slots, not the default offsets.
        Schedule s = dev.memplan.MemPlan.compile(workload.graph, workload.views,
                Workload.options("java").withStrategy(dev.memplan.PlanOptions.Strategy.SLOTS));
        ActivationPlan engine = s.plan(workload.ownerSizes);
        if (naive.peakBytes() != engine.peakBytes() || naive.numSlots() != engine.numSlots()
                || !naive.assignments().equals(engine.assignments())) {
            throw new IllegalStateException("the naive baseline disagrees with the Java engine on "
                    + workload.generated.description() + ": peak " + naive.peakBytes() + " vs " + engine.peakBytes());
        }
    }

    @Benchmark
    public NaivePlanner.Liveness compile() {
        return NaivePlanner.liveness(workload.graph, workload.views, false);
    }

    @Benchmark
    public NaivePlanner.Slots allocate() {
        return NaivePlanner.allocate(workload.graph, liveness, sizes, false);
    }

    @Benchmark
    public NaivePlanner.Slots endToEnd() {
        return NaivePlanner.allocate(workload.graph, NaivePlanner.liveness(workload.graph, workload.views, false), sizes,
                false);
    }
}
