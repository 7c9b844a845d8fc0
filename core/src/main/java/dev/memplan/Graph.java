// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import dev.memplan.Dim.Symbol;
import dev.memplan.engine.FlatGraph;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.OptionalInt;

/**
 * An immutable inference graph: values, nodes, graph inputs and outputs, initializers (weights)
 * and the symbols its shapes use. Made by a {@link Builder}; {@link Builder#build()} rejects a
 * malformed graph with an error naming the value or node at fault.
 */
public final class Graph {

    /** The value id of an omitted optional node input. */
    public static final int ABSENT = -1;

    private final List<Value> values;
    private final List<Node> nodes;
    private final int[] inputs;
    private final int[] outputs;
    private final int[] initializers;
    private final Map<String, Symbol> symbols;
    private final Map<String, Integer> valueIdsByName;
    private final FlatGraph flat;

    private Graph(List<Value> values, List<Node> nodes, int[] inputs, int[] outputs, int[] initializers,
                  Map<String, Symbol> symbols, Map<String, Integer> valueIdsByName, FlatGraph flat) {
        this.values = values;
        this.nodes = nodes;
        this.inputs = inputs;
        this.outputs = outputs;
        this.initializers = initializers;
        this.symbols = symbols;
        this.valueIdsByName = valueIdsByName;
        this.flat = flat;
    }

    /** {@return a builder for a new graph} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return how many values the graph has; value ids are {@code 0..valueCount()-1}} */
    public int valueCount() {
        return values.size();
    }

    /** {@return how many nodes the graph has; node ids are {@code 0..nodeCount()-1}} */
    public int nodeCount() {
        return nodes.size();
    }

    /**
     * The value with id {@code id}.
     *
     * @param id a value id
     * @return the value
     */
    public Value value(int id) {
        return values.get(id);
    }

    /**
     * The node with id {@code id}.
     *
     * @param id a node id
     * @return the node
     */
    public Node node(int id) {
        return nodes.get(id);
    }

    /** {@return values in id order} */
    public List<Value> values() {
        return values;
    }

    /** {@return nodes in id order} */
    public List<Node> nodes() {
        return nodes;
    }

    /** {@return graph input value ids, in declaration order} */
    public int[] inputs() {
        return inputs.clone();
    }

    /** {@return graph output value ids, in declaration order} */
    public int[] outputs() {
        return outputs.clone();
    }

    /** {@return initializer (weight) value ids, ascending} */
    public int[] initializers() {
        return initializers.clone();
    }

    /**
     * Whether a value is a graph input.
     *
     * @param valueId a value id
     * @return true for a graph input
     */
    public boolean isGraphInput(int valueId) {
        return (flat.valueFlags()[valueId] & FlatGraph.GRAPH_INPUT) != 0;
    }

    /**
     * Whether a value is a graph output.
     *
     * @param valueId a value id
     * @return true for a graph output
     */
    public boolean isGraphOutput(int valueId) {
        return (flat.valueFlags()[valueId] & FlatGraph.GRAPH_OUTPUT) != 0;
    }

    /**
     * Whether a value is an initializer (a weight).
     *
     * @param valueId a value id
     * @return true for an initializer
     */
    public boolean isInitializer(int valueId) {
        return (flat.valueFlags()[valueId] & FlatGraph.INITIALIZER) != 0;
    }

    /** {@return the symbols of the graph's shapes, by name, in first-use order} */
    public Map<String, Symbol> symbols() {
        return symbols;
    }

    /**
     * {@return the id of the value with this name}
     *
     * @param name the value's name
     */
    public OptionalInt valueId(String name) {
        Integer id = valueIdsByName.get(name);
        return id == null ? OptionalInt.empty() : OptionalInt.of(id);
    }

    /** The graph as the flat arrays the engines plan on. */
    FlatGraph flat() {
        return flat;
    }

