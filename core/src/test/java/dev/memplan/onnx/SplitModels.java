// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.intAttr;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.type;

/**
 * Small models whose inputs name two dims alike, as an exporter that got a name wrong writes them
 * (all-MiniLM-L6-v2's fp32 export: {@code input_ids [batch, batch]}), and the same models with
 * distinct names.
 */
public final class SplitModels {
    private SplitModels() {
    }

    /**
     * {@code ids} and {@code mask} of dims {@code [d0, d1]}: Relu, Softmax over the last axis,
     * times the mask; the intermediate and the output declare the same dims, so a wrong name
     * reaches them too.
     */
    static OnnxModel masked(String name, String d0, String d1) {
        return OnnxModel.read(name, maskedBytes(d0, d1));
    }

    /**
     * The file of {@link #masked}, for tests of the command line.
     *
     * @param d0 the name of both inputs' dim 0
     * @param d1 the name of their dim 1
     * @return the model's bytes
     */
    public static byte[] maskedBytes(String d0, String d1) {
        return OnnxWriter.graph()
                .input("ids", type(FLOAT, d0, d1))
                .input("mask", type(FLOAT, d0, d1))
                .node("Relu", in("ids"), out("r"))
                .node("Softmax", in("r"), out("s"), intAttr("axis", -1))
                .node("Mul", in("s", "mask"), out("m"))
                .valueInfo("r", type(FLOAT, d0, d1))
                .output("m", type(FLOAT, d0, d1))
                .bytes(17);
    }

    /** {@code x [batch, batch]} plus its transpose: the graph needs both dims equal (or one of them 1). */
    static OnnxModel squareOnly(String name) {
        byte[] bytes = OnnxWriter.graph()
                .input("x", type(FLOAT, "batch", "batch"))
                .node("Transpose", in("x"), out("t"))
                .node("Add", in("x", "t"), out("y"))
                .output("y", type(FLOAT, "batch", "batch"))
                .bytes(17);
        return OnnxModel.read(name, bytes);
    }
}
