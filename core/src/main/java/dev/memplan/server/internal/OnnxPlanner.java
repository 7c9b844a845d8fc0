// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server.internal;

import dev.memplan.PlanOptions;
import dev.memplan.onnx.BindingConflictException;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.CompiledModel;
import dev.memplan.server.ModelLimitException;
import dev.memplan.onnx.imports.ImportedGraph;
import java.util.HashMap;
import java.util.Map;

/**
 * Plans an imported model once, for the command line and the pictures: a thin facade over
 * {@link CompiledModel}, so that one path (branch selection, model limits, control-flow bodies,
 * the unbound-symbol rule) gives every caller the same plan. It lives with the command line, its
 * user, outside the exported packages (tests and benchmarks reach it on the class path), so that
 * {@code dev.memplan.onnx} (the importer) never depends on {@code dev.memplan.server}; a server
 * that plans many requests should compile a {@link CompiledModel} once instead.
 */
public final class OnnxPlanner {
    private OnnxPlanner() {
    }

    /**
     * Plans {@code imported} with its symbols bound to {@code bindings}, completed with the
     * symbols the model derives from them ({@link ImportedGraph#completeBindings}): the same plan
     * as {@code CompiledModel.compile(imported, options).plan(bindings)}.
     *
     * @param imported the import to plan
     * @param bindings symbol values; derived symbols may be left out
     * @param options  planning options
     * @return the plan, complete or deferred, with the completed bindings
     *
     * @throws BindingConflictException when a binding contradicts a relation of the model, or (as a
     *                                  {@link ModelLimitException}, naming the
     *                                  symbol) is above the model's limit
     * @throws dev.memplan.InvalidSizeException naming the value when a size overflows
     */
    public static OnnxPlan plan(ImportedGraph imported, Map<String, Long> bindings, PlanOptions options) {
        CompiledModel compiled = ServerAccess.access().compile(imported, options);
        // the command line binds one set of symbols for several files and refuses, once, a binding no
        // file has; so a binding this model cannot take is left out here, not refused
        Map<String, Long> own = new HashMap<>(bindings);
        own.keySet().removeIf(symbol -> !compiled.canBind(symbol));
        return compiled.plan(own);
    }
}
