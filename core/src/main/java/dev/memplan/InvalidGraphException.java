// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

/**
 * A graph, view map or graph file that cannot be planned: a cycle, a value produced twice, a
 * dangling reference, a view that breaks the view rules. The message names the value or node at
 * fault and says what to change.
 */
public class InvalidGraphException extends MemplanException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception whose message names the value or node at fault.
     *
     * @param message what is wrong and what to do, on one line
     */
    public InvalidGraphException(String message) {
        super(message);
    }

    /**
     * An exception whose message names the value or node at fault, with its cause.
     *
     * @param message what is wrong and what to do, on one line
     * @param cause the underlying exception
     */
    public InvalidGraphException(String message, Throwable cause) {
        super(message, cause);
    }
}
