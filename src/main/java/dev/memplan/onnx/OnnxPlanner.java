// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.Symbol;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Plans an imported model: the outer graph with the core planner, and each control-flow body as
 * its own graph, giving every If/Loop/Scan node its transient need.
 */
public final class OnnxPlanner {
    private OnnxPlanner() {
    }

    /**
     * Plans {@code imported} with its symbols bound to {@code bindings}, completed with the
     * symbols the model derives from them ({@link ImportedGraph#completeBindings}).
     *
     * @param imported      the import to plan
     * @param givenBindings symbol values; derived symbols may be left out
     * @param options       planning options
     * @return the plan, complete or deferred, with the completed bindings
     *
     * @throws BindingConflictException when a binding contradicts a relation of the model
     */
    public static OnnxPlan plan(ImportedGraph given, Map<String, Long> givenBindings, PlanOptions options) {
        // an If whose condition the bindings decide plans its taken branch only
        ImportedGraph imported = given.forBindings(given.completeBindings(givenBindings));
        Map<String, Long> bindings = imported.completeBindings(givenBindings);
        Schedule schedule = MemPlan.compile(imported.graph(), imported.views(), options);
        PlanResult result = schedule.plan(bindings);
        List<OnnxPlan.NodeNeed> needs = new ArrayList<>();
        for (ControlFlowNode cf : imported.controlFlow()) {
            Map<String, OptionalLong> peaks = new LinkedHashMap<>();
            OptionalLong need = OptionalLong.of(0);
            for (ControlFlowNode.Body body : cf.bodies()) {
                // bodies nest at most as deep as the file does; protobuf's limit bounds this recursion
                // a body's inputs (outer values, loop state) are owned outside it: never count them twice
                OptionalLong p = plan(body.graph(), bindings, options.withIncludeGraphInputs(false)).admissionBytes();
                peaks.put(body.attribute(), p);
                need = need.isEmpty() || p.isEmpty() ? OptionalLong.empty()
                        : OptionalLong.of(Math.max(need.getAsLong(), p.getAsLong()));
            }
            needs.add(new OnnxPlan.NodeNeed(cf, peaks, need));
        }
        List<String> unbound = new ArrayList<>();
        for (Symbol s : imported.symbols().values()) {
            // a derived symbol is not to bind: its free symbols are listed instead
            if (!bindings.containsKey(s.name()) && !imported.derivedSymbols().containsKey(s.name())) {
                unbound.add(s.name());
            }
        }
        return new OnnxPlan(imported, Map.copyOf(bindings), schedule, result, needs, unbound);
    }
}
