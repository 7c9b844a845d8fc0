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

    Node(int id, String name, String opType, String domain, int[] inputs, int[] outputs) {
        this.id = id;
        this.name = name;
        this.opType = opType;
        this.domain = domain;
        this.inputs = inputs;
        this.outputs = outputs;
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
