// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import dev.memplan.DataType;
import dev.memplan.Graph;
import dev.memplan.Shape;
import dev.memplan.ViewMap;
import java.util.Map;

/**
 * The graph and view-map builders of one generator, with the few shortcuts generators need: a
 * node with one output, a view, a weight. Counts the owners it creates so generators can size
 * themselves.
 */
final class NetBuilder {
    private static final int[] NO_INPUTS = new int[0];

    private final Graph.Builder graph = Graph.builder();
    private final ViewMap.Builder views = ViewMap.builder();
    private int owners;

    /** A graph input. */
    int input(String name, DataType type, Shape shape) {
        int v = graph.value(name, type, shape);
        graph.input(v);
        return v;
    }

    /** An initializer (weight): its bytes belong to the model, not to the plan. */
    int weight(String name, DataType type, Shape shape) {
        int v = graph.value(name, type, shape);
        graph.initializer(v);
        return v;
    }

    /** A node {@code name} with one output of the same name: an owner. */
    int op(String name, String opType, DataType type, Shape shape, int... inputs) {
        int out = graph.value(name, type, shape);
        graph.node(name, opType, inputs, new int[] {out});
        owners++;
        return out;
    }

    /** A node with several outputs, each an owner. */
    int[] multi(String name, String opType, DataType type, Shape[] shapes, int... inputs) {
        int[] outs = new int[shapes.length];
        for (int i = 0; i < outs.length; i++) {
            outs[i] = graph.value(name + ":" + i, type, shapes[i]);
        }
        graph.node(name, opType, inputs, outs);
        owners += outs.length;
        return outs;
    }

    /**
     * A node whose output aliases {@code inputs[0]} (Reshape, Transpose, Flatten as a strided
     * executor runs them): it owns no slot.
     */
    int view(String name, String opType, DataType type, Shape shape, int... inputs) {
        int out = graph.value(name, type, shape);
        graph.node(name, opType, inputs.length == 0 ? NO_INPUTS : inputs, new int[] {out});
        views.put(out, inputs[0]);
        return out;
    }

    void output(int... values) {
        graph.output(values);
    }

    /** Owners created so far (graph inputs excluded, as in the default options). */
    int owners() {
        return owners;
    }

    GeneratedGraph build(String description, Map<String, Long> bindings) {
        return new GeneratedGraph(description, graph.build(), views.build(), bindings);
    }
}
