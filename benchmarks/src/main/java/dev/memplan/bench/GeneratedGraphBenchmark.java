// SPDX-License-Identifier: Apache-2.0
package dev.memplan.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the benchmarks over generated graphs share: JMH's settings (average time in microseconds,
 * 2 forks with up to 10 GiB of heap, 5 x 1 s of warm-up and of measurement; JMH's annotations are
 * inherited, and a subclass may override one, e.g. a smaller heap), the graph kinds, and the
 * workload. A subclass declares its own owner counts ({@code @Param owners}, which differ between
 * benchmarks) and builds the workload with {@link #load(int)} in its {@code @Setup}.
 *
 * <p>Every fork pre-touches its heap ({@code -XX:+AlwaysPreTouch}, here and in the other
 * benchmarks): on these VMs the first touch of a heap page is slow, and a planner allocating a
 * megabyte a request met fresh pages for seconds into the measurement (Java transformer offsets at
 * 10k owners: iterations of 5-7 ms among ones of 0.6 ms).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 2, jvmArgsAppend = {"-Xms4g", "-Xmx10g", "-XX:+UseParallelGC", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public abstract class GeneratedGraphBenchmark {
    /** The generator, by {@link dev.memplan.generate.GraphKind} name. */
    @Param({"transformer", "resnet", "unet", "random_dag", "chain"})
    public String kind;

    /** The input built by {@link #load(int)}: the graph of {@link #kind}, its views and sizes. */
    Workload workload;

    /** Builds {@link #workload}: the graph of {@link #kind} with {@code owners} owners. */
    final Workload load(int owners) {
        workload = new Workload(kind, owners);
        return workload;
    }
}
