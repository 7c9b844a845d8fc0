// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxFormatException;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.symbols.SymbolTable;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Imports an ONNX model into memplan's graph model.
 *
 * <pre>{@code
 * OnnxModel model = OnnxModel.read(Path.of("model.onnx"));
 * ImportedGraph imp = OnnxImporter.importModel(model, ImportOptions.defaults());
 * OnnxPlan plan = CompiledModel.compile(imp, PlanOptions.defaults()).plan(Map.of("batch", 1L, "seq", 128L)); // dev.memplan.server
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
     * @throws dev.memplan.onnx.InputDimsException naming the input when the options' input dims
     *                                             do not fit the model
     */
    public static ImportedGraph importModel(OnnxModel model, ImportOptions options) {
        ImportedGraph imported = importWith(OnnxModelAccess.again(model), model, options, Map.of());
        model.checkUnchanged(); // rewritten in place: what the import read may mix two versions
        return imported;
    }

    /**
     * Imports with the If nodes in {@code decisions} (by node label) taking the branch given; the
     * import keeps a way to import again with more decisions, which {@link ImportedGraph#forBindings}
     * uses when a request's bindings decide an open condition. That later import reads the model
     * through {@code source} (its file again), since a compile releases the model it read once done.
     */
    private static ImportedGraph importWith(Supplier<OnnxModel> source, OnnxModel model, ImportOptions options,
                                            Map<String, Boolean> decisions) {
        GraphProto main = OnnxModelAccess.proto(model).getGraph();
        ImportSession session = new ImportSession(options, model.defaultOpset(), new SymbolTable(), new HashSet<>(),
                new LinkedHashMap<>(), decisions, new LinkedHashMap<>(),
                InputDimOverrides.of(main, model.source(), options.inputDims()));
        GraphImporter importer = new GraphImporter(main, session, GraphScope.main(model.source()));
        ImportedGraph imported;
        try {
            imported = importer.run();
        } catch (StackOverflowError e) {
            throw new OnnxFormatException(model.source() + " nests sub-graphs too deeply to import", null);
        }
        imported.setBranching(session.valueSymbols(), session.openConditions(), decisions,
                more -> OnnxModelAccess.withModelAgain(source, model, read -> importWith(source, read, options, more)));
        return imported;
    }
}
