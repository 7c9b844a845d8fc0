// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import dev.memplan.engine.JavaEngine;
import dev.memplan.engine.NativeEngine;
import dev.memplan.engine.PlanningEngine;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Turns an {@link EngineMode} into an engine, falling back from native to Java under {@code auto}.
 * Which engine {@code auto} chose is logged once through the platform logger at {@code DEBUG}: quiet
 * by default (the default backend prints {@code INFO} and up), visible when a server's logging asks
 * for {@code dev.memplan} at debug level. The choice is in the API ({@code MemPlan.engineName}) and
 * in every plan ({@code Schedule.engine()}) already.
 */
final class EngineSelector {
    private static final System.Logger LOG = System.getLogger("dev.memplan");
    private static final AtomicBoolean AUTO_REPORTED = new AtomicBoolean();

    private EngineSelector() {
    }

    static PlanningEngine engineFor(EngineMode mode) {
        switch (mode) {
            case JAVA:
                return JavaEngine.INSTANCE;
            case NATIVE:
                return NativeEngine.instance().orElseThrow(() -> new EngineUnavailableException(
                        "the native engine cannot load: " + NativeEngine.unavailableReason()
                                + "; use --engine java (or -Dmemplan.engine=java), or auto to fall back",
                        NativeEngine.loadFailure().orElse(null)));
            case AUTO:
            default:
                PlanningEngine engine = NativeEngine.instance().map(PlanningEngine.class::cast)
                        .orElse(JavaEngine.INSTANCE);
                if (AUTO_REPORTED.compareAndSet(false, true)) {
                    if (engine == JavaEngine.INSTANCE) {
                        LOG.log(Level.DEBUG, "memplan engine auto: using the Java engine ("
                                + NativeEngine.unavailableReason() + ")");
                    } else {
                        LOG.log(Level.DEBUG, "memplan engine auto: using the native engine ("
                                + NativeEngine.platform() + ")");
                    }
                }
                return engine;
        }
    }
}
