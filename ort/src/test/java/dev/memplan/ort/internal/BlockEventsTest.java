// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import org.junit.jupiter.api.Test;

@EngineIndependent
class BlockEventsTest {
    @Test
    void theOutputsBlocksAreLeftOutAndGiveBacksCountBackFromTheLastBlockKept() {
        // log: 8 (a), 4 (b), give back a, 20 (the output), 4 (c), give back c, 32 (d), give back b
        long[] log = {8, 4, -1, 20, 4, -4, 32, -2};
        // b's give-back, after the last block taken, is left to the end, which gives back all
        assertArrayEquals(new long[] {8, 4, -2, 4, -1, 32}, BlockEvents.beyondOutputs(log, new long[] {20}));
    }

    @Test
    void anOutputIsTheLastBlockOfItsBytesNeverGivenBack() {
        // two blocks of 16: the first is a temporary given back, the second the output
        long[] log = {16, 16, -1, 8};
        assertArrayEquals(new long[] {16, -1, 8}, BlockEvents.beyondOutputs(log, new long[] {16}));
        // without give-backs: the later one is taken for the output, the earlier one stays a workspace
        assertArrayEquals(new long[] {16}, BlockEvents.beyondOutputs(new long[] {16, 16}, new long[] {16}));
    }

    @Test
    void aLogThatGivesBackWhatItNeverTookIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> BlockEvents.beyondOutputs(new long[] {8, -2}, new long[0]));
        assertThrows(IllegalArgumentException.class,
                () -> BlockEvents.beyondOutputs(new long[] {8, -1, -1}, new long[0]));
    }

    @Test
    void givingBackEarlyLowersThePeakAndTheArenaEndsEmpty() {
        long[] events = {1024, -1, 1024, -1, 1024, -1};
        assertTrue(BlockEvents.givesBack(events));
        assertEquals(3, BlockEvents.taken(events));
        BfcArena early = new BfcArena();
        BlockEvents.replay(early, events, new int[BlockEvents.taken(events)]);
        BfcArena held = new BfcArena();
        long[] taken = BlockEvents.takenOnly(events);
        assertFalse(BlockEvents.givesBack(taken));
        OrtArenaPredictor.scratch(held, taken, new int[taken.length - 1], 0);
        assertEquals(1024, early.maxInUse());
        assertEquals(3 * 1024, held.maxInUse());
        early.alloc(3 * 1024);
        assertEquals(3 * 1024, early.maxInUse(), "nothing was still held at the end");
    }

    @Test
    void aGiveBackPastTheBlocksTakenHoldsTheBlockToTheEnd() {
        // a fitted give-back read past its probes may name no block held: the block stays, never below
        BfcArena arena = new BfcArena();
        long[] events = {512, -3, 512, -1, -1};
        BlockEvents.replay(arena, events, new int[2]);
        assertEquals(1024, arena.maxInUse());
    }

    @Test
    void emptyBlocksKeepTheirPlaceSoGiveBacksStillNameTheRightOne() {
        BfcArena arena = new BfcArena();
        long[] events = {512, 0, -2, 512};
        BlockEvents.replay(arena, events, new int[3]);
        assertEquals(512, arena.maxInUse(), "the 512 before the empty block was given back first");
    }
}
