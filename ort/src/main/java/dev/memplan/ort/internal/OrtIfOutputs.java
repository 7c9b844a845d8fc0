// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import java.util.Arrays;
import java.util.function.IntToLongFunction;

/**
 * The outer graph's allocations of an If's outputs during one request's replay, made when the If's
 * branch says ({@link OrtSubgraphReplay}: before the branch runs when ORT knows the output's shape,
 * else when the branch's node producing it runs, through ORT's fetch allocator). In run 1 as the
 * graph's own events would make them (a graph output held to the end, another traced into the
 * pattern); in run 2 a graph output beside the pattern's block, another inside it.
 */
final class OrtIfOutputs {
    private final ReplaySequence sequence;
    private final OrtReusePlan plan;
    private final BfcArena arena;
    private final IntToLongFunction bytes;
    private final long[] slotBytes;
    private final int[] chunk;
    private final MemoryPattern pattern;
    private long held;
    private boolean secondRun;

    /**
     * The request's state the predictor's replay shares with the If's branches; {@code bytes} is the
     * replay's own size of a buffer slot for this request.
     */
    OrtIfOutputs(ReplaySequence sequence, OrtReusePlan plan, BfcArena arena, IntToLongFunction bytes,
                 long[] slotBytes, int[] chunk, MemoryPattern pattern) {
        this.sequence = sequence;
        this.plan = plan;
        this.arena = arena;
        this.bytes = bytes;
        this.slotBytes = slotBytes;
        this.chunk = chunk;
        this.pattern = pattern;
    }

    /** {@return per node id of an If with a replay, per output, the buffer slot it allocates or -1; else null} */
    static int[][] slots(Graph graph, ReplaySequence sequence, OrtSubgraphReplay[] subgraphs) {
        int[][] out = new int[graph.nodeCount()][];
        for (Node node : graph.nodes()) {
            if (subgraphs[node.id()] != null) {
                int[] slots = new int[node.outputCount()];
                Arrays.fill(slots, -1);
                for (int slot = 0; slot < sequence.buffers(); slot++) {
                    for (int i = 0; i < slots.length; i++) {
                        if (node.output(i) == sequence.slotValue[slot]) {
                            slots[i] = slot;
                        }
                    }
                }
                out[node.id()] = slots;
            }
        }
        return out;
    }

    /** {@return per buffer slot, whether an If allocates it (so the graph's own event does not)} */
    static boolean[] allocatedByBranches(ReplaySequence sequence, int[][] slots) {
        boolean[] out = new boolean[sequence.buffers()];
        for (int[] perIf : slots) {
            if (perIf != null) {
                for (int slot : perIf) {
                    if (slot >= 0) {
                        out[slot] = true;
                    }
                }
            }
        }
        return out;
    }

    /** {@return the outputs of the If whose output slots are {@code slots}, for its branch to allocate} */
    OrtSubgraphReplay.Outputs of(int[] slots) {
        return index -> {
            int slot = index < slots.length ? slots[index] : -1;
            if (slot >= 0) {
                allocate(slot);
            }
        };
    }

    /** Switches to run 2; {@return the bytes of the graph outputs run 1 allocated here, held by the caller} */
    long secondRun() {
        secondRun = true;
        return held;
    }

    private void allocate(int slot) {
        boolean graphOutput = plan.isGraphOutput(sequence.slotValue[slot]);
        if (secondRun) {
            if (graphOutput) {
                arena.alloc(slotBytes[slot]);
            }
            return;
        }
        long bytes = this.bytes.applyAsLong(slot);
        slotBytes[slot] = bytes;
        chunk[slot] = arena.alloc(bytes);
        if (graphOutput) {
            held += BfcArena.align(bytes);
        } else if (bytes > 0) {
            pattern.allocate(slot, BfcArena.align(bytes));
        }
    }
}
