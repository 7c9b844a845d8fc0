// SPDX-License-Identifier: Apache-2.0
package dev.memplan.bench;

import dev.memplan.ActivationPlan;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.SizeOracle;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The engines on the three planning paths: {@code compile} (graph -> schedule), {@code allocate}
 * (one request's sizes -> plan on a compiled schedule: the per-request hot path) and
 * {@code endToEnd} (graph + sizes -> plan), with either strategy: slots (the seed's best fit) or
 * offsets in one arena at the default effort.
 */
public class PlanningBenchmark extends GeneratedGraphBenchmark {

    @Param({"1000", "10000", "100000", "1000000"})
    public int owners;

    @Param({"native", "java"})
    public String engine;

    @Param({"slots", "offsets"})
    public String strategy;

    private PlanOptions options;
    private Schedule schedule;
    private SizeOracle oracle;

    @Setup
    public void setUp() {
        load(owners);
        options = Workload.options(engine, strategy);
        schedule = MemPlan.compile(workload.graph, workload.views, options);
        Workload.requireEngine(schedule, engine);
        Workload.requireStrategy(schedule.plan(workload.ownerSizes), strategy);
        oracle = workload.oracle();
    }

    @Benchmark
    public Schedule compile() {
        return MemPlan.compile(workload.graph, workload.views, options);
    }

    @Benchmark
    public ActivationPlan allocate() {
        return schedule.plan(workload.ownerSizes);
    }

    @Benchmark
    public PlanResult endToEnd() {
        return MemPlan.plan(workload.graph, workload.views, oracle, options);
    }
}
