// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.LongBuffer;
import java.util.Arrays;

/** The pure-Java engine: the reference the native engine is checked against, and its fallback. */
public final class JavaEngine implements PlanningEngine {

    public static final JavaEngine INSTANCE = new JavaEngine();

    private JavaEngine() {
    }

    @Override
    public String name() {
        return "java";
    }

    @Override
    public CompiledGraph compile(FlatGraph g, int[] valueRoot, boolean includeGraphInputs) {
        g.validate(); // as the native engine does: a public engine accepts no array it would misread
        NativeEngine.checkRoots(valueRoot, g.numValues());
        int numValues = g.numValues();
        int numNodes = g.numNodes();
        int[] inOff = g.inputOffsets();
        int[] ins = g.inputs();
        int[] outOff = g.outputOffsets();
        int[] outs = g.outputs();
        int[] flags = g.valueFlags();

        int[] producer = new int[numValues];
        Arrays.fill(producer, -1);
        for (int n = 0; n < numNodes; n++) {
            for (int k = outOff[n]; k < outOff[n + 1]; k++) {
                producer[outs[k]] = n;
            }
        }
        int[] order = kahnOrder(numValues, numNodes, inOff, ins, outOff, outs, producer);
        int[] position = new int[numNodes];
        for (int p = 0; p < numNodes; p++) {
            position[order[p]] = p;
        }

        // Owners in allocation order: included graph inputs by ascending id, then node outputs.
        int numPositions = g.numPositions();
        int[] ownerIndex = new int[numValues];
        Arrays.fill(ownerIndex, -1);
        int[] ownerValue = new int[numValues];
        int[] ownerDef = new int[numValues];
        int[] defOffsets = new int[numPositions + 1];
        int count = 0;
        if (includeGraphInputs) {
            for (int v = 0; v < numValues; v++) {
                if ((flags[v] & (FlatGraph.GRAPH_INPUT | FlatGraph.INITIALIZER)) == FlatGraph.GRAPH_INPUT
                        && valueRoot[v] == v && producer[v] < 0) {
                    ownerIndex[v] = count;
                    ownerValue[count++] = v;
                }
            }
        }
        for (int p = 0; p < numNodes; p++) {
            int n = order[p];
            for (int k = outOff[n]; k < outOff[n + 1]; k++) {
                int v = outs[k];
                if (valueRoot[v] == v && (flags[v] & FlatGraph.INITIALIZER) == 0) {
                    ownerIndex[v] = count;
                    ownerDef[count] = p;
                    ownerValue[count++] = v;
                }
            }
            defOffsets[p + 1] = count;
        }
        defOffsets[numPositions] = count;

        // useEnd: the last position that reads the owner or any view folding to it.
        int[] ownerUseEnd = Arrays.copyOf(ownerDef, count);
        for (int p = 0; p < numNodes; p++) {
            int n = order[p];
            for (int k = inOff[n]; k < inOff[n + 1]; k++) {
                int u = ins[k];
                if (u >= 0) {
                    int o = ownerIndex[valueRoot[u]];
                    if (o >= 0 && ownerUseEnd[o] < p) {
                        ownerUseEnd[o] = p;
                    }
                }
            }
        }
        int last = numPositions - 1;
        for (int v = 0; v < numValues; v++) {
            if ((flags[v] & FlatGraph.GRAPH_OUTPUT) != 0) {
                int o = ownerIndex[valueRoot[v]];
                if (o >= 0) {
                    ownerUseEnd[o] = last;
                }
            }
        }

        // Free buckets: owners grouped by useEnd, ascending owner index (a counting sort).
        int[] freeOffsets = new int[numPositions + 1];
        for (int o = 0; o < count; o++) {
            freeOffsets[ownerUseEnd[o] + 1]++;
        }
        for (int p = 0; p < numPositions; p++) {
            freeOffsets[p + 1] += freeOffsets[p];
        }
        int[] cursor = Arrays.copyOf(freeOffsets, numPositions);
        int[] freeOwners = new int[count];
        for (int o = 0; o < count; o++) {
            freeOwners[cursor[ownerUseEnd[o]]++] = o;
        }
        return new JavaCompiledGraph(numValues, numPositions, order, Arrays.copyOf(ownerValue, count),
                Arrays.copyOf(ownerDef, count), ownerUseEnd, defOffsets, freeOffsets, freeOwners);
    }

    /** Kahn's algorithm; among ready nodes the smallest id goes first. */
    private static int[] kahnOrder(int numValues, int numNodes, int[] inOff, int[] ins, int[] outOff, int[] outs,
                                   int[] producer) {
        // consumers of each value, CSR, with multiplicity (a node reading a value twice waits on it twice)
        int[] consOff = new int[numValues + 1];
        int[] indegree = new int[numNodes];
        for (int n = 0; n < numNodes; n++) {
            for (int k = inOff[n]; k < inOff[n + 1]; k++) {
                int u = ins[k];
                if (u >= 0 && producer[u] >= 0) {
                    consOff[u + 1]++;
                    indegree[n]++;
                }
            }
        }
        for (int v = 0; v < numValues; v++) {
            consOff[v + 1] += consOff[v];
        }
        int[] consumers = new int[consOff[numValues]];
        int[] fill = Arrays.copyOf(consOff, numValues);
        for (int n = 0; n < numNodes; n++) {
            for (int k = inOff[n]; k < inOff[n + 1]; k++) {
                int u = ins[k];
                if (u >= 0 && producer[u] >= 0) {
                    consumers[fill[u]++] = n;
                }
            }
        }
        IntMinHeap ready = new IntMinHeap(numNodes);
        for (int n = 0; n < numNodes; n++) {
            if (indegree[n] == 0) {
                ready.push(n);
            }
        }
        int[] order = new int[numNodes];
        int placed = 0;
        while (!ready.isEmpty()) {
            int n = ready.pop();
            order[placed++] = n;
            for (int k = outOff[n]; k < outOff[n + 1]; k++) {
                int v = outs[k];
                for (int c = consOff[v]; c < consOff[v + 1]; c++) {
                    if (--indegree[consumers[c]] == 0) {
                        ready.push(consumers[c]);
                    }
                }
            }
        }
        if (placed < numNodes) {
            for (int n = 0; n < numNodes; n++) {
                if (indegree[n] > 0) {
                    throw new GraphCycleException(n);
                }
            }
        }
        return order;
    }

    @Override
    public OffsetAllocation packOffsets(int numPositions, int[] def, int[] useEnd, long[] sizes, int effort) {
        IntervalChecks.check(numPositions, def, useEnd, sizes, effort);
        long[] offset = new long[sizes.length];
        long[] stats = OffsetPlanner.plan(numPositions, def, useEnd, sizes, effort, offset);
        return new OffsetAllocation(stats[0], stats[1], stats[2], LongBuffer.wrap(offset).asReadOnlyBuffer());
    }
}