    /** Builds a {@link Graph}. Not thread-safe; use one builder per graph. */
    public static final class Builder {
        private final List<Value> values = new ArrayList<>();
        private final List<Node> nodes = new ArrayList<>();
        private final List<Integer> inputs = new ArrayList<>();
        private final List<Integer> outputs = new ArrayList<>();
        private final List<Integer> initializers = new ArrayList<>();
        private final Map<String, Symbol> symbols = new LinkedHashMap<>();
        private int totalNodeInputs;
        private int totalNodeOutputs;

        private Builder() {
        }

        /**
         * Adds a value and returns its id. {@code name} may be null or empty for an unnamed value.
         *
         * @param name the value's name (may be null for an unnamed value)
         * @param dataType its element type
         * @param shape its shape
         * @return the new value's id
         */
        public int value(String name, DataType dataType, Shape shape) {
            Objects.requireNonNull(dataType, "dataType");
            Objects.requireNonNull(shape, "shape");
            if (!shape.isStatic()) {
                for (Symbol s : shape.symbols()) {
                    symbols.putIfAbsent(s.name(), s);
                }
            }
            int id = values.size();
            values.add(new Value(id, name == null ? "" : name, dataType, shape, -1));
            return id;
        }

        /**
         * Adds a node of the default domain and returns its id.
         *
         * @param name the node's name
         * @param opType its op type, e.g. {@code MatMul}
         * @param inputs value ids it reads, in order ({@link Graph#ABSENT} for an absent optional input)
         * @param outputs value ids it produces, in order
         * @return the new node's id
         */
        public int node(String name, String opType, int[] inputs, int[] outputs) {
            return node(name, "", opType, inputs, outputs);
        }

        /**
         * Adds a node and returns its id. An input may be {@link Graph#ABSENT}; the arrays are
         * copied.
         *
         * @param name the node's name
         * @param domain its op domain ({@code ""} for the default ONNX domain)
         * @param opType its op type, e.g. {@code MatMul}
         * @param inputs value ids it reads, in order ({@link Graph#ABSENT} for an absent optional input)
         * @param outputs value ids it produces, in order
         * @return the new node's id
         */
        public int node(String name, String domain, String opType, int[] inputs, int[] outputs) {
            Objects.requireNonNull(opType, "opType");
            int id = nodes.size();
            nodes.add(new Node(id, name == null ? "" : name, opType, domain == null ? "" : domain,
                    inputs.clone(), outputs.clone()));
            totalNodeInputs = Math.addExact(totalNodeInputs, inputs.length);
            totalNodeOutputs = Math.addExact(totalNodeOutputs, outputs.length);
            return id;
        }

        /**
         * Gives node {@code nodeId} an in-place hint: its first output may take the buffer of any
         * of the inputs at {@code inputPositions} whose buffer dies at this node (docs/design.md
         * §3b). The planner applies it only where every rule holds: equal byte sizes symbolically,
         * the input's buffer read for the last time here and only through that input, and neither a
         * graph input, a weight nor a graph output. A later call replaces the hint.
         *
         * @param nodeId         a node added to this builder
         * @param inputPositions input positions, {@code 0..}{@link Node#MAX_IN_PLACE_INPUT}, each a
         *                       present input of the node
         * @return this builder
         * @throws InvalidGraphException naming the node when a position is out of range or absent,
         *                               or the node has no output
         */
        public Builder inPlace(int nodeId, int... inputPositions) {
            if (nodeId < 0 || nodeId >= nodes.size()) {
                throw new InvalidGraphException("an in-place hint names node id " + nodeId + ", but the graph has "
                        + nodes.size() + " nodes; add the node first");
            }
            Node node = nodes.get(nodeId);
            if (node.outputCount() == 0) {
                throw new InvalidGraphException(node.describe() + " has an in-place hint but no output to place;"
                        + " drop the hint");
            }
            int[] positions = Arrays.stream(inputPositions).distinct().sorted().toArray();
            for (int k : positions) {
                if (k < 0 || k >= node.inputCount() || k > Node.MAX_IN_PLACE_INPUT) {
                    throw new InvalidGraphException(node.describe() + " has an in-place hint on input " + k
                            + ", but it has inputs 0 to " + (node.inputCount() - 1)
                            + (node.inputCount() > Node.MAX_IN_PLACE_INPUT + 1 ? " (a hint may name 0 to "
                            + Node.MAX_IN_PLACE_INPUT + ")" : "") + "; name one of those");
                }
                if (node.input(k) == ABSENT) {
                    throw new InvalidGraphException(node.describe() + " has an in-place hint on input " + k
                            + ", which is absent; name a present input");
                }
            }
            nodes.set(nodeId, node.withInPlaceInputs(positions));
            return this;
        }

