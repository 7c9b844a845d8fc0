// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import dev.memplan.Graph.Node;
import dev.memplan.Graph.Value;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.Map;

/**
 * Rule (d) of in-place reuse (docs/design.md §3b), decided in Java because only Java has the
 * symbolic shapes: for each node's in-place hint, which of the hinted inputs its first output may
 * overwrite byte for byte at every binding. The engines then apply the rules that need the
 * execution order. The answer crosses the boundary as one flat array: per value, a mask of its
 * producer's input positions (bit k: input k), 0 for none.
 */
final class InPlaceCandidates {
    private InPlaceCandidates() {
    }

    /**
     * {@return the mask of every value id, or null when no hint passes rule (d)} A hinted input
     * passes when the output is not a view and has the same element width and symbolically the
     * same element count as the input, and so does every view between the input and its root:
     * then the output's bytes equal its buffer's at every binding.
     *
     * @param graph the graph, with its nodes' hints
     * @param views the views it is compiled with
     */
    static int[] masks(Graph graph, ViewMap views) {
        int[] mask = null;
        for (Node node : graph.nodes()) {
            if (!node.hasInPlaceHint()) {
                continue;
            }
            int out = node.output(0);
            if (views.isView(out)) {
                continue; // a view already lives in its source's buffer
            }
            int bits = 0;
            for (int k : node.inPlaceInputs()) {
                if (sameBytesAlongViews(graph, views, out, node.input(k))) {
                    bits |= 1 << k;
                }
            }
            if (bits != 0) {
                if (mask == null) {
                    mask = new int[graph.valueCount()];
                }
                mask[out] = bits;
            }
        }
        return mask;
    }

    /** Whether {@code out} has {@code in}'s bytes, and each view from {@code in} to its root its source's. */
    private static boolean sameBytesAlongViews(Graph graph, ViewMap views, int out, int in) {
        if (!sameBytes(graph.value(out), graph.value(in))) {
            return false;
        }
        Map<Integer, Integer> edges = views.edges();
        int v = in;
        for (int steps = 0; steps <= edges.size(); steps++) {
            Integer source = edges.get(v);
            if (source == null) {
                return true;
            }
            if (!sameBytes(graph.value(v), graph.value(source))) {
                return false;
            }
            v = source;
        }
        return false; // a view cycle: compile reports it
    }

    /** Equal fixed element widths and symbolically equal element counts: equal bytes at every binding. */
    static boolean sameBytes(Value a, Value b) {
        DataType ta = a.dataType();
        DataType tb = b.dataType();
        return ta.hasFixedWidth() && tb.hasFixedWidth() && ta.bits() == tb.bits()
                && sameElementCount(a.shape(), b.shape());
    }

    /**
     * Equal element counts for every binding: both have a static zero dim, or neither has and the
     * products of their static dims are equal and their symbolic dims are the same multiset.
     */
    static boolean sameElementCount(Shape a, Shape b) {
        boolean zeroA = hasStaticZero(a);
        boolean zeroB = hasStaticZero(b);
        if (zeroA || zeroB) {
            return zeroA && zeroB;
        }
        return staticProduct(a).equals(staticProduct(b)) && symbolicDims(a).equals(symbolicDims(b));
    }

    private static boolean hasStaticZero(Shape s) {
        for (Dim d : s.dims()) {
            if (d instanceof Dim.Fixed f && f.extent() == 0) {
                return true;
            }
        }
        return false;
    }

    private static BigInteger staticProduct(Shape s) {
        BigInteger p = BigInteger.ONE;
        for (Dim d : s.dims()) {
            if (d instanceof Dim.Fixed f) {
                p = p.multiply(BigInteger.valueOf(f.extent()));
            }
        }
        return p;
    }

    private static Map<Dim, Integer> symbolicDims(Shape s) {
        Map<Dim, Integer> count = new HashMap<>();
        for (Dim d : s.dims()) {
            if (!(d instanceof Dim.Fixed)) {
                count.merge(d, 1, Integer::sum);
            }
        }
        return count;
    }
}
