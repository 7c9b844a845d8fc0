// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * One request's ORT arena prediction on a compiled predictor against memplan's own per-request
 * planning of the same graph (sizes from bindings, then the engine's allocate), on the Java
 * engine. In package dev.memplan.ort.internal because the predictor is internal; run by
 * {@code benchmarks/ort/bench-prediction.sh}.
 *
 * <p>A case is {@code file[:name=value,...]}. The binding {@code symbolic_batch=N} first rewrites
 * dim 0 of every graph input to the symbol {@code symbolic_batch}: it makes a static CNN
 * (DenseNet-121, 1,746 nodes) a graph with symbols, so its prediction is a per-request replay.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class OrtPredictionBenchmark {
    static final String SYMBOLIC_BATCH = "symbolic_batch";
    static final String MEMPLAN_PLAN = "memplanPlan";
    static final String ORT_REPLAY = "ortReplay";

    @Param({"onnx-light/light_squeezenet.onnx",
            "onnx-light/light_densenet121.onnx",
            "onnx-light/light_densenet121.onnx:symbolic_batch=1",
            "onnx-light/light_densenet121.onnx:symbolic_batch=4",
            "ort-ext/pytorch_super_resolution.onnx:batch_size=1",
            "ort-ext/pytorch_super_resolution.onnx:batch_size=4",
            "minilm/all-minilm-l6-v2-q.onnx:batch_size=1,sequence_length=128",
            "minilm/all-minilm-l6-v2-q.onnx:batch_size=4,sequence_length=512",
            "ort-genai/tiny-random-gpt2-fp32_past.onnx:batch_size=1,seq_len=1,past_seq_len=127,total_seq_len=128",
            "ort-genai/tiny-random-gpt2-fp32_past.onnx:batch_size=4,seq_len=128,past_seq_len=896,total_seq_len=1024",
            "ort-genai/tiny-random-gpt2-fp32_past.onnx:batch_size=8,seq_len=512,past_seq_len=1536,total_seq_len=2048"})
    public String model;

    /**
     * What one request runs (see {@link #request}). A parameter rather than three benchmark
     * methods so that JMH measures the paths of one case one after the other: on a shared machine
     * whose load swings over minutes, only neighbouring measurements make a fair ratio.
     */
    @Param({MEMPLAN_PLAN, ORT_REPLAY, "ortPrediction"})
    public String path;

    private Schedule schedule;
    private OrtArenaPredictor predictor;
    private Map<String, Long> bindings;

    @Setup
    public void setUp() throws IOException {
        String[] parts = model.split(":", 2);
        Path file = Path.of(System.getProperty("memplan.models", "../shared/models"), parts[0]);
        Map<String, Long> given = new HashMap<>();
        if (parts.length > 1) {
            for (String binding : parts[1].split(",")) {
                String[] kv = binding.split("=");
                given.put(kv[0], Long.parseLong(kv[1]));
            }
        }
        ModelProto proto = ModelProto.parseFrom(Files.readAllBytes(file));
        if (given.containsKey(SYMBOLIC_BATCH)) {
            proto = withSymbolicBatch(proto);
        }
        ImportedGraph imported = OnnxImporter.importModel(OnnxModel.read(model, proto.toByteArray()),
                ImportOptions.defaults().withFoldConstants(false));
        predictor = OrtArenaPredictor.of(imported.graph(), OnnxNodeAttributes.of(proto, imported.graph()));
        bindings = imported.completeBindings(given);
        schedule = dev.memplan.MemPlan.compile(imported.graph(), imported.views(), PlanOptions.defaults().withEngine(
                dev.memplan.EngineMode.JAVA));
        if (!(schedule.plan(bindings) instanceof PlanResult.Complete)) {
            throw new IllegalStateException(model + ": memplan cannot plan these bindings");
        }
    }

    /** The model with dim 0 of every graph input replaced by the symbol {@value #SYMBOLIC_BATCH}. */
    static ModelProto withSymbolicBatch(ModelProto proto) {
        ModelProto.Builder builder = proto.toBuilder();
        for (ValueInfoProto.Builder input : builder.getGraphBuilder().getInputBuilderList()) {
            if (input.getType().getTensorType().getShape().getDimCount() > 0) {
                input.getTypeBuilder().getTensorTypeBuilder().getShapeBuilder().getDimBuilder(0)
                        .clearDimValue().setDimParam(SYMBOLIC_BATCH);
            }
        }
        return builder.build();
    }

    /**
     * One request on the compiled graph, by {@link #path}: {@code memplanPlan}, memplan's own
     * per-request path (sizes from the bindings, then allocate); {@code ortReplay}, the replay
     * behind an ORT prediction, never cached (what a request costs on a graph with symbols);
     * {@code ortPrediction}, the prediction as a server gets it (cached for a static graph).
     */
    @Benchmark
    public Object request() {
        return switch (path) {
            case MEMPLAN_PLAN -> schedule.plan(bindings);
            case ORT_REPLAY -> predictor.replay(bindings);
            default -> predictor.predict(bindings);
        };
    }
}
