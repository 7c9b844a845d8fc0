// SPDX-License-Identifier: Apache-2.0
package dev.memplan.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Minor page faults, kernel CPU time and all CPU time per operation, read from
 * {@code /proc/self/stat} before and after each iteration (the whole forked JVM: every thread, GC
 * and JIT included). A planner that maps fresh memory per request shows here as faults per op and
 * system time; one that reuses memory shows ~0. CPU time per op ({@code cpu.all.norm}) counts only
 * the time this JVM ran, not the time other processes on a shared machine took from it, so it
 * compares two engines more steadily than the wall-clock score when the machine is loaded (at
 * 10 ms per clock tick: run iterations of at least half a second). Linux only. Use:
 * {@code -prof dev.memplan.bench.PageFaultProfiler}.
 */
public final class PageFaultProfiler implements InternalProfiler {
    // Fields of /proc/self/stat after the command name, 1-based as in proc(5): minflt 10, majflt 12,
    // utime 14, stime 15 (clock ticks, which are 100 per second on Linux).
    private static final int MINFLT = 10;
    private static final int UTIME = 14;
    private static final int STIME = 15;
    private static final double TICK_NS = 1e9 / 100;

    private long minorBefore;
    private long systemBefore;
    private long userBefore;

    @Override
    public String getDescription() {
        return "minor page faults and kernel CPU time per operation, from /proc/self/stat";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        long[] now = read();
        minorBefore = now[0];
        systemBefore = now[1];
        userBefore = now[2];
    }

    @Override
    public List<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
                                                 IterationResult result) {
        long[] now = read();
        long ops = result.getMetadata() == null ? 0 : result.getMetadata().getAllOps();
        if (ops <= 0) {
            return List.of();
        }
        return List.of(
                new ScalarResult("faults.minor.norm", (now[0] - minorBefore) / (double) ops, "#/op",
                        AggregationPolicy.AVG),
                new ScalarResult("cpu.sys.norm", (now[1] - systemBefore) * TICK_NS / ops, "ns/op",
                        AggregationPolicy.AVG),
                new ScalarResult("cpu.all.norm", (now[1] - systemBefore + now[2] - userBefore) * TICK_NS / ops,
                        "ns/op", AggregationPolicy.AVG));
    }

    /** {minor faults, system ticks, user ticks} of this process so far. */
    private static long[] read() {
        String stat;
        try {
            stat = Files.readString(Path.of("/proc/self/stat"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // The command name (field 2) is in parentheses and may hold spaces: count from after it.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(f[MINFLT - 3]), Long.parseLong(f[STIME - 3]), Long.parseLong(f[UTIME - 3])};
    }
}
