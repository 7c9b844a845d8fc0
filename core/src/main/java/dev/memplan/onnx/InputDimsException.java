// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.MemplanException;

/**
 * Input dims ({@link ImportOptions#withInputDims}) that do not fit the model: an input it does not
 * have, or more or fewer dims than the input's declared rank. The message names the input and says
 * what to give instead; a command line reports it as a usage error.
 */
public class InputDimsException extends MemplanException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception whose message names the input.
     *
     * @param message what is wrong and what to do, on one line
     */
    public InputDimsException(String message) {
        super(message);
    }
}
