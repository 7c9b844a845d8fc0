// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import java.time.Duration;

/**
 * A snapshot of a {@link MemoryBudget}, taken at one instant under its lock, so the figures agree
 * with each other.
 *
 * @param capacityBytes the budget's bytes, reserve included
 * @param reserveBytes  the bytes held back for the runtime's own overhead, never leased
 * @param inUseBytes    bytes held by leases not yet released
 * @param peakInUseBytes the most bytes ever held by leases at once
 * @param waiting       requests queued now
 * @param admitted      leases granted since the budget was made
 * @param waited        leases granted only after queueing
 * @param timedOut      requests that gave up when their timeout ran out
 * @param interrupted   requests whose thread was interrupted while queued
 * @param rejected      requests larger than the budget can ever grant (failed at once)
 * @param refused       {@code tryAcquire} calls that found too little free and did not wait
 * @param leaked        leases that became unreachable without being released (reclaimed by the cleaner)
 * @param totalWait     time spent queued by every request that queued, whatever its outcome
 * @param maxWait       the longest time one request spent queued
 */
public record BudgetStats(long capacityBytes, long reserveBytes, long inUseBytes, long peakInUseBytes, int waiting,
                          long admitted, long waited, long timedOut, long interrupted, long rejected, long refused,
                          long leaked, Duration totalWait, Duration maxWait) {

    /** {@return the bytes leases may hold at most: capacity less reserve} */
    public long leasableBytes() {
        return capacityBytes - reserveBytes;
    }

    /** {@return the bytes free for leases now} */
    public long availableBytes() {
        return leasableBytes() - inUseBytes;
    }
}
