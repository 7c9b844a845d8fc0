// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

/** The native engine was asked for and cannot load on this platform; the message says why. */
public class EngineUnavailableException extends MemplanException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message saying why the engine cannot load and its cause.
     *
     * @param message why the engine cannot load and what to use instead
     * @param cause the load failure
     */
    public EngineUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
