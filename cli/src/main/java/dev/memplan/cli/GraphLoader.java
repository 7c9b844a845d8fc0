// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.MemPlan;
import dev.memplan.MemplanException;
import dev.memplan.PlanOptions;
import dev.memplan.Schedule;
import dev.memplan.json.GraphJson;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.server.internal.OnnxPlanner;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Reads and plans a graph file of any supported type, chosen by its extension: {@code .json}
 * graph files and {@code .onnx} models. The one place to add a format.
 */
final class GraphLoader {
    private GraphLoader() {
    }

    /** Whether {@code file} is an ONNX model (by its extension). */
    static boolean isOnnx(Path file) {
        return extension(file).equals(".onnx");
    }

    /**
     * Reads {@code file} and plans it at {@code bindings}.
     *
     * @throws MemplanException for an unsupported file type or a file that is not a valid graph
     * @throws IOException      when the file cannot be read
     */
    static PlannedFile plan(Path file, Map<String, Long> bindings, PlanOptions options, ImportOptions onnxOptions)
            throws IOException {
        return plan(file, bindings, Map.of(), options, onnxOptions);
    }

    /**
     * Reads {@code file} and plans it at {@code bindings} and ONNX input {@code values}.
     *
     * @throws MemplanException for an unsupported file type, a file that is not a valid graph, or
     *                          values the model's inputs do not take
     * @throws IOException      when the file cannot be read
     */
    static PlannedFile plan(Path file, Map<String, Long> bindings, Map<String, long[]> values, PlanOptions options,
                            ImportOptions onnxOptions) throws IOException {
        String label = file.toString();
        if (isOnnx(file)) {
            ImportedGraph imported = importOnnx(file, onnxOptions);
            return PlannedFile.of(label, OnnxPlanner.plan(imported, withValues(imported, bindings, values), options));
        }
        if (!values.isEmpty()) {
            throw new MemplanException("--value gives the inputs of ONNX models; this is a graph file, whose"
                    + " sizes only symbols give (use --bind)");
        }
        GraphJson.GraphFile graph = load(file);
        Schedule schedule = MemPlan.compile(graph.graph(), graph.views(), options);
        return new PlannedFile(label, schedule, schedule.plan(bindings), null);
    }

    /**
     * {@code bindings} with the value symbols {@code values} give ({@code --value sr=16000}).
     *
     * @throws MemplanException naming the input when the model does not take the value, or a
     *                          {@code --bind} of the same symbol disagrees
     */
    static Map<String, Long> withValues(ImportedGraph imported, Map<String, Long> bindings,
                                        Map<String, long[]> values) {
        if (values.isEmpty()) {
            return bindings;
        }
        Map<String, Long> out = new LinkedHashMap<>(bindings);
        Map<String, Long> given;
        try {
            given = imported.valueBindings(values);
        } catch (IllegalArgumentException e) {
            throw new MemplanException("--value: " + e.getMessage());
        }
        for (Map.Entry<String, Long> e : given.entrySet()) {
            Long before = out.putIfAbsent(e.getKey(), e.getValue());
            if (before != null && !before.equals(e.getValue())) {
                throw new MemplanException("--bind " + e.getKey() + "=" + before + " and --value give " + e.getKey()
                        + " different values (" + e.getValue() + "); give it once");
            }
        }
        return out;
    }

    /** Reads and imports an ONNX model; a missing or unreadable file is the reader's error. */
    static ImportedGraph importOnnx(Path file, ImportOptions onnxOptions) {
        return OnnxImporter.importModel(OnnxModel.read(file), onnxOptions);
    }

    /**
     * Reads a {@code .json} graph file.
     *
     * @throws MemplanException for an unsupported file type or a file that is not a valid graph
     * @throws IOException      when the file cannot be read
     */
    static GraphJson.GraphFile load(Path file) throws IOException {
        String ext = extension(file);
        if (ext.equals(".json")) {
            return GraphJson.read(file);
        }
        String type = ext.isEmpty() ? "a file without an extension" : "'" + ext + "' files";
        throw new MemplanException("unsupported file type: memplan cannot read " + type
                + "; give it a .json graph file or an .onnx model");
    }

    private static String extension(Path file) {
        String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(dot);
    }
}
