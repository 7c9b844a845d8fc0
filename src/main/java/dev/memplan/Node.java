// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.Arrays;

/**
 * An operator invocation.
 *
 * <p>Inputs are ordered and may contain {@link Graph#ABSENT} for an omitted optional input, as
 * ONNX allows. The arrays are copied in and out, so a node is immutable.
 */
public final class Node {
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
