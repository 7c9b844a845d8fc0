// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memplan.EngineMode;
import dev.memplan.MemPlan;
import dev.memplan.engine.NativeEngine;
import org.junit.jupiter.api.Assumptions;

/** When a test that needs the native engine may skip, and when it must fail instead. */
public final class NativeRequirement {
    private NativeRequirement() {
    }

    /**
     * Skips only in the Java-engine run ({@code memplan.engine=java}) on a platform where the
     * native library cannot load. Under the native run, or with no property, a load failure fails.
     */
    public static void requireNativeEngine() {
        if (EngineMode.fromSystemProperty() == EngineMode.JAVA) {
            Assumptions.assumeTrue(NativeEngine.instance().isPresent(),
                    "the native library cannot load here: " + NativeEngine.unavailableReason());
        }
        assertEquals("native", MemPlan.engineName(EngineMode.NATIVE),
                "the native engine must load: " + NativeEngine.unavailableReason());
    }

    /** Skips unless this run plans on the native engine (memplan.engine=native, or auto with the library). */
    public static void requireNativeRun() {
        Assumptions.assumeTrue(MemPlan.engineName(EngineMode.fromSystemProperty()).equals("native"),
                "this run plans on the " + EngineMode.fromSystemProperty() + " engine, not native");
    }
}
