// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.EngineMode;
import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.server.CompiledModel;
import dev.memplan.server.MemoryBudget;
import dev.memplan.ort.OrtModel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One request on a model compiled for ONNX Runtime ({@link OrtModel}) at ORT's default level, through the public
 * path a server uses: memplan's own plan of the request ({@code memplanPlan}: a
 * {@link CompiledModel}) against the ORT prediction alone
 * ({@code ortPrediction}: {@link OrtRuntimeProfile#predict}, on the graph ORT saved). Unlike
 * {@link OrtPredictionBenchmark} (the file's graph, as ORT runs it at level none) it predicts on the
 * graph ORT runs at its default level, and covers models with If nodes, whose prediction replays
 * the branch the request's values decide (Silero VAD: {@code sr}). {@code admission} is what a
 * server under {@code BoundedOrtArena} does per request before ORT runs: plan, predict, lease the
 * predicted bytes on a {@link MemoryBudget}, and give them back. Needs ONNX Runtime Java.
 *
 * <p>A case is {@code file:name=value;...} (semicolons: JMH splits parameters at commas).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class OrtProfilePredictionBenchmark {
    @Param({"silero/silero_vad_op18_ifless.onnx:batch=1;sequence=512;sr=16000",
            "silero/silero_vad_op18_ifless.onnx:batch=16;sequence=4096;sr=16000",
            "ort-ext/pytorch_super_resolution.onnx:batch_size=1",
            "ort-ext/pytorch_super_resolution.onnx:batch_size=4",
            "minilm/all-minilm-l6-v2-q.onnx:batch_size=1;sequence_length=128",
            "minilm/all-minilm-l6-v2-q.onnx:batch_size=4;sequence_length=512",
            "ort-genai/tiny-random-gpt2-fp32_past.onnx:batch_size=1;seq_len=1;past_seq_len=127",
            "ort-genai/tiny-random-gpt2-fp32_past.onnx:batch_size=8;seq_len=512;past_seq_len=1536"})
    public String model;

    /** What one request runs; one parameter so the two paths of a case are measured back to back. */
    @Param({"memplanPlan", "ortPrediction", "admission"})
    public String path;

    private CompiledModel memplan;
    private OrtRuntimeProfile profile;
    private OrtModel ort;
    private Map<String, Long> bindings;
    private MemoryBudget budget;

    @Setup
    public void setUp() {
        String[] parts = model.split(":", 2);
        Path file = Path.of(System.getProperty("memplan.models", "../shared/models"), parts[0]);
        bindings = new HashMap<>();
        for (String binding : parts[1].split(";")) {
            String[] kv = binding.split("=");
            bindings.put(kv[0], Long.parseLong(kv[1]));
        }
        PlanOptions java = PlanOptions.defaults().withEngine(EngineMode.JAVA);
        memplan = CompiledModel.compile(file, ImportOptions.defaults(), java);
        ort = OrtModel.compile(file, ImportOptions.defaults(), java, OrtModel.Level.ALL);
        profile = OrtRuntimeProfile.load(file, OrtModel.Level.ALL.ortName());
        if (profile.predict(memplan.imported(), bindings).activationBytes()
                != ort.plan(bindings).predictedBytes().orElseThrow()) {
            throw new IllegalStateException(model + ": the profile's prediction is not the compiled model's");
        }
        budget = MemoryBudget.of(1L << 40);
    }

    @Benchmark
    public Object request() throws InterruptedException {
        return switch (path) {
            case "memplanPlan" -> memplan.plan(bindings);
            case "ortPrediction" -> profile.predict(memplan.imported(), bindings);
            default -> admit();
        };
    }

    private long admit() throws InterruptedException {
        OrtModel.Plan plan = ort.plan(bindings);
        try (MemoryBudget.Lease lease = budget.tryAcquire(plan, Duration.ZERO).orElseThrow()) {
            return lease.bytes();
        }
    }
}