        /**
         * Declares graph inputs, in order.
         *
         * @param valueIds the input value ids
         * @return this builder
         */
        public Builder input(int... valueIds) {
            for (int v : valueIds) {
                inputs.add(v);
            }
            return this;
        }

        /**
         * Declares graph outputs, in order.
         *
         * @param valueIds the output value ids
         * @return this builder
         */
        public Builder output(int... valueIds) {
            for (int v : valueIds) {
                outputs.add(v);
            }
            return this;
        }

        /**
         * Declares initializers (weights): values whose bytes the model already holds.
         *
         * @param valueIds the initializer value ids
         * @return this builder
         */
        public Builder initializer(int... valueIds) {
            for (int v : valueIds) {
                initializers.add(v);
            }
            return this;
        }

        /**
         * Checks the graph and returns it.
         *
         * @return the immutable graph
         * @throws InvalidGraphException naming the value or node at fault
         */
        public Graph build() {
            int numValues = values.size();
            int numNodes = nodes.size();
            int[] flags = new int[numValues];
            int[] inputIds = checkedIds(inputs, "graph input");
            int[] outputIds = checkedIds(outputs, "graph output");
            int[] initIds = checkedIds(initializers, "initializer");
            for (int v : inputIds) {
                if ((flags[v] & FlatGraph.GRAPH_INPUT) != 0) {
                    throw new InvalidGraphException(values.get(v).describe()
                            + " is declared as a graph input twice; declare it once");
                }
                flags[v] |= FlatGraph.GRAPH_INPUT;
            }
            for (int v : outputIds) {
                flags[v] |= FlatGraph.GRAPH_OUTPUT;
            }
            for (int v : initIds) {
                flags[v] |= FlatGraph.INITIALIZER;
            }

            int[] inputOffsets = new int[numNodes + 1];
            int[] nodeInputs = new int[totalNodeInputs];
            int[] outputOffsets = new int[numNodes + 1];
            int[] nodeOutputs = new int[totalNodeOutputs];
            int[] producer = new int[numValues];
            Arrays.fill(producer, -1);
            boolean[] consumed = new boolean[numValues];
            int in = 0;
            int out = 0;
            for (int n = 0; n < numNodes; n++) {
                Node node = nodes.get(n);
                for (int i = 0; i < node.inputCount(); i++) {
                    int v = node.input(i);
                    if (v != ABSENT) {
                        checkNodeRef(v, node, "input", i);
                        consumed[v] = true;
                    }
                    nodeInputs[in++] = v;
                }
                for (int i = 0; i < node.outputCount(); i++) {
                    int v = node.output(i);
                    checkNodeRef(v, node, "output", i);
                    if (producer[v] != -1) {
                        throw new InvalidGraphException(values.get(v).describe() + " is produced twice, by "
                                + nodes.get(producer[v]).describe() + " and by " + node.describe()
                                + "; every value has at most one producer");
                    }
                    if ((flags[v] & (FlatGraph.GRAPH_INPUT | FlatGraph.INITIALIZER)) != 0) {
                        throw new InvalidGraphException(values.get(v).describe() + " is produced by "
                                + node.describe() + " but is also a "
                                + ((flags[v] & FlatGraph.GRAPH_INPUT) != 0 ? "graph input" : "initializer")
                                + "; rename the node output or drop the declaration");
                    }
                    producer[v] = n;
                    nodeOutputs[out++] = v;
                }
                inputOffsets[n + 1] = in;
                outputOffsets[n + 1] = out;
            }
            for (int v = 0; v < numValues; v++) {
                boolean needed = consumed[v] || (flags[v] & FlatGraph.GRAPH_OUTPUT) != 0;
                boolean available = producer[v] != -1
                        || (flags[v] & (FlatGraph.GRAPH_INPUT | FlatGraph.INITIALIZER)) != 0;
                if (needed && !available) {
                    throw new InvalidGraphException(values.get(v).describe() + " is "
                            + (consumed[v] ? "consumed" : "a graph output")
                            + " but no node produces it and it is neither a graph input nor an initializer;"
                            + " declare it as one or add its producer");
                }
            }

            List<Value> frozen = new ArrayList<>(numValues);
            Map<String, Integer> byName = new HashMap<>();
            for (Value v : values) {
                frozen.add(producer[v.id()] == -1 ? v
                        : new Value(v.id(), v.name(), v.dataType(), v.shape(), producer[v.id()]));
                if (!v.name().isEmpty()) {
                    Integer previous = byName.putIfAbsent(v.name(), v.id());
                    if (previous != null) {
                        throw new InvalidGraphException("values " + previous + " and " + v.id()
                                + " are both named '" + v.name() + "'; value names must be unique");
                    }
                }
            }
            int[] sortedInits = Arrays.stream(initIds).distinct().sorted().toArray();
            FlatGraph flat = new FlatGraph(numValues, numNodes, inputOffsets, nodeInputs, outputOffsets,
                    nodeOutputs, flags);
            return new Graph(Collections.unmodifiableList(frozen), List.copyOf(nodes), inputIds, outputIds,
                    sortedInits, Collections.unmodifiableMap(new LinkedHashMap<>(symbols)),
                    Collections.unmodifiableMap(byName), flat);
        }

