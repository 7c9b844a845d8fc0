// SPDX-License-Identifier: Apache-2.0
/**
 * memplan: ahead-of-time activation memory planning for ONNX inference graphs.
 *
 * <p>Exported: the planning API ({@code dev.memplan}), plan pictures ({@code dev.memplan.draw}), the
 * ONNX reader and importer
 * ({@code dev.memplan.onnx}), the compile-once server path with its plan cache
 * ({@code dev.memplan.server}), the independent plan checker ({@code dev.memplan.validate}) and JSON
 * graph and plan files ({@code dev.memplan.json}, needs Jackson): six packages. The engines
 * ({@code dev.memplan.engine}), the file, terminal and JSON output helpers ({@code dev.memplan.io}), ONNX
 * Runtime's arena model ({@code dev.memplan.ort}), the generated ONNX protobuf classes and the
 * command line stay inside the module; the synthetic graph generators are test code (the
 * test-jar), which the benchmarks use.
 *
 * <p>Optional modules, read only when present: {@code com.fasterxml.jackson.databind} (JSON files),
 * {@code com.github.benmanes.caffeine} ({@code PlanCache}),
 * {@code micrometer.core} ({@code MemplanMetrics}).
 * Protobuf is relocated into this jar ({@code dev.memplan.shaded.protobuf}); the
 * {@code com.google.protobuf} requirement below is for compiling only.
 */
module dev.memplan {
    requires org.bytedeco.javacpp;
    requires jdk.jfr;
    requires jdk.unsupported; // Unsafe.invokeCleaner: a model's off-heap copy freed when a compile is done (OffHeapBytes)

    requires static com.google.protobuf;
    // not transitive: javac would then demand Jackson from every consumer (src/it/module-path-consumer)
    requires static com.fasterxml.jackson.databind;
    requires static com.github.benmanes.caffeine;
    requires static micrometer.core; // MemplanMetrics only
    requires static java.logging; // the relocated protobuf (GeneratedMessage) holds a java.util.logging Logger

    exports dev.memplan;
    exports dev.memplan.draw;
    exports dev.memplan.json;
    exports dev.memplan.onnx;
    exports dev.memplan.server;
    exports dev.memplan.validate; // PlanValidator: the independent plan checker

    // memplan's own modules only: ONNX Runtime's (memplan-ort) and the command line (memplan-cli)
    exports dev.memplan.io to dev.memplan.ort, dev.memplan.cli;
    exports dev.memplan.onnx.imports to dev.memplan.ort, dev.memplan.cli;
    exports dev.memplan.onnx.proto to dev.memplan.ort, dev.memplan.cli;
    exports dev.memplan.onnx.read to dev.memplan.ort;
    exports dev.memplan.onnx.rules to dev.memplan.cli;
    exports dev.memplan.onnx.symbols to dev.memplan.cli;
    exports dev.memplan.server.internal to dev.memplan.ort, dev.memplan.cli;

    // JavaCPP's Loader reads MemplanNative's @Platform annotations and loads its library by reflection.
    opens dev.memplan.engine to org.bytedeco.javacpp;
}
