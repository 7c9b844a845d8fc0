// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

/** The If models of {@link BranchSelectionTest}, as file bytes, for tests of other packages. */
public final class BranchModels {
    private BranchModels() {
    }

    /** The sample-rate switch (opset 17); with {@code range}, a Range sized by {@code sr / 1000}. */
    public static byte[] sampleRateSwitch(boolean range) {
        return BranchSelectionTest.sampleRateSwitch(range).bytes(17);
    }
}
