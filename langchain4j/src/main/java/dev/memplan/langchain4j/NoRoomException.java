// SPDX-License-Identifier: Apache-2.0
package dev.memplan.langchain4j;

import java.time.Duration;

/**
 * The budget had no room for a run within the lease timeout: the runs in flight held it all the
 * while. Raise the budget or the timeout, or embed from fewer threads at once.
 */
public final class NoRoomException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    NoRoomException(long neededBytes, long capacityBytes, Duration timeout) {
        super("no room for a run of " + mib(neededBytes) + " in the budget of " + mib(capacityBytes)
                + " within " + timeout.toMillis() + " ms; raise budgetBytes or leaseTimeout, or embed from fewer threads");
    }

    private static String mib(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
    }
}