        private int[] checkedIds(List<Integer> ids, String role) {
            int[] out = new int[ids.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = ids.get(i);
                checkId(out[i], role + " " + i);
            }
            return out;
        }

        /** Like {@link #checkId} but builds the message only on failure: build() calls it per edge. */
        private void checkNodeRef(int v, Node node, String role, int index) {
            if (v < 0 || v >= values.size()) {
                checkId(v, node.describe() + " " + role + " " + index);
            }
        }

        private void checkId(int v, String where) {
            if (v < 0 || v >= values.size()) {
                throw new InvalidGraphException(where + " refers to value id " + v + ", but the graph has "
                        + values.size() + " values (ids 0 to " + (values.size() - 1) + ")");
            }
        }
    }

    /**
     * An operator invocation.
     *
     * <p>Inputs are ordered and may contain {@link Graph#ABSENT} for an omitted optional input, as
     * ONNX allows. The arrays are copied in and out, so a node is immutable.
     */
    public static final class Node {
        private final int id;
        private final String name;
        private final String opType;
        private final String domain;
        private final int[] inputs;
        private final int[] outputs;
        /** Input positions output 0 may overwrite (the in-place hint), ascending; empty for none. */
        private final int[] inPlaceInputs;

        Node(int id, String name, String opType, String domain, int[] inputs, int[] outputs) {
            this(id, name, opType, domain, inputs, outputs, NO_HINT);
        }

        Node(int id, String name, String opType, String domain, int[] inputs, int[] outputs, int[] inPlaceInputs) {
            this.id = id;
            this.name = name;
            this.opType = opType;
            this.domain = domain;
            this.inputs = inputs;
            this.outputs = outputs;
            this.inPlaceInputs = inPlaceInputs;
        }

        private static final int[] NO_HINT = new int[0];

        /** The most inputs a hint can name: the engines carry a hint as one 32-bit mask of input positions. */
        public static final int MAX_IN_PLACE_INPUT = 31;

