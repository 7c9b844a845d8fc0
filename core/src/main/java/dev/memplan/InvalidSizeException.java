// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

/**
 * A size that cannot be used: negative, or too large for a signed 64-bit byte count. The message
 * names the value.
 */
public class InvalidSizeException extends MemplanException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception whose message names the value at fault.
     *
     * @param message what is wrong and what to do, on one line
     */
    public InvalidSizeException(String message) {
        super(message);
    }
}
