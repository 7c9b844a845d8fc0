// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.Dim;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.symbols.TensorInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * Inference for the {@code com.microsoft.nchwc} ops ONNX Runtime writes at optimization level all
 * on x86: tensors in its blocked layout are 4-D {@code [N, C, H, W]} whose channel count is padded
 * up to a multiple of the block size ({@link ImportOptions#nchwcBlockSize()}: 16 where the CPU has
 * AVX-512, else 8). ORT converts a Conv only when its (padded) filter count is a whole number of
 * blocks, so the weights' first dim is the output's channel count; {@code ReorderInput} is where
 * padding appears, {@code ReorderOutput}'s {@code channels} attribute where it goes.
 */
final class NchwcOps {
    private NchwcOps() {
    }

    static final String DOMAIN = "com.microsoft.nchwc";

    /** Registers the NCHWc ops in {@code r}. */
    static void register(OpRegistry r) {
        r.add(DOMAIN, "Conv", 1, ShapeRule.firstOutput(NchwcOps::conv));
        r.add(DOMAIN, "MaxPool", 1, SpatialOps::pool);
        r.add(DOMAIN, "AveragePool", 1, SpatialOps::pool);
        r.add(DOMAIN, "GlobalMaxPool", 1, ShapeRule.firstOutput(SpatialOps::globalPool));
        r.add(DOMAIN, "GlobalAveragePool", 1, ShapeRule.firstOutput(SpatialOps::globalPool));
        r.add(DOMAIN, "ReorderInput", 1, ShapeRule.firstOutput(NchwcOps::reorderInput));
        r.add(DOMAIN, "ReorderOutput", 1, ShapeRule.firstOutput(NchwcOps::reorderOutput));
        r.add(DOMAIN, "Upsample", 1, ShapeRule.firstOutput(NchwcOps::upsample));
    }

    /**
     * A blocked Conv: the standard rule (output channels are the weights' first dim, already a
     * whole number of blocks), after checking that it is one.
     */
    private static TensorInfo conv(InferenceContext c) {
        TensorInfo w = c.input(1);
        int block = c.nchwcBlockSize();
        if (w != null && w.hasShape() && w.rank() > 0 && w.shape.get(0) instanceof Dim.Fixed f
                && f.extent() % block != 0 && c.input(0) != null && c.input(0).rank() == 4) {
            throw new IllegalArgumentException("the weights' " + f.extent() + " output channels are not a multiple"
                    + " of the NCHWc block size " + block + ": the graph was saved where ONNX Runtime used another"
                    + " block size; import it with nchwcBlockSize " + (block == 16 ? 8 : 16));
        }
        return SpatialOps.conv(c, null);
    }

    /** NCHW (or NHWC with {@code channels_last}) into blocks: channels padded to the block size. */
    private static TensorInfo reorderInput(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return null;
        }
        if (x.rank() != 4) {
            throw new IllegalArgumentException("input 0 has rank " + x.rank() + " " + x.shape
                    + "; ReorderInput takes a 4-D tensor");
        }
        boolean last = c.attrs().getInt("channels_last", 0) != 0;
        Dim channels = x.shape.get(last ? 3 : 1);
        List<Dim> out = new ArrayList<>();
        out.add(x.shape.get(0));
        out.add(padded(channels, c.nchwcBlockSize()));
        out.add(x.shape.get(last ? 1 : 2));
        out.add(x.shape.get(last ? 2 : 3));
        return TensorInfo.of(x.type, out);
    }

    /** Blocks back to NCHW (or NHWC): the {@code channels} attribute drops the padding. */
    private static TensorInfo reorderOutput(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return null;
        }
        if (x.rank() != 4) {
            throw new IllegalArgumentException("input 0 has rank " + x.rank() + " " + x.shape
                    + "; ReorderOutput takes a 4-D tensor");
        }
        long channels = c.attrs().getInt("channels", -1);
        if (channels < 0) {
            throw new IllegalArgumentException("attribute 'channels' is missing or negative; ReorderOutput needs the"
                    + " channel count without padding");
        }
        boolean last = c.attrs().getInt("channels_last", 0) != 0;
        List<Dim> s = x.shape;
        return TensorInfo.of(x.type, last ? List.of(s.get(0), s.get(2), s.get(3), Dim.of(channels))
                : List.of(s.get(0), Dim.of(channels), s.get(2), s.get(3)));
    }

    /** Nearest/linear upsampling by the integer {@code scales} attribute (one per spatial dim). */
    private static TensorInfo upsample(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return null;
        }
        long[] scales = c.attrs().getInts("scales");
        if (scales == null || scales.length != x.rank() - 2) {
            throw new IllegalArgumentException("attribute 'scales' has " + (scales == null ? "no" : scales.length)
                    + " numbers for input 0 of rank " + x.rank() + "; Upsample needs one per spatial dim");
        }
        List<Dim> out = new ArrayList<>(x.shape);
        for (int i = 0; i < scales.length; i++) {
            if (scales[i] < 1) {
                throw new IllegalArgumentException("attribute 'scales' holds " + scales[i] + "; scales are >= 1");
            }
            out.set(i + 2, Dim.Derived.product(List.of(x.shape.get(i + 2), Dim.of(scales[i]))));
        }
        return TensorInfo.of(x.type, out);
    }

    /** {@code channels} rounded up to a multiple of {@code block}. */
    static Dim padded(Dim channels, int block) {
        if (channels instanceof Dim.Fixed f) {
            return Dim.of(Math.addExact(f.extent(), block - 1) / block * block);
        }
        return Dim.Derived.product(List.of(Dim.Derived.divide(channels, block, true), Dim.of(block)));
    }
}