        /**
         * The in-place hint: the input positions whose buffer this node's first output may take, when
         * that input dies here (docs/design.md §3b), ascending; empty when the node has no hint. A hint is
         * a permission, not an order: the planner applies it only where every rule holds.
         *
         * @return a copy of the input positions
         */
        public int[] inPlaceInputs() {
            return inPlaceInputs.clone();
        }

        /** {@return whether this node carries an in-place hint} */
        public boolean hasInPlaceHint() {
            return inPlaceInputs.length > 0;
        }

        /** The same node with an in-place hint (checked by the builder). */
        Node withInPlaceInputs(int[] positions) {
            return new Node(id, name, opType, domain, inputs, outputs, positions);
        }

        /** {@return the node id (its creation order)} */
        public int id() {
            return id;
        }

        /** {@return the node's name; may be empty} */
        public String name() {
            return name;
        }

        /** {@return the op type, e.g. {@code MatMul}} */
        public String opType() {
            return opType;
        }

        /** {@return the operator domain; empty for the default ONNX domain} */
        public String domain() {
            return domain;
        }

        /** {@return how many inputs the node has, absent ones included} */
        public int inputCount() {
            return inputs.length;
        }

        /**
         * {@return the value id of input {@code i}, or {@link Graph#ABSENT}}
         *
         * @param i the input position, {@code 0..inputCount()-1}
         */
        public int input(int i) {
            return inputs[i];
        }

        /** {@return a copy of the input value ids} */
        public int[] inputs() {
            return inputs.clone();
        }

        /** {@return how many outputs the node has} */
        public int outputCount() {
            return outputs.length;
        }

        /**
         * The value id of output {@code i}.
         *
         * @param i the output position, {@code 0..outputCount()-1}
         * @return the value id
         */
        public int output(int i) {
            return outputs[i];
        }

        /** {@return a copy of the output value ids} */
        public int[] outputs() {
            return outputs.clone();
        }

        /** {@return how errors and reports name this node: {@code 'n0' (MatMul, node 0)}} */
        public String describe() {
            return (name.isEmpty() ? "node " + id + " (" + opType + ")"
                    : "'" + name + "' (" + opType + ", node " + id + ")");
        }

        /** {@return the name, or {@code opType#id} when the node has none} */
        public String displayName() {
            return name.isEmpty() ? opType + "#" + id : name;
        }

        @Override
        public String toString() {
            return describe() + " " + Arrays.toString(inputs) + " -> " + Arrays.toString(outputs);
        }
    }

    /**
     * A tensor of the graph.
     *
     * @param id       dense id, the value's creation order in its graph
     * @param name     the value's name; may be empty for unnamed values
     * @param dataType element type
     * @param shape    static and symbolic dims
     * @param producer id of the node that produces it, or -1 for graph inputs and initializers
     */
    public record Value(int id, String name, DataType dataType, Shape shape, int producer) {

        /**
         * The bytes of this value with its symbols replaced by {@code bindings}: empty when a symbol
         * is unbound or the type has no fixed width (strings).
         *
         * @param bindings symbol name to value
         * @return the size in bytes, or empty
         * @throws InvalidSizeException naming the value when the size overflows a long or a dim
         *                              evaluates negative
         */
        public OptionalLong bytesAt(Map<String, Long> bindings) {
            try {
                return TensorSizes.bytes(dataType, shape, bindings);
            } catch (TensorSizes.Overflow e) {
                throw TensorSizes.overflow(describe(), shape, e);
            } catch (ArithmeticException e) {
                throw new InvalidSizeException("the size of " + describe() + " with shape " + shape
                        + " cannot be computed (" + e.getMessage() + "); check its dims and the symbol bindings");
            }
        }

        /** {@return how errors and reports name this value: {@code 'h' (value 3)}} */
        public String describe() {
            return name.isEmpty() ? "value " + id : "'" + name + "' (value " + id + ")";
        }

        /** {@return the name, or {@code %id} when the value has none} */
        public String displayName() {
            return name.isEmpty() ? "%" + id : name;
        }
    }
}
