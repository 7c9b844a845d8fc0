// SPDX-License-Identifier: Apache-2.0
package dev.memplan.bench;

import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.server.Bucketing;
import dev.memplan.server.CompiledModel;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.PlanCache;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.server.internal.ServerAccess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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
 * The server path on MiniLM (all-MiniLM-L6-v2, int8; ../shared/models, or -Dmemplan.models=DIR):
 * one request planned from its input shapes on a model compiled once, through a plan cache (hit
 * and miss), against re-importing and recompiling per request.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx2g", "-XX:+UseParallelGC", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ServerPathBenchmark {
    /** Sequence lengths the miss benchmarks cycle through: more than the cache holds. */
    private static final int LENGTHS = 512;

    @Param({"native", "java"})
    public String engine;

    private CompiledModel model;
    private Map<String, long[]> request;
    private PlanCache warmCache;
    private PlanCache missCache;
    private Map<String, Long>[] cycle;
    private int next;

    @Setup
    @SuppressWarnings("unchecked")
    public void setUp() {
        Path file = Path.of(System.getProperty("memplan.models", "../shared/models"), "minilm/all-minilm-l6-v2-q.onnx");
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("MiniLM not found at " + file.toAbsolutePath()
                    + "; pass -jvmArgsAppend -Dmemplan.models=DIR (the folder holding minilm/)");
        }
        PlanOptions options = Workload.options(engine);
        model = CompiledModel.compile(file, ImportOptions.defaults(), options);
        Workload.requireEngine(model.schedule(), engine);
        request = Map.of("input_ids", new long[] {4, 512}, "attention_mask", new long[] {4, 512},
                "token_type_ids", new long[] {4, 512});
        warmCache = PlanCache.of(model, 64, Bucketing.none());
        warmCache.planForInputs(request);
        // holds 16 plans while requests cycle through 512 lengths: (almost) every request misses
        missCache = PlanCache.of(model, 16, Bucketing.none());
        cycle = new Map[LENGTHS];
        for (int i = 0; i < LENGTHS; i++) {
            cycle[i] = Map.of("batch_size", 4L, "sequence_length", (long) (i + 1));
        }
    }

    /** Per request: input shapes to bindings, sizes, allocation, If/Loop/Scan needs. */
    @Benchmark
    public OnnxPlan planFromInputShapes() {
        return model.planForInputs(request);
    }

    /** Per request through a cache that holds the plan. */
    @Benchmark
    public OnnxPlan cacheHit() {
        return warmCache.planForInputs(request);
    }

    /** Per request through a cache that does not hold the plan: bucket, look up, plan, insert. */
    @Benchmark
    public OnnxPlan cacheMiss() {
        return missCache.plan(cycle[next++ & (LENGTHS - 1)]);
    }

    /** The same cycling requests planned without a cache: the baseline of {@link #cacheMiss}. */
    @Benchmark
    public OnnxPlan planCycling() {
        return model.plan(cycle[next++ & (LENGTHS - 1)]);
    }

    /** The recompiling path: compile the imported graph again for every request. */
    @Benchmark
    public OnnxPlan recompileEachRequest() {
        return OnnxPlanner.plan(ServerAccess.access().imported(model), Map.of("batch_size", 4L, "sequence_length", 512L), model.options());
    }
}
