// SPDX-License-Identifier: Apache-2.0
package dev.memplan.quality;

import dev.memplan.engine.OffsetAllocation;
import dev.memplan.engine.PlanningEngine;
import dev.memplan.generate.HardPackingGenerator;
import dev.memplan.generate.PackingInstance;
import dev.memplan.testing.GreedyBySizePacker;
import dev.memplan.testing.PackingChecker;
import java.nio.LongBuffer;

/** Packs hard instances with the engine's offsets planner and the reference greedy, checking both. */
public final class HardPackingQuality {
    /** The effort {@code memplan pack} uses by default: the hard-instance target is stated at it. */
    public static final int PACK_DEFAULT_EFFORT = dev.memplan.Packing.DEFAULT_EFFORT;
    /** Instances measured: seeds 1..HARD_SEEDS of {@link HardPackingGenerator#generate(long)}. */
    public static final int HARD_SEEDS = 20;

    private HardPackingQuality() {
    }

    /**
     * Packs {@code inst} on {@code engine} at {@code effort} and with the reference greedy.
     *
     * @throws AssertionError when a packing overlaps, leaves the arena, or the engine's figures
     *                        disagree with the instance
     */
    public static HardPackingRow measure(PackingInstance inst, PlanningEngine engine, int effort) {
        long[] sizes = inst.sizes();
        OffsetAllocation a = engine.packOffsets(inst.numPositions(), inst.defs(), inst.useEnds(), sizes, effort);
        LongBuffer buf = a.ownerOffsets();
        long[] offsets = new long[sizes.length];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = buf.get(i);
        }
        PackingChecker.check(inst.lower(), inst.upper(), sizes, offsets, a.peakBytes());
        long arena = GreedyBySizePacker.arenaBytes(offsets, sizes);
        if (arena != a.peakBytes() || a.lowerBoundBytes() != inst.lowerBoundBytes()) {
            throw new AssertionError(inst.description() + ": the engine reports peak " + a.peakBytes() + " and bound "
                    + a.lowerBoundBytes() + "; the offsets need " + arena + " and the bound is "
                    + inst.lowerBoundBytes());
        }
        long[] greedy = GreedyBySizePacker.pack(inst.lower(), inst.upper(), sizes);
        long greedyArena = GreedyBySizePacker.arenaBytes(greedy, sizes);
        PackingChecker.check(inst.lower(), inst.upper(), sizes, greedy, greedyArena);
        return new HardPackingRow(inst.description(), inst.size(), inst.lowerBoundBytes(), greedyArena, arena);
    }
}
