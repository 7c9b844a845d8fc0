// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

/** The base of every error memplan reports for bad input. */
public class MemplanException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a one-line message.
     *
     * @param message what is wrong and what to do
     */
    public MemplanException(String message) {
        super(message);
    }

    /**
     * An exception with a one-line message and its cause.
     *
     * @param message what is wrong and what to do
     * @param cause the underlying exception
     */
    public MemplanException(String message, Throwable cause) {
        super(message, cause);
    }
}
