// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import dev.memplan.testing.EngineIndependent;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Optional;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * {@link MemoryBudget} is linearizable: Lincheck runs small concurrent scenarios of these
 * operations (every interleaving it explores under model checking, real threads under stress) and
 * checks each outcome against the same operations run one after another. The sequential
 * specification is this class run sequentially: a budget of 4 bytes, requests of 1 to 3.
 *
 * <p>Leases are held per group: Lincheck runs the operations of one {@code nonParallelGroup} from
 * one thread, so each group's lease queue is that thread's own, and closing "my oldest lease" means
 * the same thing in the concurrent run and the sequential one. Operations that wait for other
 * threads (a waiting {@code acquire}, a timed wait that another thread's release ends) have no
 * sequential counterpart: the queue of waiters is checked against a sequential FIFO model in
 * {@link MemoryBudgetFifoTest}. Requests with a zero timeout queue and give up under the lock, so
 * they are here.
 */
@EngineIndependent
@Param(name = "bytes", gen = IntGen.class, conf = "1:3")
public class MemoryBudgetLincheckTest {
    private final MemoryBudget budget = MemoryBudget.of("lincheck", 4, 0);
    private final ArrayDeque<MemoryBudget.Lease> leasesA = new ArrayDeque<>();
    private final ArrayDeque<MemoryBudget.Lease> leasesB = new ArrayDeque<>();

    @Operation(nonParallelGroup = "a")
    public boolean tryAcquireA(@Param(name = "bytes") int bytes) {
        return keep(budget.tryAcquire(bytes), leasesA);
    }

    @Operation(nonParallelGroup = "a")
    public boolean tryAcquireNoWaitA(@Param(name = "bytes") int bytes) throws InterruptedException {
        return keep(budget.tryAcquire(bytes, Duration.ZERO), leasesA);
    }

    @Operation(nonParallelGroup = "a")
    public String acquireInterruptedA(@Param(name = "bytes") int bytes) {
        return acquireInterrupted(bytes);
    }

    @Operation(nonParallelGroup = "a")
    public long closeOldestA() {
        return closeOldest(leasesA);
    }

    @Operation(nonParallelGroup = "b")
    public boolean tryAcquireB(@Param(name = "bytes") int bytes) {
        return keep(budget.tryAcquire(bytes), leasesB);
    }

    @Operation(nonParallelGroup = "b")
    public boolean tryAcquireNoWaitB(@Param(name = "bytes") int bytes) throws InterruptedException {
        return keep(budget.tryAcquire(bytes, Duration.ZERO), leasesB);
    }

    @Operation(nonParallelGroup = "b")
    public long closeOldestB() {
        return closeOldest(leasesB);
    }

    /** The figures a snapshot must show consistently; wait times are left out (they are clocks). */
    @Operation
    public String stats() {
        MemoryBudget.Stats s = budget.stats();
        return "inUse=" + s.inUseBytes() + " peak=" + s.peakInUseBytes() + " waiting=" + s.waiting() + " admitted="
                + s.admitted() + " refused=" + s.refused() + " timedOut=" + s.timedOut() + " interrupted="
                + s.interrupted();
    }

    private static boolean keep(Optional<MemoryBudget.Lease> lease, ArrayDeque<MemoryBudget.Lease> leases) {
        lease.ifPresent(leases::addLast);
        return lease.isPresent();
    }

    /** Closes the group's oldest lease twice (the second close must do nothing); its bytes, or -1. */
    private static long closeOldest(ArrayDeque<MemoryBudget.Lease> leases) {
        MemoryBudget.Lease lease = leases.pollFirst();
        if (lease == null) {
            return -1;
        }
        lease.close();
        lease.close();
        return lease.isReleased() ? lease.bytes() : -2;
    }

    /** An interrupted thread asking to wait holds nothing and keeps no interrupt. */
    private String acquireInterrupted(int bytes) {
        Thread.currentThread().interrupt();
        try {
            budget.acquire(bytes).close();
            return "granted";
        } catch (InterruptedException e) {
            return "interrupted, flag " + Thread.currentThread().isInterrupted();
        }
    }

    /**
     * After each scenario: closing every lease still held brings the budget back to nothing in use
     * and nobody waiting (a scenario never leaves a lease for the cleaner to find).
     */
    @Validate
    public void everyLeaseClosedLeavesNothingInUse() {
        for (ArrayDeque<MemoryBudget.Lease> leases : java.util.List.of(leasesA, leasesB)) {
            while (!leases.isEmpty()) {
                leases.pollFirst().close();
            }
        }
        MemoryBudget.Stats s = budget.stats();
        if (s.inUseBytes() != 0 || s.waiting() != 0) {
            throw new IllegalStateException("every lease closed, yet " + s.inUseBytes() + " bytes in use and "
                    + s.waiting() + " waiting");
        }
    }

    @Test
    void isLinearizableUnderModelChecking() {
        new ModelCheckingOptions().iterations(8).invocationsPerIteration(150).threads(3).actorsPerThread(3)
                .check(getClass());
    }

    @Test
    void isLinearizableUnderStress() {
        new StressOptions().iterations(10).invocationsPerIteration(500).threads(3).actorsPerThread(3)
                .check(getClass());
    }
}
