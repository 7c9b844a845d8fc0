// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR event {@code dev.memplan.BudgetWait}: one request that queued on a {@link MemoryBudget}, from
 * the moment it queued to its outcome. Requests granted at once record no event.
 */
@Name("dev.memplan.BudgetWait")
@Label("memplan budget wait")
@Category({"memplan"})
@Description("A request queued on a memory budget until granted, timed out or interrupted")
@StackTrace(false)
final class BudgetWaitEvent extends Event {
    @Label("Budget")
    String budget;

    @Label("Requested")
    @DataAmount
    long requestedBytes;

    @Label("Outcome")
    @Description("granted, timed out or interrupted")
    String outcome;

    @Label("Queued ahead")
    @Description("Requests ahead of this one when it queued")
    int queuedAhead;

    @Label("In use at start")
    @Description("Bytes held by leases when the request queued")
    @DataAmount
    long inUseAtStart;
}
