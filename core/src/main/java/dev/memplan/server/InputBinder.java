// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.Shape;
import dev.memplan.Dim.Symbol;
import dev.memplan.Graph.Value;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Turns a request's input shapes ({@code input_ids -> [4, 512]}) into symbol bindings by matching
 * them against the declared shapes of the graph inputs. Immutable.
 */
final class InputBinder {
    private final Map<String, Shape> inputs;

    InputBinder(Graph graph) {
        Map<String, Shape> m = new LinkedHashMap<>();
        for (int id : graph.inputs()) {
            if (!graph.isInitializer(id)) {
                Value v = graph.value(id);
                m.put(v.name(), v.shape());
            }
        }
        inputs = Collections.unmodifiableMap(m);
    }

    /** Declared shapes of the graph inputs a request feeds, by ONNX name, in graph order. */
    Map<String, Shape> inputs() {
        return inputs;
    }

    /**
     * The bindings the shapes imply.
     *
     * @throws IllegalArgumentException naming the input and dim when an input is unknown, its rank
     *                                  differs, an extent is negative, a static dim disagrees, or
     *                                  two dims give one symbol different values
     */
    Map<String, Long> bind(Map<String, long[]> shapes) {
        Map<String, Long> bindings = new HashMap<>();
        Map<String, String> boundBy = new HashMap<>();
        for (Map.Entry<String, long[]> e : shapes.entrySet()) {
            String name = e.getKey();
            Shape declared = inputs.get(name);
            if (declared == null) {
                throw new IllegalArgumentException("the model has no input '" + name + "'; its inputs are "
                        + inputs.keySet());
            }
            long[] extents = e.getValue();
            if (extents.length != declared.rank()) {
                throw new IllegalArgumentException("input '" + name + "' has rank " + declared.rank() + " " + declared
                        + ", the request gave " + extents.length + " extents " + Arrays.toString(extents));
            }
            for (int i = 0; i < extents.length; i++) {
                long x = extents[i];
                if (x < 0) {
                    throw new IllegalArgumentException("input '" + name + "' dim " + i + " is negative (" + x
                            + "); extents must be >= 0");
                }
                Dim d = declared.dims().get(i);
                String where = "'" + name + "' dim " + i;
                if (d instanceof Dim.Fixed f) {
                    if (f.extent() != x) {
                        throw new IllegalArgumentException("input " + where + " is fixed at " + f.extent()
                                + " by the model, the request gave " + x);
                    }
                } else if (d instanceof Symbol s) {
                    Long previous = bindings.putIfAbsent(s.name(), x);
                    if (previous != null && previous != x) {
                        throw new IllegalArgumentException("symbol '" + s.name() + "' is " + previous + " from input "
                                + boundBy.get(s.name()) + " but " + x + " from input " + where
                                + "; the model names both dims alike: give the inputs their own dims"
                                + " (ImportOptions.withInputDims), or plan with CompiledModel.planForInputs, which splits the symbol");
                    }
                    boundBy.putIfAbsent(s.name(), where);
                }
                // a derived dim is checked below, once every plain symbol is bound
            }
        }
        checkDerived(shapes, bindings);
        return Map.copyOf(bindings);
    }

    /**
     * Requires a shape for every graph input: ONNX Runtime rejects a request that leaves one out,
     * so a plan for it would promise memory for a run that cannot happen.
     *
     * @throws IllegalArgumentException naming the missing inputs
     */
    void requireEvery(Set<String> given) {
        List<String> missing = new ArrayList<>();
        for (String name : inputs.keySet()) {
            if (!given.contains(name)) {
                missing.add(name);
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("the request gives no shape for input" + (missing.size() > 1 ? "s " : " ")
                    + String.join(", ", missing.stream().map(n -> "'" + n + "'").toList())
                    + "; the model needs every one of " + inputs.keySet() + " to run");
        }
    }

    private void checkDerived(Map<String, long[]> shapes, Map<String, Long> bindings) {
        for (Map.Entry<String, long[]> e : shapes.entrySet()) {
            Shape declared = inputs.get(e.getKey());
            for (int i = 0; i < declared.rank(); i++) {
                Dim d = declared.dims().get(i);
                if (d instanceof Dim.Fixed || d instanceof Symbol) {
                    continue;
                }
                OptionalLong want = d.evaluate(bindings);
                if (want.isPresent() && want.getAsLong() != e.getValue()[i]) {
                    throw new IllegalArgumentException("input '" + e.getKey() + "' dim " + i + " is " + d + " = "
                            + want.getAsLong() + " at " + bindings + ", the request gave " + e.getValue()[i]);
                }
            }
        }
    }
}
