// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import dev.memplan.MemplanException;

/**
 * ONNX Runtime cannot be used here: ONNX Runtime Java is not on the class path, or its native
 * library cannot load. Nothing is guessed in its place; memplan's own plans and every other feature
 * keep working.
 */
public class OrtUnavailableException extends MemplanException {
    private static final long serialVersionUID = 1L;

    /**
     * ONNX Runtime unavailable.
     *
     * @param message what is missing and what to do, on one line
     */
    public OrtUnavailableException(String message) {
        super(message);
    }

    /**
     * ONNX Runtime unavailable, with what failed.
     *
     * @param message what is missing and what to do, on one line
     * @param cause   what failed
     */
    public OrtUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
