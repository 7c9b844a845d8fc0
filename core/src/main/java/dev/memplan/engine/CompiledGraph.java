// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * What an engine compiled from a graph: the execution order and the owners with their intervals,
 * in allocation order (included graph inputs by ascending id, then each position's node outputs
 * in output order). Immutable and thread-safe: many threads may {@link #allocate} at once.
 *
 * <p>The buffers are read-only views without copies; an index {@code i} into the owner buffers is
 * an <em>owner index</em>.
 */
public interface CompiledGraph {

    /** The engine that compiled it. */
    String engineName();

    int numValues();

    int numOwners();

    /** Positions of the schedule: {@code max(numNodes, 1)}. */
    int numPositions();

    /** Node ids in execution order. */
    IntBuffer order();

    /**
     * The value that owns each value's bytes, by value id: its view root, followed through in-place
     * links (docs/design.md §3b); the view roots exactly when no value was placed in place.
     */
    IntBuffer valueBuffers();

    /** The value id of each owner. */
    IntBuffer ownerValues();

    /** The {@code def} position of each owner. */
    IntBuffer ownerDefs();

    /** The {@code useEnd} position of each owner. */
    IntBuffer ownerUseEnds();

    /** A buffer of {@code numOwners()} sizes the engine reads without copying (direct for native). */
    LongBuffer newSizeBuffer();

    /**
     * Allocates slots for one request.
     *
     * @param ownerSizes {@code numOwners()} byte counts by owner index, each >= 0, whose sum fits in
     *                   a long; read from its position, never kept (the native engine copies it)
     * @throws IllegalArgumentException when fewer than {@code numOwners()} remain or a size is
     *                                  negative
     * @throws ArithmeticException      when the sum overflows a signed 64-bit byte count
     */
    Allocation allocate(LongBuffer ownerSizes);

    /**
     * Places every owner at a byte offset in one arena for one request (docs/design.md §5b).
     *
     * @param ownerSizes {@code numOwners()} byte counts by owner index, each >= 0, whose sum fits in
     *                   a long
     * @param effort     search effort, >= 0 (see {@code PlanOptions.effort})
     * @throws IllegalArgumentException when fewer than {@code numOwners()} remain or a size is
     *                                  negative
     * @throws ArithmeticException      when the sum overflows a signed 64-bit byte count
     */
    OffsetAllocation allocateOffsets(LongBuffer ownerSizes, int effort);

    /**
     * One request's sizes, checked and rounded by {@code rules}: a new array, for
     * {@link #allocateOwned} or {@link #allocateOffsetsOwned}. The native engine checks and copies
     * in one pass of C++ code; the Java engine runs {@link SizeRules#checkedCopy}.
     *
     * @param ownerSizes {@code numOwners()} byte counts by owner index, read once each, never kept
     * @throws IllegalArgumentException when the array does not hold {@code numOwners()} sizes
     * @throws RuntimeException         the error {@code rules} gives for the first size refused
     */
    default long[] checkedSizes(long[] ownerSizes, SizeRules rules) {
        if (ownerSizes.length != numOwners()) {
            throw new IllegalArgumentException("expected " + numOwners() + " owner sizes, got " + ownerSizes.length);
        }
        return SizeRules.checkedCopy(ownerSizes, rules);
    }

    /**
     * {@link #allocate} on sizes this thread alone holds: an array fresh from
     * {@link #checkedSizes}, or one the caller made and checked itself and never shares while the
     * call runs. The native engine then reads it in place instead of copying it (it still checks
     * every size it reads).
     */
    default Allocation allocateOwned(long[] ownerSizes) {
        return allocate(LongBuffer.wrap(ownerSizes));
    }

    /** {@link #allocateOffsets} on sizes this thread alone holds, as {@link #allocateOwned}. */
    default OffsetAllocation allocateOffsetsOwned(long[] ownerSizes, int effort) {
        return allocateOffsets(LongBuffer.wrap(ownerSizes), effort);
    }
}
