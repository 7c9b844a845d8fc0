// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

/**
 * One tiny plan through each per-request native call, run once when the library loads: the first
 * call of a JNI method links it, and the first plan loads and initializes the classes of its
 * result. Together that is about a millisecond, which the first request of a server would
 * otherwise pay on top of its plan (a 10k-owner transformer: 1.3-1.7 ms for the first slots plan
 * without it, 0.16-0.25 ms after a tiny one). Paid here, at start-up, instead.
 */
final class NativeWarmUp {
    private NativeWarmUp() {
    }

    /** Plans {@link #chain()} by both strategies. */
    static void run() {
        CompiledGraph schedule = NativeCompile.run(chain(), ROOTS, null, false);
        long[] sizes = schedule.checkedSizes(new long[schedule.numOwners()], ANY_SIZE);
        schedule.allocateOwned(sizes);
        schedule.allocateOffsetsOwned(sizes, 1);
    }

    /** Each value its own root: the chain has no views. */
    static final int[] ROOTS = {0, 1, 2};

    /** A three-value chain: a graph input, one activation, a graph output. */
    static FlatGraph chain() {
        return new FlatGraph(3, 2, new int[] {0, 1, 2}, new int[] {0, 1}, new int[] {0, 1, 2}, new int[] {1, 2},
                new int[] {FlatGraph.GRAPH_INPUT, 0, FlatGraph.GRAPH_OUTPUT});
    }

    /** Sizes of zero bytes need no rounding and never overflow, so nothing here is ever called to name one. */
    private static final SizeRules ANY_SIZE = new SizeRules() {
        @Override
        public long alignment() {
            return 1;
        }

        @Override
        public long checkedSize(int owner, long bytes) {
            return bytes;
        }

        @Override
        public RuntimeException totalOverflow(int owner) {
            return new ArithmeticException("warm-up sizes overflowed at owner " + owner);
        }
    };
}
