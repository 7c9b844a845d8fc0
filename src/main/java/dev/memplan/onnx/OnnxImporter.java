// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import java.util.HashSet;

/**
 * Imports an ONNX model into memplan's graph model.
 *
 * <pre>{@code
 * OnnxModel model = OnnxModel.read(Path.of("model.onnx"));
 * ImportedGraph imp = OnnxImporter.importModel(model, ImportOptions.defaults());
 * OnnxPlan plan = OnnxPlanner.plan(imp, Map.of("batch", 1L, "seq", 128L), PlanOptions.defaults());
 * }</pre>
 */
public final class OnnxImporter {
    private OnnxImporter() {
    }

    /**
     * Imports the main graph (and, through control-flow nodes, their bodies).
     *
     * @param model the model read
     * @param options constant folding and view policy
     * @return the imported graph
     * @throws OnnxFormatException naming the model element when the graph is malformed, or when
     *                             the model's file changed since {@link OnnxModel#read(java.nio.file.Path)}
     */
    public static ImportedGraph importModel(OnnxModel model, ImportOptions options) {
        ImportSession session = new ImportSession(options, model.defaultOpset(), new SymbolTable(), new HashSet<>());
        GraphImporter importer = new GraphImporter(model.proto().getGraph(), session, GraphScope.main(model.source()));
        ImportedGraph imported;
        try {
            imported = importer.run();
        } catch (StackOverflowError e) {
            throw new OnnxFormatException(model.source() + " nests sub-graphs too deeply to import", null);
        }
        model.checkUnchanged(); // rewritten in place: what the import read may mix two versions
        return imported;
    }
}
