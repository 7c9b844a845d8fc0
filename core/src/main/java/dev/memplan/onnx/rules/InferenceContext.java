// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.Dim;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.read.Attrs;
import dev.memplan.onnx.symbols.TensorInfo;

/** What one op's shape inference sees of its node. */
public interface InferenceContext {
    int inputCount();

    /** Input {@code i}, or null when it is absent or beyond the node's inputs. */
    TensorInfo input(int i);

    Attrs attrs();

    String opType();

    String domain();

    int outputCount();

    /** The default-domain opset the model imports. */
    long opset();

    /** ONNX Runtime's NCHWc channel block ({@link ImportOptions#nchwcBlockSize()}). */
    default int nchwcBlockSize() {
        return ImportOptions.DEFAULT_NCHWC_BLOCK;
    }

    /** A new symbol for a dim inference cannot express: data-dependent or not monotone. */
    Dim fresh(String hint);

    /**
     * Records that this node requires {@code a == b} (with {@code broadcast}, numpy broadcasting:
     * equal unless one of them is 1), so that a symbol equal to other symbols can be derived and a
     * binding that contradicts the node rejected.
     *
     * @param why what the node requires, in a few words, for error messages
     */
    void relate(Dim a, Dim b, String why, boolean broadcast);
}
