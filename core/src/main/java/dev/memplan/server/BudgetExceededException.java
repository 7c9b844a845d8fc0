// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import dev.memplan.MemplanException;

/**
 * A request asks a {@link MemoryBudget} for more bytes than the budget can ever grant (its capacity
 * less its reserve): it would wait forever, so it fails at once. The message gives both figures.
 */
public class BudgetExceededException extends MemplanException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a one-line message.
     *
     * @param message the bytes asked for, what the budget can grant, and what to do
     */
    public BudgetExceededException(String message) {
        super(message);
    }
}
