// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/**
 * Compiling a schedule in the Java engine: {@code memplan_compile} in compile.h, pass for pass and
 * named alike. The result is a {@link JavaCompiledGraph}; nothing here depends on sizes.
 */
final class Compile {
    private static final int NONE = FlatGraph.NONE;

    private Compile() {
    }

    /**
     * Orders the nodes (Kahn, smallest ready id first), finds the owners and their intervals
     * {@code [def, useEnd]}, and buckets owners by def and by useEnd so that allocation never walks
     * the graph. {@code memplan_compile} in compile.h runs the same helpers, named alike.
     */
    static CompiledGraph run(FlatGraph g, int[] valueRoot, int[] inPlaceMask, boolean includeGraphInputs) {
        g.validate(); // as the native engine does: a public engine accepts no array it would misread
        int numValues = g.numValues();
        int numNodes = g.numNodes();
        int numPositions = g.numPositions();
        g.validateValues(valueRoot);
        g.validateInPlace(inPlaceMask);
        int[] producer = findProducers(g);

        int[] indegree = new int[numNodes];
        int[] successorOffsets = new int[numNodes + 1];
        int[] successors = buildSuccessors(g, producer, indegree, successorOffsets);
        int[] order = new int[numNodes];
        if (kahnOrder(numNodes, successorOffsets, successors, indegree, order) < numNodes) {
            throw new GraphCycleException(firstWaiting(indegree));
        }

        viewsAfterRoots(g, valueRoot, order);

        // From here on a value's "root" is the owner of its bytes: its view root, or the buffer an
        // in-place link gave it. Owners and intervals follow without knowing about in-place reuse.
        int[] valueBuffer = inPlaceMask == null ? valueRoot : InPlaceLinks.link(g, valueRoot, inPlaceMask, order);
        int[] ownerIndex = new int[numValues];
        int[] ownerValue = new int[numValues];
        int[] ownerDef = new int[numValues];
        int[] ownerUseEnd = new int[numValues];
        int[] defOffsets = new int[numPositions + 1];
        int count = collectOwners(g, valueBuffer, includeGraphInputs, order, ownerIndex, ownerValue, ownerDef,
                ownerUseEnd, defOffsets);
        computeUseEnds(g, valueBuffer, order, ownerIndex, ownerUseEnd);
        int[] freeOffsets = new int[numPositions + 1];
        int[] freeOwners = new int[count];
        bucketByUseEnd(count, numPositions, ownerUseEnd, freeOffsets, freeOwners);
        return new JavaCompiledGraph(numValues, numPositions, order, Arrays.copyOf(ownerValue, count),
                Arrays.copyOf(ownerDef, count), Arrays.copyOf(ownerUseEnd, count), defOffsets, freeOffsets,
                freeOwners, valueBuffer == valueRoot ? valueRoot.clone() : valueBuffer);
    }

    /**
     * A view's root is made at or before the view's position in the order ({@link dev.memplan.ViewMap}'s
     * rule, whose source is an input of the view's producer): else the root's owner would start
     * after bytes were written into it. {@code views_after_roots} in compile.h.
     */
    static void viewsAfterRoots(FlatGraph g, int[] valueRoot, int[] order) {
        int[] outOff = g.outputOffsets();
        int[] outs = g.outputs();
        int[] madeAt = new int[g.numValues()];
        Arrays.fill(madeAt, NONE);
        for (int p = 0; p < order.length; p++) {
            int n = order[p];
            for (int k = outOff[n]; k < outOff[n + 1]; k++) {
                madeAt[outs[k]] = p;
            }
        }
        for (int v = 0; v < madeAt.length; v++) {
            int r = valueRoot[v];
            if (r != v && madeAt[r] > madeAt[v]) { // a view is always made (FlatGraph.validateValues)
                throw FlatGraph.invalid("value " + v + " is a view of " + r + ", which is made after it; a view's"
                        + " root must be made first");
            }
        }
    }

    /** The producing node of every value, {@link FlatGraph#NONE} for graph inputs and initializers. */
    static int[] findProducers(FlatGraph g) {
        int[] outOff = g.outputOffsets();
        int[] outs = g.outputs();
        int[] producer = new int[g.numValues()];
        Arrays.fill(producer, NONE);
        for (int n = 0; n < g.numNodes(); n++) {
            for (int k = outOff[n]; k < outOff[n + 1]; k++) {
                producer[outs[k]] = n;
            }
        }
        return producer;
    }

    /**
     * Dependency edges producer -> consumer in CSR form, one per consuming input, so a node reading
     * a value twice waits on it twice: fills {@code successorOffsets} and {@code indegree} and
     * returns the successors.
     */
    static int[] buildSuccessors(FlatGraph g, int[] producer, int[] indegree, int[] successorOffsets) {
        int numNodes = g.numNodes();
        int[] inOff = g.inputOffsets();
        int[] ins = g.inputs();
        for (int n = 0; n < numNodes; n++) {
            for (int k = inOff[n]; k < inOff[n + 1]; k++) {
                int u = ins[k];
                if (u != NONE && producer[u] != NONE) {
                    indegree[n]++;
                    successorOffsets[producer[u] + 1]++;
                }
            }
        }
        for (int n = 0; n < numNodes; n++) {
            successorOffsets[n + 1] += successorOffsets[n];
        }
        int[] successors = new int[successorOffsets[numNodes]];
        int[] cursor = Arrays.copyOf(successorOffsets, numNodes);
        for (int n = 0; n < numNodes; n++) {
            for (int k = inOff[n]; k < inOff[n + 1]; k++) {
                int u = ins[k];
                if (u != NONE && producer[u] != NONE) {
                    successors[cursor[producer[u]]++] = n;
                }
            }
        }
        return successors;
    }

