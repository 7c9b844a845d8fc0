// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import dev.memplan.Graph.Node;
import dev.memplan.Graph.Value;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Zero-copy views: {@code view -> source} edges. A view owns no buffer; its bytes live inside its
 * source's buffer (a Reshape, Squeeze or Identity output, as the executor decides). Views of views
 * fold to one {@link #root root}, the value that really owns the bytes.
 *
 * <p>The rules are checked against a graph when planning: a view is a node output, never a graph
 * input or initializer; its source is one of the inputs of the node that produces it; the edges
 * form no cycle.
 */
public final class ViewMap {
    private static final ViewMap EMPTY = new ViewMap(new TreeMap<>());

    private final Map<Integer, Integer> sources;

    private ViewMap(TreeMap<Integer, Integer> sources) {
        this.sources = Collections.unmodifiableMap(sources);
    }

    /** {@return no views} */
    public static ViewMap empty() {
        return EMPTY;
    }

    /**
     * {@return a view map from {@code view -> source} value ids}
     *
     * @param edges view value id to source value id
     */
    public static ViewMap of(Map<Integer, Integer> edges) {
        return new ViewMap(new TreeMap<>(edges));
    }

    /** {@return a builder for a new view map} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the edges, by ascending view id} */
    public Map<Integer, Integer> edges() {
        return sources;
    }

    /**
     * Whether a value is a view.
     *
     * @param valueId a value id
     * @return true when {@code valueId} has a source
     */
    public boolean isView(int valueId) {
        return sources.containsKey(valueId);
    }

    /** {@return how many views the map has} */
    public int size() {
        return sources.size();
    }

    /**
     * The value that owns the bytes of {@code valueId}: itself when it is not a view, else the root
     * of its source.
     *
     * @param valueId a value id
     * @return the root's value id
     * @throws InvalidGraphException when the edges from {@code valueId} form a cycle
     */
    public int root(int valueId) {
        int v = valueId;
        for (int steps = 0; steps <= sources.size(); steps++) {
            Integer next = sources.get(v);
            if (next == null) {
                return v;
            }
            v = next;
        }
        throw new InvalidGraphException("view cycle through value " + valueId
                + ": following view -> source edges never reaches a value that owns its bytes");
    }

    /**
     * Checks the rules against {@code graph} and returns the root of every value id.
     *
     * @throws InvalidGraphException naming the view that breaks a rule
     */
    int[] roots(Graph graph) {
        int n = graph.valueCount();
        int[] source = new int[n];
        Arrays.fill(source, -1);
        for (Map.Entry<Integer, Integer> e : sources.entrySet()) {
            int view = e.getKey();
            int src = e.getValue();
            if (view < 0 || view >= n || src < 0 || src >= n) {
                throw new InvalidGraphException("view edge " + view + " -> " + src
                        + " refers to a value id outside 0.." + (n - 1));
            }
            Value v = graph.value(view);
            if (graph.isGraphInput(view) || graph.isInitializer(view)) {
                throw new InvalidGraphException("view " + v.describe() + " is "
                        + (graph.isGraphInput(view) ? "a graph input" : "an initializer")
                        + "; only node outputs can be views");
            }
            if (v.producer() < 0) {
                throw new InvalidGraphException("view " + v.describe() + " is produced by no node;"
                        + " only node outputs can be views");
            }
            Node producer = graph.node(v.producer());
            boolean isInput = false;
            for (int i = 0; i < producer.inputCount() && !isInput; i++) {
                isInput = producer.input(i) == src;
            }
            if (!isInput) {
                throw new InvalidGraphException("view " + v.describe() + " has source "
                        + graph.value(src).describe() + ", which is not an input of its producer "
                        + producer.describe() + "; a view's source must be one of its producer's inputs");
            }
            source[view] = src;
        }
        // Fold every chain to its root without recursion: walk up to a resolved value, then
        // write the root back along the path.
        int[] root = new int[n];
        Arrays.fill(root, -1);
        int[] path = new int[Math.min(n, sources.size() + 1)];
        for (int start = 0; start < n; start++) {
            if (root[start] >= 0) {
                continue;
            }
            int len = 0;
            int v = start;
            while (root[v] < 0 && source[v] >= 0) {
                if (len == path.length) {
                    throw new InvalidGraphException("view cycle through " + graph.value(start).describe()
                            + ": its view -> source edges loop back on themselves; remove one edge");
                }
                path[len++] = v;
                root[v] = -2; // on the current path
                v = source[v];
                if (root[v] == -2) {
                    throw new InvalidGraphException("view cycle through " + graph.value(v).describe()
                            + ": its view -> source edges loop back on themselves; remove one edge");
                }
            }
            int r = root[v] >= 0 ? root[v] : v;
            root[v] = r;
            for (int i = 0; i < len; i++) {
                root[path[i]] = r;
            }
        }
        return root;
    }

    @Override
    public String toString() {
        return "ViewMap" + sources;
    }

    /** Collects view edges. */
    public static final class Builder {
        private final TreeMap<Integer, Integer> edges = new TreeMap<>();

        private Builder() {
        }

        /**
         * Declares {@code view} a view of {@code source}; a view has one source.
         *
         * @param view the view's value id
         * @param source the value whose bytes it uses
         * @return this builder
         */
        public Builder put(int view, int source) {
            Integer previous = edges.putIfAbsent(view, source);
            if (previous != null && previous != source) {
                throw new InvalidGraphException("value " + view + " is declared a view of both " + previous
                        + " and " + source + "; a view has one source");
            }
            return this;
        }

        /** {@return the view map} */
        public ViewMap build() {
            return new ViewMap(new TreeMap<>(edges));
        }
    }
}
