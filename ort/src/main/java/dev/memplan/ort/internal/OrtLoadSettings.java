// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.MemplanException;
import dev.memplan.io.TerminalText;
import java.util.Locale;

/**
 * Where and within what ONNX Runtime loads a model for the ort runtime, from system properties
 * (docs/library.md): {@value #MODE} ({@value #CHILD_PROCESS}, the default, or {@value #IN_PROCESS}),
 * {@value #MEMORY} (MiB of resident memory the child may hold; by default 1 GiB and four times the
 * model's file) and {@value #TIMEOUT} (seconds; by default 600).
 *
 * @param inProcess    whether ORT loads the model in this process, not in a child
 * @param memoryBytes  the child's resident memory at most
 * @param timeoutSeconds the child's time at most
 */
record OrtLoadSettings(boolean inProcess, long memoryBytes, long timeoutSeconds) {
    static final String MODE = "memplan.ort.load";
    static final String MEMORY = "memplan.ort.load.memoryMiB";
    static final String TIMEOUT = "memplan.ort.load.timeoutSeconds";
    static final String CHILD_PROCESS = "child-process";
    static final String IN_PROCESS = "in-process";
    /** What ORT holds beside a model's weights while it loads: its library, the JVM, folded constants. */
    static final long BASE_MIB = 1024;
    static final long DEFAULT_TIMEOUT_SECONDS = 600;

    /**
     * {@return the settings the system properties give for a model file of {@code modelBytes}}
     *
     * @throws MemplanException naming the property when its value is not one memplan reads
     */
    static OrtLoadSettings fromSystemProperties(long modelBytes) {
        String mode = System.getProperty(MODE, CHILD_PROCESS).strip().toLowerCase(Locale.ROOT);
        if (!mode.equals(CHILD_PROCESS) && !mode.equals(IN_PROCESS)) {
            throw new MemplanException("the system property " + MODE + " is '" + TerminalText.escape(mode) + "'; set it to "
                    + CHILD_PROCESS + " (the default) or " + IN_PROCESS);
        }
        long defaultMiB = BASE_MIB + 4 * ((modelBytes >> 20) + 1);
        long memoryMiB = positive(MEMORY, defaultMiB, Long.MAX_VALUE >> 20);
        long timeout = positive(TIMEOUT, DEFAULT_TIMEOUT_SECONDS, Long.MAX_VALUE / 1_000_000_000L);
        return new OrtLoadSettings(mode.equals(IN_PROCESS), memoryMiB << 20, timeout);
    }

    private static long positive(String property, long otherwise, long max) {
        String text = System.getProperty(property);
        if (text == null) {
            return otherwise;
        }
        try {
            long value = Long.parseLong(text.strip());
            if (value >= 1 && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new MemplanException("the system property " + property + " is '" + TerminalText.escape(text) + "'; set it to a"
                + " whole number from 1 to " + max);
    }
}
