// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.ImportedGraph;
import dev.memplan.onnx.OnnxImporter;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import java.io.IOException;
import java.io.InputStream;
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
 * engine. In package dev.memplan.ort because the predictor is internal; run by
 * {@code benchmarks/ort/bench-prediction.sh}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class OrtPredictionBenchmark {
    @Param({"onnx-light/light_squeezenet.onnx", "onnx-light/light_densenet121.onnx",
            "ort-ext/pytorch_super_resolution.onnx:batch_size=4"})
    public String model;

    private Schedule schedule;
    private OrtArenaPredictor predictor;
    private Map<String, Long> bindings;

    @Setup
    public void setUp() throws IOException {
        String[] parts = model.split(":");
        Path file = Path.of(System.getProperty("memplan.models", "../shared/models"), parts[0]);
        ImportedGraph imported = OnnxImporter.importModel(OnnxModel.read(file),
                ImportOptions.defaults().withFoldConstants(false));
        ModelProto proto;
        try (InputStream in = Files.newInputStream(file)) {
            proto = ModelProto.parseFrom(in);
        }
        predictor = OrtArenaPredictor.of(imported.graph(), OnnxNodeAttributes.of(proto, imported.graph()));
        Map<String, Long> given = new HashMap<>();
        for (int i = 1; i < parts.length; i++) {
            String[] kv = parts[i].split("=");
            given.put(kv[0], Long.parseLong(kv[1]));
        }
        bindings = imported.completeBindings(given);
        schedule = dev.memplan.MemPlan.compile(imported.graph(), imported.views(), PlanOptions.defaults().withEngine(
                dev.memplan.EngineMode.JAVA));
    }

    /** memplan's per-request path on a compiled schedule: sizes from the bindings, then allocate. */
    @Benchmark
    public PlanResult memplanPlan() {
        return schedule.plan(bindings);
    }

    /** The ORT arena prediction for the same request on the compiled predictor (cached for a static graph). */
    @Benchmark
    public OrtArenaPrediction ortPrediction() {
        return predictor.predict(bindings);
    }

    /** The replay behind a prediction, never cached: what a request costs on a graph with symbols. */
    @Benchmark
    public OrtArenaPrediction ortReplay() {
        return predictor.replay(bindings);
    }
}
