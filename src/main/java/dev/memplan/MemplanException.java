// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

/** The base of every error memplan reports for bad input. */
public class MemplanException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MemplanException(String message) {
        super(message);
    }

    public MemplanException(String message, Throwable cause) {
        super(message, cause);
    }
}
