// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Graph;
import dev.memplan.InvalidSizeException;
import dev.memplan.Graph.Value;
import java.util.Arrays;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One request's tensor sizes: each value's dims and bytes with the request's symbols bound,
 * computed once per value when first asked for. {@link #rebind} starts the next request on the
 * same arrays: a value's cached entries count only while their stamp is the current request's.
 */
final class BoundShapes {
    private final Graph graph;
    private Map<String, Long> bindings;
    private final long[] bytes;
    private final long[][] dims;
    /** Per value: the request whose bytes / dims the arrays hold. */
    private final int[] bytesStamp;
    private final int[] dimsStamp;
    private int stamp = 1;

    /** {@return the graph whose value ids these shapes take} */
    Graph graph() {
        return graph;
    }

    BoundShapes(Graph graph, Map<String, Long> bindings) {
        this.graph = graph;
        this.bindings = bindings;
        this.bytes = new long[graph.valueCount()];
        this.dims = new long[graph.valueCount()][];
        this.bytesStamp = new int[graph.valueCount()];
        this.dimsStamp = new int[graph.valueCount()];
    }

    /** Forgets the sizes of the request before and binds {@code next}'s symbols. */
    void rebind(Map<String, Long> next) {
        bindings = next;
        if (++stamp == 0) { // wrapped after 2^32 requests: clear so no old stamp matches
            Arrays.fill(bytesStamp, 0);
            Arrays.fill(dimsStamp, 0);
            stamp = 1;
        }
    }

    /**
     * {@return the bytes of value {@code id}}
     *
     * @throws InvalidSizeException naming the value when a symbol of its shape is unbound or its
     *                              type has no fixed width
     */
    long bytes(int id) {
        if (bytesStamp[id] != stamp) {
            Value value = graph.value(id);
            OptionalLong n = value.bytesAt(bindings);
            if (n.isEmpty()) {
                throw unknown(value);
            }
            bytes[id] = n.getAsLong();
            bytesStamp[id] = stamp;
        }
        return bytes[id];
    }

    /** {@return the extents of value {@code id}} */
    long[] dims(int id) {
        if (dimsStamp[id] != stamp) {
            Value value = graph.value(id);
            long[] extents = dims[id] != null && dims[id].length == value.shape().rank() ? dims[id]
                    : new long[value.shape().rank()];
            for (int i = 0; i < extents.length; i++) {
                extents[i] = evaluate(value, i);
            }
            dims[id] = extents;
            dimsStamp[id] = stamp;
        }
        return dims[id];
    }

    /**
     * {@return extent {@code axis} of value {@code id}}: a rule that reads only the dims it needs
     * stays the same on every request when those dims are fixed
     */
    long dim(int id, int axis) {
        if (dimsStamp[id] == stamp) {
            return dims[id][axis];
        }
        return evaluate(graph.value(id), axis);
    }

    private long evaluate(Value value, int axis) {
        OptionalLong e = value.shape().dims().get(axis).evaluate(bindings);
        if (e.isEmpty()) {
            throw unknown(value);
        }
        return e.getAsLong();
    }

    private InvalidSizeException unknown(Value value) {
        return new InvalidSizeException("the size of " + value.describe() + " with shape " + value.shape()
                + " is unknown for this request; bind every symbol of its shape");
    }
}
