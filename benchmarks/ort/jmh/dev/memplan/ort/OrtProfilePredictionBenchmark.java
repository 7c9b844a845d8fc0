// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import dev.memplan.EngineMode;
import dev.memplan.Shape;
import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.server.CompiledModel;
import dev.memplan.server.MemoryBudget;
import dev.memplan.server.internal.ServerAccess;
import dev.memplan.ort.BoundedOrtArena;
import dev.memplan.ort.BudgetedOrtSession;
import dev.memplan.ort.OrtModel;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
 * predicted bytes on a {@link MemoryBudget}, and give them back; {@code budgetedAdmission} is the
 * same through {@link BudgetedOrtSession} before its run: the request's lease and how it runs,
 * cached per shape, from its input tensors, leased and given back; {@code budgetedRowsAdmission}
 * the same with one row per run ({@code withRowsPerRun(1)}: a request of several rows runs in
 * pieces). Needs ONNX Runtime Java.
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
    @Param({"memplanPlan", "ortPrediction", "admission", "budgetedAdmission", "budgetedRowsAdmission"})
    public String path;

    private CompiledModel memplan;
    private OrtRuntimeProfile profile;
    private OrtModel ort;
    private Map<String, Long> bindings;
    private MemoryBudget budget;
    private BudgetedOrtSession budgeted;
    private Map<String, OnnxTensor> inputs;

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
        if (profile.predict(ServerAccess.access().imported(memplan), bindings).activationBytes()
                != ort.plan(bindings).predictedBytes().orElseThrow()) {
            throw new IllegalStateException(model + ": the profile's prediction is not the compiled model's");
        }
        budget = MemoryBudget.of(1L << 40);
        if (path.equals("budgetedAdmission")) {
            budgeted = budgetedSession(file);
        } else if (path.equals("budgetedRowsAdmission")) {
            budgeted = budgetedSession(file).withRowsPerRun(1);
        }
    }

    /** A session on memplan's allocator and zeroed input tensors of the case's shapes. */
    private BudgetedOrtSession budgetedSession(Path file) {
        try {
            OrtEnvironment env = OrtEnvironment.getEnvironment();
            BoundedOrtArena arena = BoundedOrtArena.install();
            OrtSession session = env.createSession(file.toString(), arena.configure(new OrtSession.SessionOptions()));
            inputs = new HashMap<>();
            for (Map.Entry<String, Shape> input : ort.model().inputs().entrySet()) {
                long[] dims = input.getValue().dims().stream()
                        .mapToLong(d -> d.evaluate(bindings).orElseThrow()).toArray();
                TensorInfo info = (TensorInfo) session.getInputInfo().get(input.getKey()).getInfo();
                long elements = 1;
                for (long d : dims) {
                    elements *= d;
                }
                ByteBuffer zeros = ByteBuffer.allocateDirect((int) (elements * info.type.size)).order(ByteOrder.nativeOrder());
                inputs.put(input.getKey(), OnnxTensor.createTensor(env, zeros, dims, info.type));
            }
            return BudgetedOrtSession.of(session, ort, budget);
        } catch (OrtException e) {
            throw new IllegalStateException(e);
        }
    }

    @Benchmark
    public Object request() throws InterruptedException {
        return switch (path) {
            case "memplanPlan" -> memplan.plan(bindings);
            case "ortPrediction" -> profile.predict(ServerAccess.access().imported(memplan), bindings);
            case "budgetedAdmission", "budgetedRowsAdmission" -> admitBudgeted();
            default -> admit();
        };
    }

    private long admitBudgeted() throws InterruptedException {
        try (MemoryBudget.Lease lease = budget.tryAcquire(budgeted.leaseBytes(inputs), Duration.ZERO).orElseThrow()) {
            return lease.bytes();
        }
    }

    private long admit() throws InterruptedException {
        OrtModel.Plan plan = ort.plan(bindings);
        try (MemoryBudget.Lease lease = budget.tryAcquire(plan, Duration.ZERO).orElseThrow()) {
            return lease.bytes();
        }
    }
}
