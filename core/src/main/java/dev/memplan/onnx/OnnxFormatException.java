// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.InvalidGraphException;

/**
 * An ONNX file that cannot be read or imported: not protobuf, truncated, an absurd declared
 * length, a dangling value name, a value produced twice. The message names the file or the model
 * element at fault and says what to do.
 */
public class OnnxFormatException extends InvalidGraphException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception whose message names the model element at fault.
     *
     * @param message what is wrong and what to do, on one line
     */
    public OnnxFormatException(String message) {
        super(message);
    }

    /**
     * An exception whose message names the model element at fault, with its cause.
     *
     * @param message what is wrong and what to do, on one line
     * @param cause the underlying exception
     */
    public OnnxFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
