// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.Locale;

/**
 * Which engine plans: {@link #NATIVE} (the C++ core), {@link #JAVA} (the pure-Java engine) or
 * {@link #AUTO} (native when its library loads on this platform, else Java). The default comes
 * from the system property {@code memplan.engine}.
 */
public enum EngineMode {
    /** Native when its library loads on this platform, Java otherwise; says once which it chose. */
    AUTO,
    /** The C++ core through JNI; fails with {@link EngineUnavailableException} when it cannot load. */
    NATIVE,
    /** The pure-Java engine; never touches JNI. */
    JAVA;

    /** The system property that sets the default mode. */
    public static final String PROPERTY = "memplan.engine";

    /** {@return the mode named by {@code memplan.engine}, {@link #AUTO} when it is unset} */
    public static EngineMode fromSystemProperty() {
        return parse(System.getProperty(PROPERTY, "auto"));
    }

    /**
     * Parses {@code auto}, {@code native} or {@code java} (case-insensitive).
     *
     * @param text {@code auto}, {@code native} or {@code java}, in any case
     * @return the mode
     */
    public static EngineMode parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown engine '" + text + "'; use auto, native or java", e);
        }
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
