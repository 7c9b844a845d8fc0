// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/**
 * A graph as the flat arrays the engines plan on: node inputs and outputs in CSR form and a flag
 * word per value. This is what crosses the native boundary, so {@link #validate()} checks every
 * invariant the native code relies on.
 *
 * @param numValues     number of values
 * @param numNodes      number of nodes
 * @param inputOffsets  {@code [numNodes + 1]}: node n's inputs are {@code inputs[inputOffsets[n] ..
 *                      inputOffsets[n + 1])}
 * @param inputs        value ids, -1 for an absent optional input
 * @param outputOffsets {@code [numNodes + 1]}, as for inputs
 * @param outputs       value ids; each value is produced at most once
 * @param valueFlags    {@code [numValues]}: {@link #GRAPH_INPUT}, {@link #GRAPH_OUTPUT},
 *                      {@link #INITIALIZER} bits
 */
public record FlatGraph(int numValues, int numNodes, int[] inputOffsets, int[] inputs, int[] outputOffsets,
                        int[] outputs, int[] valueFlags) {
    public static final int GRAPH_INPUT = 1;
    public static final int GRAPH_OUTPUT = 2;
    public static final int INITIALIZER = 4;
    /** No value, node, owner or slot: an absent input, an unproduced value ({@code NONE} in abi.h). */
    static final int NONE = -1;
    private static final int KNOWN_FLAGS = GRAPH_INPUT | GRAPH_OUTPUT | INITIALIZER;

    /** Positions of a schedule: one per node, and at least one so graph inputs have a place. */
    int numPositions() {
        return Math.max(numNodes, 1);
    }

    /**
     * Checks the invariants the engines rely on. Messages are built only on failure: this runs
     * over every id of a graph of millions.
     *
     * @throws IllegalArgumentException naming the first broken one
     */
    void validate() {
        if (numValues < 0 || numNodes < 0) {
            throw invalid("negative counts");
        }
        checkCsr(inputOffsets, inputs, "input", true);
        checkCsr(outputOffsets, outputs, "output", false);
        if (valueFlags.length != numValues) {
            throw invalid("valueFlags has " + valueFlags.length + " entries, expected " + numValues);
        }
        boolean[] produced = new boolean[numValues];
        for (int v : outputs) {
            if (produced[v]) {
                throw invalid("value " + v + " is produced twice");
            }
            produced[v] = true;
        }
    }

    /**
     * Checks the per-value rules both engines rely on ({@code valid_values} in compile.h):
     * every root is in range and its own root, flags are known, a produced value is neither graph
     * input nor initializer, and a view is always produced. Call after {@link #validate()}.
     *
     * @param valueRoot {@code [numValues]}: the view root of each value, itself when not a view
     * @throws IllegalArgumentException naming the first value that breaks one
     */
    void validateValues(int[] valueRoot) {
        if (valueRoot.length != numValues) {
            throw invalid("valueRoot has " + valueRoot.length + " entries, expected " + numValues);
        }
        boolean[] produced = new boolean[numValues];
        for (int v : outputs) {
            produced[v] = true;
        }
        for (int v = 0; v < numValues; v++) {
            int r = valueRoot[v];
            int f = valueFlags[v];
            if (r < 0 || r >= numValues || valueRoot[r] != r) {
                throw invalid("value " + v + " has root " + r + ", which is not a root value");
            }
            if ((f & ~KNOWN_FLAGS) != 0) {
                throw invalid("value " + v + " has unknown flag bits " + (f & ~KNOWN_FLAGS));
            }
            if (produced[v] && (f & (GRAPH_INPUT | INITIALIZER)) != 0) {
                throw invalid("value " + v + " is produced by a node but is also a graph input or initializer");
            }
            if (r != v && !produced[v]) {
                throw invalid("value " + v + " is a view of " + r + " but no node produces it");
            }
        }
    }

    /**
     * Checks an in-place mask ({@code valid_in_place} in in_place_links.h): one entry per value,
     * bits only on produced values, each naming a present input of the producer.
     *
     * @param mask {@code [numValues]} or null (no in-place reuse)
     * @throws IllegalArgumentException naming the first value that breaks one
     */
    void validateInPlace(int[] mask) {
        if (mask == null) {
            return;
        }
        if (mask.length != numValues) {
            throw invalid("inPlaceMask has " + mask.length + " entries, expected " + numValues);
        }
        int[] producer = new int[numValues];
        Arrays.fill(producer, NONE);
        for (int n = 0; n < numNodes; n++) {
            for (int k = outputOffsets[n]; k < outputOffsets[n + 1]; k++) {
                producer[outputs[k]] = n;
            }
        }
        for (int v = 0; v < numValues; v++) {
            int m = mask[v];
            if (m == 0) {
                continue;
            }
            int n = producer[v];
            if (n == NONE) {
                throw invalid("value " + v + " has an in-place mask but no node produces it");
            }
            int numInputs = inputOffsets[n + 1] - inputOffsets[n];
            for (int k = 0; k < 32; k++) {
                if ((m & (1 << k)) != 0 && (k >= numInputs || inputs[inputOffsets[n] + k] == NONE)) {
                    throw invalid("value " + v + " may overwrite input " + k + " of node " + n
                            + ", which has no such present input");
                }
            }
        }
    }

    private void checkCsr(int[] offsets, int[] ids, String what, boolean allowAbsent) {
        if (offsets.length != numNodes + 1) {
            throw invalid(what + " offsets have " + offsets.length + " entries, expected " + (numNodes + 1));
        }
        if (offsets[0] != 0) {
            throw invalid(what + " offsets must start at 0");
        }
        for (int n = 0; n < numNodes; n++) {
            if (offsets[n] > offsets[n + 1]) {
                throw invalid(what + " offsets decrease at node " + n);
            }
        }
        if (offsets[numNodes] != ids.length) {
            throw invalid(what + " offsets end at " + offsets[numNodes] + " but there are " + ids.length + " "
                    + what + "s");
        }
        int lowest = allowAbsent ? -1 : 0;
        for (int id : ids) {
            if (id < lowest || id >= numValues) {
                throw invalid(what + " value id " + id + " is out of range 0.." + (numValues - 1));
            }
        }
    }

    static IllegalArgumentException invalid(String message) {
        return new IllegalArgumentException("invalid flat graph: " + message);
    }
}
