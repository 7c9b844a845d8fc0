// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import dev.memplan.ActivationPlan;
import dev.memplan.PlanResult;
import java.util.TreeMap;

/** Fills and commits {@link PlanEvent}s; does nothing (beyond the duration check) when disabled. */
final class PlanEvents {
    private PlanEvents() {
    }

    static void commit(PlanEvent event, CompiledModel model, OnnxPlan plan, boolean cached, boolean hit) {
        event.end();
        if (!event.shouldCommit()) {
            return;
        }
        event.model = model.name();
        event.engine = model.engine();
        event.bindings = new TreeMap<>(plan.bindings()).toString();
        event.owners = plan.schedule().numOwners();
        if (plan.result() instanceof PlanResult.Complete c) {
            ActivationPlan p = c.plan();
            event.peakBytes = p.peakBytes();
            event.lowerBoundBytes = p.lowerBoundBytes();
        } else {
            event.peakBytes = -1;
            event.lowerBoundBytes = -1;
        }
        event.admissionBytes = plan.admissionBytes().orElse(-1);
        event.cached = cached;
        event.cacheHit = hit;
        event.commit();
    }
}
