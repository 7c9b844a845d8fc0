// SPDX-License-Identifier: Apache-2.0
package dev.memplan.validate;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import dev.memplan.Shape;
import dev.memplan.Graph.Value;
import dev.memplan.ViewMap;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * In-place links (docs/design.md §3b) derived again from the public graph, for
 * {@link PlanValidator}: its own size comparison, its own pass over the order, sharing no code with
 * {@code InPlaceCandidates} or the engines. A value takes the buffer of a hinted input of its
 * producer when (d) the bytes are equal at every binding, along the input's views too, (c) that
 * buffer is no graph input, weight or graph output, (b) it is read for the last time here, and this
 * node reads it through that input only and has not already given it to another of its outputs.
 */
final class IndependentInPlace {
    private IndependentInPlace() {
    }

    /**
     * {@return the buffer of every value id}
     *
     * @param refusal filled, per value whose hint was refused, with why (the last input tried)
     */
    static int[] buffers(Graph graph, ViewMap views, int[] order, int[] viewRoot, String[] refusal) {
        int n = graph.valueCount();
        int[] buffer = viewRoot.clone();
        int[] lastRead = new int[n];
        Arrays.fill(lastRead, -1);
        boolean[] escapes = new boolean[n];
        int[] givenAt = new int[n];
        Arrays.fill(givenAt, -1);
        for (int p = 0; p < order.length; p++) {
            for (int u : graph.node(order[p]).inputs()) {
                if (u != Graph.ABSENT) {
                    lastRead[viewRoot[u]] = p;
                }
            }
        }
        for (int out : graph.outputs()) {
            escapes[viewRoot[out]] = true;
        }
        for (int p = 0; p < order.length; p++) {
            Node node = graph.node(order[p]);
            if (!node.hasInPlaceHint() || viewRoot[node.output(0)] != node.output(0)) {
                continue;
            }
            int out = node.output(0);
            for (int k : node.inPlaceInputs()) {
                int in = node.input(k);
                int b = buffer[viewRoot[in]];
                String why = whyNot(graph, views, node, k, b, p, lastRead, escapes, givenAt, buffer, viewRoot);
                if (why != null) {
                    refusal[out] = why;
                    continue;
                }
                buffer[out] = b;
                lastRead[b] = Math.max(lastRead[b], lastRead[out]);
                escapes[b] |= escapes[out];
                givenAt[b] = p;
                refusal[out] = null;
                break;
            }
        }
        for (int v = 0; v < n; v++) {
            buffer[v] = buffer[viewRoot[v]];
        }
        return buffer;
    }

    private static String whyNot(Graph graph, ViewMap views, Node node, int k, int b, int p, int[] lastRead,
                                 boolean[] escapes, int[] givenAt, int[] buffer, int[] viewRoot) {
        int out = node.output(0);
        int in = node.input(k);
        if (!equalBytes(graph.value(out), graph.value(in))) {
            return "its bytes may differ from input " + graph.value(in).describe() + "'s";
        }
        Map<Integer, Integer> edges = views.edges();
        int steps = 0;
        for (int v = in; edges.containsKey(v) && steps++ <= edges.size(); v = edges.get(v)) {
            if (!equalBytes(graph.value(v), graph.value(edges.get(v)))) {
                return "view " + graph.value(v).describe() + " may hold fewer bytes than its source";
            }
        }
        if (graph.isGraphInput(b) || graph.isInitializer(b)) {
            return graph.value(b).describe() + " is a graph input or a weight";
        }
        if (escapes[b]) {
            return graph.value(b).describe() + "'s bytes are a graph output";
        }
        if (lastRead[b] != p) {
            return graph.value(b).describe() + "'s bytes are read again at position " + lastRead[b];
        }
        if (givenAt[b] == p) {
            return graph.value(b).describe() + "'s bytes already went to another output of " + node.describe();
        }
        for (int j = 0; j < node.inputCount(); j++) {
            int w = node.input(j);
            if (j != k && w != Graph.ABSENT && buffer[viewRoot[w]] == b) {
                return node.describe() + " also reads " + graph.value(b).describe() + "'s bytes through input " + j;
            }
        }
        return null;
    }

    /** Same fixed element width, and element counts equal whatever the symbols are bound to. */
    private static boolean equalBytes(Value a, Value b) {
        DataType x = a.dataType();
        DataType y = b.dataType();
        if (!x.hasFixedWidth() || x.bits() != y.bits()) {
            return false;
        }
        return equalCounts(a.shape(), b.shape());
    }

    private static boolean equalCounts(Shape a, Shape b) {
        BigInteger fixedA = BigInteger.ONE;
        BigInteger fixedB = BigInteger.ONE;
        List<Dim> restB = new ArrayList<>();
        for (Dim d : b.dims()) {
            if (d instanceof Dim.Fixed f) {
                fixedB = fixedB.multiply(BigInteger.valueOf(f.extent()));
            } else {
                restB.add(d);
            }
        }
        List<Dim> restA = new ArrayList<>();
        for (Dim d : a.dims()) {
            if (d instanceof Dim.Fixed f) {
                fixedA = fixedA.multiply(BigInteger.valueOf(f.extent()));
            } else {
                restA.add(d);
            }
        }
        if (fixedA.signum() == 0 || fixedB.signum() == 0) {
            return fixedA.signum() == fixedB.signum(); // an empty tensor stays empty at every binding
        }
        if (!fixedA.equals(fixedB) || restA.size() != restB.size()) {
            return false;
        }
        for (Dim d : restA) {
            if (!restB.remove(d)) {
                return false;
            }
        }
        return true;
    }
}
