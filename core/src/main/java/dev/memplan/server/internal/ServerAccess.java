// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server.internal;

import dev.memplan.PlanOptions;
import dev.memplan.onnx.imports.ControlFlowNode;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.server.CompiledModel;
import dev.memplan.server.OnnxPlan;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What memplan's own modules (ONNX Runtime's, the command line) need of the server types beyond
 * their public API: the import behind a model or a plan, and compiling an import. The exported
 * signatures name no importer type; {@code CompiledModel} lends these when its class initializes.
 * This package is exported to memplan's own modules only.
 */
public final class ServerAccess {
    /** The operations {@code CompiledModel} lends. */
    public interface Access {

        /**
         * Compiles an import, as {@link CompiledModel#compile(java.nio.file.Path)} does after reading.
         *
         * @param imported    the import
         * @param planOptions the planning options
         * @return the compiled model
         */
        CompiledModel compile(ImportedGraph imported, PlanOptions planOptions);

        /**
         * {@return the import a model plans}
         *
         * @param model the model
         */
        ImportedGraph imported(CompiledModel model);

        /**
         * {@return the import a plan was made of (an If the bindings decide is the decided import)}
         *
         * @param plan the plan
         */
        ImportedGraph imported(OnnxPlan plan);

        /**
         * {@return the control-flow node a need is of}
         *
         * @param need the need
         */
        ControlFlowNode node(OnnxPlan.NodeNeed need);

        /**
         * {@link CompiledModel#plan(Map)} without its JFR event, after checking the bindings as it
         * does: for callers that plan many candidate bindings (an admission search).
         *
         * @param model    the model
         * @param bindings symbol name to value
         * @return the plan
         */
        OnnxPlan planUntraced(CompiledModel model, Map<String, Long> bindings);

        /**
         * The input dims with which {@link CompiledModel#planForInputs(Map)} plans a request whose
         * shapes give one symbol two sizes, as {@code ImportOptions.withInputDims} takes them (to be
         * laid over the model's own), so another import of the model can follow the split.
         *
         * @param model       the model
         * @param inputShapes the request's extents by input name
         * @return the dims, or empty when no symbol takes two sizes
         */
        Optional<Map<String, List<String>>> splitDims(CompiledModel model, Map<String, long[]> inputShapes);
    }

    private static volatile Access access;

    private ServerAccess() {
    }

    /**
     * Installs the access; {@code CompiledModel}'s static initializer calls it, once.
     *
     * @param lent the access
     * @throws IllegalStateException when an access is installed already
     */
    public static synchronized void install(Access lent) {
        if (access != null) {
            throw new IllegalStateException("CompiledModel's access is installed already");
        }
        access = lent;
    }

    /**
     * {@return the access, initializing {@code CompiledModel} first when nothing has used it yet}
     */
    public static Access access() {
        Access lent = access;
        if (lent == null) {
            try {
                Class.forName(CompiledModel.class.getName(), true, CompiledModel.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("CompiledModel cannot be loaded: " + e.getMessage(), e);
            }
            lent = access;
        }
        return lent;
    }
}
