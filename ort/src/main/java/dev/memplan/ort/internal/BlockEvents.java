// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import java.util.Arrays;

/**
 * A measured kernel's blocks as events, in the order it took and gave them back during its
 * compute: a size {@code n >= 0} takes a block of {@code n} bytes; {@code -d} gives back the
 * block taken {@code d} blocks before (1 is the last one taken). What is still held when the kernel
 * ends is given back then, in reverse. A list without a give-back is the older form: every block
 * held to the end. A Loop gives back each step's temporaries before the next step's: held to the
 * end, they would count every step's at once.
 */
final class BlockEvents {
    private BlockEvents() {
    }

    /** {@return whether {@code events} gives back any block before the kernel ends} */
    static boolean givesBack(long[] events) {
        for (long e : events) {
            if (e < 0) {
                return true;
            }
        }
        return false;
    }

    /** {@return how many blocks {@code events} takes} */
    static int taken(long[] events) {
        int n = 0;
        for (long e : events) {
            if (e >= 0) {
                n++;
            }
        }
        return n;
    }

    /** {@return the blocks {@code events} takes, in order, as if each were held to the end} */
    static long[] takenOnly(long[] events) {
        return Arrays.stream(events).filter(e -> e >= 0).toArray();
    }

    /**
     * The counting allocator's log of one run ({@link OrtCApi#stopCountingLog()}: sizes, and minus
     * the number, from 1, of each logged block given back) without the blocks of the outputs, as
     * events: per output, the last block of its bytes that was never given back is left out. The
     * give-backs after the last block taken are left out too: the end gives back what is held, and
     * the arena's free chunks after a set of frees do not depend on their order. So a Loop's events
     * are a group per step, the same at any trip count, and not also one give-back per step at the
     * end.
     *
     * @param log         the log
     * @param outputBytes each output's bytes
     * @return the events beyond the outputs
     * @throws IllegalArgumentException when a give-back names no earlier block of the log, or one
     *                                  given back already
     */
    static long[] beyondOutputs(long[] log, long[] outputBytes) {
        int blocks = taken(log);
        long[] size = new long[blocks];
        boolean[] givenBack = new boolean[blocks];
        int n = 0;
        for (long e : log) {
            if (e >= 0) {
                size[n++] = e;
            } else {
                int k = checkedBlock(-e, n, givenBack);
                givenBack[k] = true;
            }
        }
        boolean[] output = new boolean[blocks];
        for (long bytes : outputBytes) {
            for (int k = blocks - 1; k >= 0; k--) {
                if (!output[k] && !givenBack[k] && size[k] == bytes) {
                    output[k] = true;
                    break;
                }
            }
        }
        int[] kept = new int[blocks]; // per block, its number among those kept, from 1
        long[] out = new long[log.length];
        int length = 0;
        int keptSoFar = 0;
        n = 0;
        for (long e : log) {
            if (e >= 0) {
                int k = n++;
                if (!output[k]) {
                    kept[k] = ++keptSoFar;
                    out[length++] = e;
                }
            } else {
                int k = (int) (-e - 1);
                if (!output[k]) {
                    out[length++] = -(keptSoFar - kept[k] + 1);
                }
            }
        }
        while (length > 0 && out[length - 1] < 0) {
            length--; // given back after the last block taken: the end gives back all that is held
        }
        return Arrays.copyOf(out, length);
    }

    private static int checkedBlock(long number, int takenSoFar, boolean[] givenBack) {
        if (number > takenSoFar || givenBack[(int) (number - 1)]) {
            throw new IllegalArgumentException("the counting allocator's log gives back block " + number
                    + " after " + takenSoFar + " blocks taken");
        }
        return (int) (number - 1);
    }

    /**
     * Replays a kernel's events in the arena; what is held at the end is given back in reverse. A
     * give-back that names no block held (a fitted line read past its probes) is skipped: that block
     * stays held to the end, which can only raise the peak.
     *
     * @param chunks room for the chunk ids of every block taken ({@link #taken})
     */
    static void replay(BfcArena arena, long[] events, int[] chunks) {
        int n = 0;
        for (long e : events) {
            if (e >= 0) {
                chunks[n++] = arena.alloc(e);
            } else if (-e <= n && chunks[(int) (n + e)] != GIVEN_BACK) {
                int k = (int) (n + e);
                arena.free(chunks[k]);
                chunks[k] = GIVEN_BACK;
            }
        }
        for (int k = n - 1; k >= 0; k--) {
            if (chunks[k] != GIVEN_BACK) {
                arena.free(chunks[k]);
            }
        }
    }

    /** A chunk id no block has: the arena's ids are -1 (nothing taken) and up. */
    private static final int GIVEN_BACK = Integer.MIN_VALUE;
}
