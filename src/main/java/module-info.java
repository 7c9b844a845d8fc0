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
 * {@code micrometer.core} ({@code MemplanMetrics}), {@code info.picocli} and {@code org.apache.commons.csv}
 * (command line).
 * Protobuf is relocated into this jar ({@code dev.memplan.shaded.protobuf}); the
 * {@code com.google.protobuf} requirement below is for compiling only.
 */
module dev.memplan {
    requires org.bytedeco.javacpp;
    requires jdk.jfr;

    requires static com.google.protobuf;
    // not transitive: javac would then demand Jackson from every consumer (src/it/module-path-consumer)
    requires static com.fasterxml.jackson.databind;
    requires static com.github.benmanes.caffeine;
    requires static micrometer.core; // MemplanMetrics only
    requires static com.microsoft.onnxruntime; // the ort runtime only (dev.memplan.ort.OrtOptimizedGraph)
    requires static info.picocli;
    requires static org.apache.commons.csv; // the command line's pack only (dev.memplan.cli.PackingCsv)
    requires static java.logging; // the relocated protobuf (GeneratedMessage) holds a java.util.logging Logger

    exports dev.memplan;
    exports dev.memplan.draw;
    exports dev.memplan.json;
    exports dev.memplan.onnx;
    exports dev.memplan.server;
    exports dev.memplan.validate; // PlanValidator: the independent plan checker

    // JavaCPP's Loader reads MemplanNative's @Platform annotations and loads its library by reflection.
    opens dev.memplan.engine to org.bytedeco.javacpp;
    opens dev.memplan.ort to org.bytedeco.javacpp; // OrtArenaNative, the same way
    // picocli fills the command classes' annotated fields by reflection; Jackson reads the JSON reports' records.
    opens dev.memplan.cli to info.picocli, com.fasterxml.jackson.databind;
}
