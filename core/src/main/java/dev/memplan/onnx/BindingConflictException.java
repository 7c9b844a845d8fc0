// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.MemplanException;

/**
 * Symbol bindings that contradict a relation the model's ops impose, such as binding
 * {@code total_seq_len} to 5 where an attention node needs it to equal
 * {@code past_seq_len + seq_len}. The message names the node and both sides.
 */
public class BindingConflictException extends MemplanException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a one-line message.
     *
     * @param message names the node and both sides, and says what to do
     */
    public BindingConflictException(String message) {
        super(message);
    }
}
