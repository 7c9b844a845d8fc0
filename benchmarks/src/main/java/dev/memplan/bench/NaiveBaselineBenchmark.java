package dev.memplan.bench;

import dev.memplan.ActivationPlan;
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
 * The seed's planner ({@link NaivePlanner}) on the same paths as {@link PlanningBenchmark}. 1M
 * owners are left out of the default parameters: its linear scan makes the random DAG at 1M take
 * many seconds per plan (see README).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 2, jvmArgsAppend = {"-Xms4g", "-Xmx10g", "-XX:+UseParallelGC"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class NaiveBaselineBenchmark {

    @Param({"transformer", "resnet", "unet", "random_dag", "chain"})
    public String kind;

    @Param({"1000", "10000", "100000"})
    public int owners;

    private Workload workload;
    private NaivePlanner.Liveness liveness;
    private IntToLongFunction sizes;

    @Setup
    public void setUp() {
        workload = new Workload(kind, owners);
        long[] byValue = workload.sizeByValue;
        sizes = v -> byValue[v];
        liveness = NaivePlanner.liveness(workload.graph, workload.views, false);
        checkAgainstJavaEngine();
    }

    /** The baseline must plan exactly what the engines plan, or the comparison means nothing. */
    private void checkAgainstJavaEngine() {
        NaivePlanner.Plan naive = NaivePlanner.plan(workload.graph, liveness, sizes, false);
        // The baseline restates the slot planner: compare with slots, not the default offsets.
        Schedule s = dev.memplan.MemPlan.compile(workload.graph, workload.views,
                Workload.options("java").withStrategy(dev.memplan.Strategy.SLOTS));
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
    public NaivePlanner.Plan allocate() {
        return NaivePlanner.plan(workload.graph, liveness, sizes, false);
    }

    @Benchmark
    public NaivePlanner.Plan endToEnd() {
        return NaivePlanner.plan(workload.graph, NaivePlanner.liveness(workload.graph, workload.views, false), sizes,
                false);
    }
}
