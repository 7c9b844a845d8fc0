// SPDX-License-Identifier: Apache-2.0
package dev.memplan.bench;

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
 * The memory-bandwidth floor of {@code allocate}: read every owner's size and write a slot per
 * owner, nothing else. No planner can allocate faster than this.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 2, jvmArgsAppend = {"-Xms4g", "-Xmx10g", "-XX:+UseParallelGC"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class TouchBenchmark {

    @Param({"transformer", "resnet", "unet", "random_dag", "chain"})
    public String kind;

    @Param({"1000", "10000", "100000", "1000000"})
    public int owners;

    private long[] sizes;
    private int[] slots;

    @Setup
    public void setUp() {
        sizes = new Workload(kind, owners).ownerSizes;
        slots = new int[sizes.length];
    }

    @Benchmark
    public int[] touch() {
        long[] in = sizes;
        int[] out = slots;
        for (int o = 0; o < in.length; o++) {
            out[o] = (int) in[o];
        }
        return out;
    }
}
