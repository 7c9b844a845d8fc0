// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.Dim;
import dev.memplan.onnx.read.Attrs;
import dev.memplan.onnx.symbols.TensorInfo;

/**
 * A node's context whose inputs are others: lets a fused or quantized op reuse the rule of the op
 * it stands for ({@code QLinearConv} is a Conv of its inputs 0 and 3, {@code FusedMatMul} a MatMul
 * of transposed inputs). Everything else (attributes, symbols, relations) is the node's own.
 */
final class RemappedContext implements InferenceContext {
    private final InferenceContext node;
    private final TensorInfo[] inputs;

    private RemappedContext(InferenceContext node, TensorInfo[] inputs) {
        this.node = node;
        this.inputs = inputs;
    }

    /** {@code c} seen with {@code inputs} as its inputs 0, 1, ... (null entries are absent). */
    static InferenceContext of(InferenceContext c, TensorInfo... inputs) {
        return new RemappedContext(c, inputs);
    }

    /** {@code c} with its inputs at {@code indices} as inputs 0, 1, .... */
    static InferenceContext picking(InferenceContext c, int... indices) {
        TensorInfo[] in = new TensorInfo[indices.length];
        for (int i = 0; i < indices.length; i++) {
            in[i] = c.input(indices[i]);
        }
        return new RemappedContext(c, in);
    }

    @Override
    public int inputCount() {
        return inputs.length;
    }

    @Override
    public TensorInfo input(int i) {
        return i >= 0 && i < inputs.length ? inputs[i] : null;
    }

    @Override
    public Attrs attrs() {
        return node.attrs();
    }

    @Override
    public String opType() {
        return node.opType();
    }

    @Override
    public String domain() {
        return node.domain();
    }

    @Override
    public int outputCount() {
        return node.outputCount();
    }

    @Override
    public long opset() {
        return node.opset();
    }

    @Override
    public int nchwcBlockSize() {
        return node.nchwcBlockSize();
    }

    @Override
    public Dim fresh(String hint) {
        return node.fresh(hint);
    }

    @Override
    public void relate(Dim a, Dim b, String why, boolean broadcast) {
        node.relate(a, b, why, broadcast);
    }
}