    /**
     * Kahn's algorithm; among ready nodes the smallest id goes first. Consumes {@code indegree};
     * returns how many nodes it placed in {@code order}, fewer than {@code numNodes} on a cycle.
     */
    static int kahnOrder(int numNodes, int[] successorOffsets, int[] successors, int[] indegree, int[] order) {
        IntMinHeap ready = new IntMinHeap(numNodes);
        for (int n = 0; n < numNodes; n++) {
            if (indegree[n] == 0) {
                ready.push(n);
            }
        }
        int placed = 0;
        while (!ready.isEmpty()) {
            int n = ready.pop();
            order[placed++] = n;
            for (int e = successorOffsets[n]; e < successorOffsets[n + 1]; e++) {
                int s = successors[e];
                if (--indegree[s] == 0) {
                    ready.push(s);
                }
            }
        }
        return placed;
    }

    /** The smallest node a cycle left unordered: every such node still waits on an edge. */
    static int firstWaiting(int[] indegree) {
        for (int n = 0; n < indegree.length; n++) {
            if (indegree[n] > 0) {
                return n;
            }
        }
        return NONE;
    }

    /**
     * Owners in allocation order: included graph inputs (ascending id, def 0), then each
     * position's owner outputs in output order (def = its position); {@code defOffsets} buckets
     * them by def, and every owner's useEnd starts at its def. Returns the owner count.
     */
    static int collectOwners(FlatGraph g, int[] valueRoot, boolean includeGraphInputs, int[] order,
                             int[] ownerIndex, int[] ownerValue, int[] ownerDef, int[] ownerUseEnd,
                             int[] defOffsets) {
        int[] outOff = g.outputOffsets();
        int[] outs = g.outputs();
        int[] flags = g.valueFlags();
        Arrays.fill(ownerIndex, NONE);
        int count = 0;
        if (includeGraphInputs) {
            for (int v = 0; v < g.numValues(); v++) {
                if ((flags[v] & (FlatGraph.GRAPH_INPUT | FlatGraph.INITIALIZER)) == FlatGraph.GRAPH_INPUT
                        && valueRoot[v] == v) {
                    ownerIndex[v] = count;
                    ownerValue[count] = v;
                    ownerDef[count] = 0;
                    ownerUseEnd[count] = 0;
                    count++;
                }
            }
        }
        for (int p = 0; p < g.numNodes(); p++) {
            int n = order[p];
            for (int k = outOff[n]; k < outOff[n + 1]; k++) {
                int v = outs[k];
                if (valueRoot[v] == v && (flags[v] & FlatGraph.INITIALIZER) == 0) {
                    ownerIndex[v] = count;
                    ownerValue[count] = v;
                    ownerDef[count] = p;
                    ownerUseEnd[count] = p;
                    count++;
                }
            }
            defOffsets[p + 1] = count;
        }
        defOffsets[g.numPositions()] = count; // an empty graph's one position
        return count;
    }

    /**
     * useEnd: every read of the owner or of a view folding to it raises it to the reader's
     * position, and graph outputs live to the last position.
     */
    static void computeUseEnds(FlatGraph g, int[] valueRoot, int[] order, int[] ownerIndex, int[] ownerUseEnd) {
        int[] inOff = g.inputOffsets();
        int[] ins = g.inputs();
        int[] flags = g.valueFlags();
        for (int p = 0; p < g.numNodes(); p++) {
            int n = order[p];
            for (int k = inOff[n]; k < inOff[n + 1]; k++) {
                int u = ins[k];
                if (u == NONE) {
                    continue;
                }
                int o = ownerIndex[valueRoot[u]];
                if (o != NONE && ownerUseEnd[o] < p) {
                    ownerUseEnd[o] = p;
                }
            }
        }
        int last = g.numPositions() - 1;
        for (int v = 0; v < g.numValues(); v++) {
            if ((flags[v] & FlatGraph.GRAPH_OUTPUT) == 0) {
                continue;
            }
            int o = ownerIndex[valueRoot[v]];
            if (o != NONE) {
                ownerUseEnd[o] = last;
            }
        }
    }

    /**
     * Owners grouped by useEnd into {@code freeOffsets} and {@code freeOwners}, ascending owner
     * index within a position: a stable counting sort.
     */
    static void bucketByUseEnd(int count, int numPositions, int[] ownerUseEnd, int[] freeOffsets,
                               int[] freeOwners) {
        for (int o = 0; o < count; o++) {
            freeOffsets[ownerUseEnd[o] + 1]++;
        }
        for (int p = 0; p < numPositions; p++) {
            freeOffsets[p + 1] += freeOffsets[p];
        }
        int[] cursor = Arrays.copyOf(freeOffsets, numPositions);
        for (int o = 0; o < count; o++) {
            freeOwners[cursor[ownerUseEnd[o]]++] = o;
        }
    }
}
