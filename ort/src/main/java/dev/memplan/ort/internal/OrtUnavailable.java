// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.MemplanException;

/**
 * ONNX Runtime Java is not on the class path, or its native library cannot start. The public face of
 * this failure is {@code dev.memplan.ort.OrtUnavailableException}, which {@code OrtModel} throws
 * in its place; this package stays below the server package.
 */
public final class OrtUnavailable extends MemplanException {
    private static final long serialVersionUID = 1L;

    OrtUnavailable(String message, Throwable cause) {
        super(message, cause);
    }
}
