// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.onnx.symbols.TensorInfo;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Name resolution for one graph: what is known of each ONNX value defined in this graph, which
 * are weights (initializers, constants, folded values), and, through the {@link GraphScope},
 * the values of enclosing graphs a body reads.
 */
final class ValueTable {
    private final GraphScope scope;
    private final Map<String, TensorInfo> infos = new HashMap<>();
    /** A hash set as before the split: its iteration order numbers unread weights in the graph. */
    private final Set<String> weights = new HashSet<>();
    private final Set<String> folded = new LinkedHashSet<>();
    private final Set<String> outerRefs = new LinkedHashSet<>();

    ValueTable(GraphScope scope) {
        this.scope = scope;
    }

    /** Records {@code info} for {@code name}; returns the previous one, or null. */
    TensorInfo put(String name, TensorInfo info) {
        return infos.put(name, info);
    }

    /** Records a weight of this graph. */
    void putWeight(String name, TensorInfo info) {
        infos.put(name, info);
        weights.add(name);
    }

    /** Marks {@code name}, a node output, as a weight computed at import (a folded constant). */
    void markFolded(String name) {
        weights.add(name);
        folded.add(name);
    }

    /** What is known of {@code name} here or in an enclosing graph, or null ("" is absent). */
    TensorInfo lookup(String name) {
        if (name.isEmpty()) {
            return null;
        }
        TensorInfo t = infos.get(name);
        return t != null ? t : scope.outer().get(name);
    }

    /** Whether {@code name} is defined in this graph (input, weight or node output so far). */
    boolean definedHere(String name) {
        return infos.containsKey(name);
    }

    /** Whether {@code name} is defined in an enclosing graph. */
    boolean definedOutside(String name) {
        return scope.outer().containsKey(name);
    }

    /** Whether a name is available before any node runs: input, weight or outer value. */
    boolean available(String name) {
        return infos.containsKey(name) || scope.outer().containsKey(name);
    }

    /** Whether {@code name} is a weight of this graph, or an outer weight this graph does not shadow. */
    boolean isWeight(String name) {
        return weights.contains(name) || (!infos.containsKey(name) && scope.outer().containsKey(name)
                && scope.outerWeights().contains(name));
    }

    /** Whether {@code name} is a weight of an enclosing graph. */
    boolean isOuterWeight(String name) {
        return scope.outerWeights().contains(name);
    }

    /** Records that this graph reads {@code name} from an enclosing graph. */
    void addOuterRef(String name) {
        outerRefs.add(name);
    }

    /** Names this graph reads from enclosing graphs, in first-read order. */
    Set<String> outerRefs() {
        return Collections.unmodifiableSet(outerRefs);
    }

    /** This graph's weights (hash order). */
    Set<String> weights() {
        return Collections.unmodifiableSet(weights);
    }

    /** The node outputs folded into weights, in definition order. */
    Set<String> folded() {
        return Collections.unmodifiableSet(folded);
    }

    /** Every value defined in this graph so far. */
    Map<String, TensorInfo> defined() {
        return Collections.unmodifiableMap(infos);
    }
}
