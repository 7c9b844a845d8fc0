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

    /**
     * {@code Resize} of a rank-1 input with two target sizes: the rule reads past the input's dims,
     * which used to reach the report as "IndexOutOfBoundsException: Index 1 out of bounds for length 1".
     */
    public static byte[] resizeWithMoreSizesThanDims() {
        return OnnxWriter.graph()
                .input("x", type(FLOAT, 4L))
                .initializer(OnnxWriter.int64s("sizes", 8, 8))
                .node("Resize", in("x", "", "", "sizes"), out("y"))
                .output("y", type(FLOAT, (Object) null))
                .bytes(13);
    }

    /** An op memplan does not know ({@code NoSuchOp}): its output stays without a size. */
    public static byte[] unknownOp() {
        return OnnxWriter.graph()
                .input("x", type(FLOAT, "batch", 4L))
                .node("NoSuchOp", in("x"), out("y"))
                .node("Relu", in("y"), out("z"))
                .output("z", type(FLOAT, "batch", 4L))
                .bytes(17);
    }
}
