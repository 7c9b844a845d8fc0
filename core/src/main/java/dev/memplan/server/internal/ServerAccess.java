// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server.internal;

import dev.memplan.server.CompiledModel;
import dev.memplan.server.OnnxPlan;
import java.util.Map;

/**
 * What memplan's own modules (ONNX Runtime's, the command line) need of {@link CompiledModel} beyond
 * its public API, without making it public: {@code CompiledModel} installs the one {@link Access}
 * when its class initializes. This package is exported to those modules only.
 */
public final class ServerAccess {
    /** The operations {@code CompiledModel} lends. */
    public interface Access {

        /**
         * {@link CompiledModel#plan(Map)} without its JFR event, for callers that record their own or
         * plan many candidate bindings (an admission search).
         *
         * @param model    the model
         * @param bindings symbol name to value
         * @return the plan
         */
        OnnxPlan planUntraced(CompiledModel model, Map<String, Long> bindings);
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
     * {@link Access#planUntraced}, after checking the bindings as {@link CompiledModel#plan(Map)} does.
     *
     * @param model    the model
     * @param bindings symbol name to value
     * @return the plan
     */
    public static OnnxPlan planUntraced(CompiledModel model, Map<String, Long> bindings) {
        return access(model).planUntraced(model, bindings);
    }

    private static Access access(CompiledModel model) {
        // a CompiledModel exists, so its class has initialized and installed the access
        Access lent = access;
        if (lent == null) {
            throw new IllegalStateException("CompiledModel has not installed its access (" + model + ")");
        }
        return lent;
    }
}
