// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import java.util.AbstractSet;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What ONNX Runtime 1.30's CPU arena is predicted to hold for one request, and its parts.
 *
 * @param activationBytes       the arena's peak in use over two runs with the first run's outputs
 *                              still held by the caller, or {@code sessionStartBytes} when larger:
 *                              what {@code ort-arena.py} reports as {@code activation}
 * @param firstRunPeakBytes     the arena's peak during the first run alone (tensor by tensor, no
 *                              memory pattern yet)
 * @param patternBlockBytes     the memory pattern's block, which the second run holds throughout
 * @param outputsHeldBytes      the first run's graph outputs (256-byte rounded), still held during
 *                              the second run: a server that releases them sees less
 * @param arenaRoundingBytes    of {@code activationBytes}, what the BFC arena adds above the
 *                              256-byte-rounded requests live at that peak (chunks handed out whole)
 * @param reservedBytes         the regions the arena adds for the request ({@code TotalAllocated}'s
 *                              growth): memory taken from the system, never given back during the
 *                              session
 * @param countedBytes          the most that memplan's counting allocator, in place of the arena
 *                              ({@code BoundedOrtArena}, memory patterns off), holds from the system
 *                              at once for the first run's blocks (tensor by tensor, its outputs
 *                              included): each its own size with a header, no arena rounding
 * @param unmodelledOps         op types whose kernel workspace has no measured rule (an allowance
 *                              stands in); empty when every part of the figure is replayed
 * @param sessionStartBytes     what the arena held above its in-use figure while the session was
 *                              created (constants folded and dropped), measured at compile time:
 *                              ORT's peak keeps it, so it is the figure of requests that take less;
 *                              0 when not measured
 */
public record OrtArenaPrediction(long activationBytes, long firstRunPeakBytes, long patternBlockBytes,
                                 long outputsHeldBytes, long arenaRoundingBytes, long reservedBytes,
                                 long countedBytes, Set<String> unmodelledOps, long sessionStartBytes) {

    /** A replay's answer, nothing known of the session's start. */
    public OrtArenaPrediction(long activationBytes, long firstRunPeakBytes, long patternBlockBytes,
                              long outputsHeldBytes, long arenaRoundingBytes, long reservedBytes,
                              long countedBytes, Set<String> unmodelledOps) {
        this(activationBytes, firstRunPeakBytes, patternBlockBytes, outputsHeldBytes, arenaRoundingBytes,
                reservedBytes, countedBytes, unmodelledOps, 0);
    }

    /**
     * {@return this answer with the session start's peak: the figure is the larger of the two}
     *
     * @param bytes what the session's creation held above its in-use figure
     */
    public OrtArenaPrediction afterSessionStart(long bytes) {
        if (bytes <= 0) {
            return this;
        }
        return new OrtArenaPrediction(Math.max(activationBytes, bytes), firstRunPeakBytes, patternBlockBytes,
                outputsHeldBytes, arenaRoundingBytes, reservedBytes, countedBytes, unmodelledOps, bytes);
    }

    /**
     * {@return this answer with the counting allocator's figure at least {@code bytes}}: the
     * largest of several replays (If branches) keeps the largest of each figure
     *
     * @param bytes another replay's {@link #countedBytes()}
     */
    public OrtArenaPrediction withCountedAtLeast(long bytes) {
        if (bytes <= countedBytes) {
            return this;
        }
        return new OrtArenaPrediction(activationBytes, firstRunPeakBytes, patternBlockBytes, outputsHeldBytes,
                arenaRoundingBytes, reservedBytes, bytes, unmodelledOps, sessionStartBytes);
    }

    /**
     * Copies the op types, sorted so that the figure's description is deterministic; a set this
     * class made already (a predictor's, given to each of its per-request answers) is kept as is.
     */
    public OrtArenaPrediction {
        if (!(unmodelledOps instanceof SortedOps)) {
            unmodelledOps = new SortedOps(unmodelledOps);
        }
    }

    /** {@return whether every kernel of the graph has a measured rule, so the figure is a replay} */
    public boolean isReplay() {
        return unmodelledOps.isEmpty();
    }

    /** Op types, sorted, copied once and never changed: a prediction can share it without a copy. */
    static final class SortedOps extends AbstractSet<String> {
        private final List<String> names;

        SortedOps(Collection<String> ops) {
            names = List.copyOf(new TreeSet<>(ops));
        }

        @Override
        public Iterator<String> iterator() {
            return names.iterator();
        }

        @Override
        public int size() {
            return names.size();
        }
    }
}
