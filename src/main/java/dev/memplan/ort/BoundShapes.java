// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import dev.memplan.Graph;
import dev.memplan.InvalidSizeException;
import dev.memplan.TensorSizes;
import dev.memplan.Value;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One request's tensor sizes: each value's dims and bytes with the request's symbols bound,
 * computed once per value when first asked for.
 */
final class BoundShapes {
    private final Graph graph;
    private final Map<String, Long> bindings;
    private final long[] bytes;
    private final long[][] dims;

    BoundShapes(Graph graph, Map<String, Long> bindings) {
        this.graph = graph;
        this.bindings = bindings;
        this.bytes = new long[graph.valueCount()];
        java.util.Arrays.fill(bytes, -1);
        this.dims = new long[graph.valueCount()][];
    }

    /**
     * {@return the bytes of value {@code id}}
     *
     * @throws InvalidSizeException naming the value when a symbol of its shape is unbound or its
     *                              type has no fixed width
     */
    long bytes(int id) {
        if (bytes[id] < 0) {
            Value value = graph.value(id);
            OptionalLong n = TensorSizes.bytes(value, bindings);
            if (n.isEmpty()) {
                throw unknown(value);
            }
            bytes[id] = n.getAsLong();
        }
        return bytes[id];
    }

    /** {@return the extents of value {@code id}} */
    long[] dims(int id) {
        if (dims[id] == null) {
            Value value = graph.value(id);
            long[] extents = new long[value.shape().rank()];
            for (int i = 0; i < extents.length; i++) {
                OptionalLong e = value.shape().dims().get(i).evaluate(bindings);
                if (e.isEmpty()) {
                    throw unknown(value);
                }
                extents[i] = e.getAsLong();
            }
            dims[id] = extents;
        }
        return dims[id];
    }

    private InvalidSizeException unknown(Value value) {
        return new InvalidSizeException("the size of " + value.describe() + " with shape " + value.shape()
                + " is unknown for this request; bind every symbol of its shape");
    }
}
