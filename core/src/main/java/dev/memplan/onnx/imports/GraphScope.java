// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.onnx.symbols.TensorInfo;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where one graph is imported, as an immutable value: its label for messages, the values the
 * enclosing graphs make visible (empty for the main graph), which of those are weights, and what
 * a control-flow node passes to the inputs of a body that does not declare them.
 *
 * @param where        the graph's label in messages (file, then {@code > node attribute} per body)
 * @param path         the same without the file: {@code ""} for the main graph
 * @param outer        values visible from enclosing graphs, by ONNX name
 * @param outerWeights the names in {@code outer} that are weights
 * @param inputHints   per body input, what the node passes in (null entries where unknown)
 */
record GraphScope(String where, String path, Map<String, TensorInfo> outer, Set<String> outerWeights,
                  List<TensorInfo> inputHints) {
    GraphScope {
        outer = Map.copyOf(outer);
        outerWeights = Set.copyOf(outerWeights);
        inputHints = Collections.unmodifiableList(new ArrayList<>(inputHints)); // hints may be null
    }

    /** The scope of the main graph of {@code source}. */
    static GraphScope main(String source) {
        return new GraphScope(source, "", Map.of(), Set.of(), List.of());
    }

    /** {@code nodeDesc} with this graph's path in front, for a body's node. */
    String label(String nodeDesc) {
        return path.isEmpty() ? nodeDesc : path + " > " + nodeDesc;
    }

    /**
     * This scope with everything {@code values} defined so far visible as outer values (shadowing
     * enclosing values of the same name): what a control-flow node of this graph sees.
     */
    GraphScope seenFrom(ValueTable values) {
        Map<String, TensorInfo> visible = new HashMap<>(outer);
        visible.putAll(values.defined());
        Set<String> weights = new HashSet<>(outerWeights);
        weights.addAll(values.weights());
        return new GraphScope(where, path, visible, weights, List.of());
    }

    /** The scope of a body held by {@code nodeAndAttribute} ({@code node 3 (If) then_branch}) of this graph. */
    GraphScope body(String nodeAndAttribute, List<TensorInfo> hints) {
        return new GraphScope(where + " > " + nodeAndAttribute,
                path.isEmpty() ? nodeAndAttribute : path + " > " + nodeAndAttribute, outer, outerWeights, hints);
    }

    /** What is known of outer value {@code name}, or null ({@code ""} is an absent input). */
    TensorInfo lookup(String name) {
        return name.isEmpty() ? null : outer.get(name);
    }
}
