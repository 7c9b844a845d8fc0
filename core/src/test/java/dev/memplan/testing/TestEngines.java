// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import dev.memplan.EngineMode;
import dev.memplan.engine.JavaEngine;
import dev.memplan.engine.NativeEngine;
import dev.memplan.engine.PlanningEngine;

/** The engine {@code -Dmemplan.engine} names, for tests that call the engine level directly. */
public final class TestEngines {
    private TestEngines() {
    }

    /** java: the Java engine; native: the native one (fails when it cannot load); auto: native if it loads. */
    public static PlanningEngine current() {
        EngineMode mode = EngineMode.fromSystemProperty();
        return switch (mode) {
            case JAVA -> JavaEngine.INSTANCE;
            case NATIVE -> NativeEngine.instance().orElseThrow(() -> new IllegalStateException(
                    "-Dmemplan.engine=native but the native engine cannot load: " + NativeEngine.unavailableReason()));
            case AUTO -> NativeEngine.instance().map(PlanningEngine.class::cast).orElse(JavaEngine.INSTANCE);
        };
    }
}
