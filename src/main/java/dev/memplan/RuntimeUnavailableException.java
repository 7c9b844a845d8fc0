// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

/**
 * The {@link ExecutionRuntime} asked for cannot be used here: for the ort runtime, ONNX Runtime
 * Java is not on the class path (or its native library cannot load). Nothing is guessed in its
 * place; the memplan runtime and every other feature keep working.
 */
public class RuntimeUnavailableException extends MemplanException {
    private static final long serialVersionUID = 1L;

    /**
     * An unavailable runtime.
     *
     * @param message what is missing and what to do, on one line
     */
    public RuntimeUnavailableException(String message) {
        super(message);
    }

    /**
     * An unavailable runtime, with what failed.
     *
     * @param message what is missing and what to do, on one line
     * @param cause   what failed
     */
    public RuntimeUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
