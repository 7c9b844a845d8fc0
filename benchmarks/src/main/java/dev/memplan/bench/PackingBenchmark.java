// SPDX-License-Identifier: Apache-2.0
package dev.memplan.bench;

import dev.memplan.engine.JavaEngine;
import dev.memplan.engine.NativeEngine;
import dev.memplan.engine.OffsetAllocation;
import dev.memplan.engine.PlanningEngine;
import dev.memplan.generate.HardPackingGenerator;
import dev.memplan.generate.PackingInstance;
import java.util.concurrent.TimeUnit;
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
 * The offsets planner alone on hard interval packing instances ({@link HardPackingGenerator}: tight,
 * 150-500 buffers, where greedy by size lands about a third above the bound), through
 * {@code PlanningEngine.packOffsets}, the engine entry point for raw interval problems.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx4g", "-XX:+UseParallelGC", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class PackingBenchmark {
    /**
     * The effort {@code memplan pack} uses by default: the value of {@code Packing.DEFAULT_EFFORT}
     * (8), which the pack command brings on the offsets-api branch.
     */
    static final int PACK_DEFAULT_EFFORT = 8;

    /** The instance: {@code HardPackingGenerator.generate(seed)}. */
    @Param({"1", "2", "3", "4", "5", "6", "7", "8"})
    public long seed;

    @Param({"native", "java"})
    public String engine;

    /** {@code default} for pack's default effort, or an effort to try. */
    @Param({"default"})
    public String effort;

    private PlanningEngine planner;
    private int numPositions;
    private int[] def;
    private int[] useEnd;
    private long[] sizes;
    private int effortValue;

    @Setup
    public void setUp() {
        PackingInstance inst = HardPackingGenerator.generate(seed);
        planner = engine(engine);
        numPositions = inst.numPositions();
        def = inst.defs();
        useEnd = inst.useEnds();
        sizes = inst.sizes();
        effortValue = effort.equals("default") ? PACK_DEFAULT_EFFORT : Integer.parseInt(effort);
        OffsetAllocation a = pack();
        if (a.lowerBoundBytes() != inst.lowerBoundBytes()) {
            throw new IllegalStateException(inst.description() + ": the " + engine + " engine reports bound "
                    + a.lowerBoundBytes() + ", the instance's is " + inst.lowerBoundBytes());
        }
        System.out.printf("%n%s on %s at effort %d: arena / bound %.3f%n", inst.description(), engine, effortValue,
                (double) a.peakBytes() / a.lowerBoundBytes());
    }

    /** The engine named {@code name}; fails the fork when native is asked for and cannot load. */
    static PlanningEngine engine(String name) {
        switch (name) {
            case "java":
                return JavaEngine.INSTANCE;
            case "native":
                return NativeEngine.instance().orElseThrow(() -> new IllegalStateException(
                        "asked for the native engine but it cannot load: " + NativeEngine.unavailableReason()));
            default:
                throw new IllegalArgumentException("unknown engine '" + name + "'; use native or java");
        }
    }

    @Benchmark
    public OffsetAllocation pack() {
        return planner.packOffsets(numPositions, def, useEnd, sizes, effortValue);
    }
}
