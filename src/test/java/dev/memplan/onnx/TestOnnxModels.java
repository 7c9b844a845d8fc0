// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.type;

/** Small ONNX models, as file bytes, for tests outside this package (the command line's). */
public final class TestOnnxModels {
    private TestOnnxModels() {
    }

    /**
     * {@code x[batch, 64] -> MatMul(W[64, hidden]) -> Relu -> Reshape(shape) -> y}: the weight
     * comes first in the file and the int64 shape constant last, so a truncated file loses the
     * constant the import must decode. Names are as given (tests put control characters in them).
     *
     * @param batch  the batch dim: a Long (static) or a String (a symbol)
     * @param hidden the width of the weight, >= 1
     * @param name   the name of the MatMul output
     */
    public static byte[] mlp(Object batch, int hidden, String name) {
        return OnnxWriter.graph()
                .input("x", type(FLOAT, batch, 64L))
                .initializer(OnnxWriter.floats("W", 64, hidden))
                .initializer(OnnxWriter.int64s("shape", -1, hidden))
                .node("MatMul", in("x", "W"), out(name))
                .node("Relu", in(name), out("r"))
                .node("Reshape", in("r", "shape"), out("y"))
                .output("y", type(FLOAT, batch, (long) hidden))
                .bytes(17);
    }
}
