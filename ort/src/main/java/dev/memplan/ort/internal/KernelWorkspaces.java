// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a kernel takes from the arena during its compute, beyond its outputs: allocated in order,
 * all freed at its end, never part of the memory pattern. Each rule follows the kernel's source
 * and was measured with ORT 1.30 ({@code benchmarks/ort/workspace-probe.py}; docs/ort-runtime.md,
 * section 5); {@code OrtArenaSharedModelsTest} and {@code OrtArenaLevelAllTest} hold the rules to
 * ORT's figures on the shared models. A kernel with no measured rule gets an allowance (its
 * inputs' and outputs' bytes) and is reported as unmodelled: that allowance is a guess, not a
 * proven bound (GPT-2's Attention alone takes 10.7 MB, more than its inputs and outputs).
 */
final class KernelWorkspaces {
    /** MLAS's per-thread cap on the convolution working buffer, in floats ({@code MlasConvPrepare}). */
    static final long MLAS_CONV_FLOATS = 16_384;
    private static final long FLOAT_BYTES = 4;
    /** {@code sizeof(MLAS_SGEMM_DATA_PARAMS)} on 64-bit: six 8-byte fields, two floats and a bool, padded. */
    static final long MLAS_SGEMM_DATA_PARAMS_BYTES = 64;

    /** A node's workspaces for one request. */
    interface Rule {
        /** {@return the bytes the kernel allocates during its compute, in order} */
        long[] bytes(BoundShapes shapes);
    }

    private static final long[] NOTHING = new long[0];
    private static final Rule NO_WORKSPACE = shapes -> NOTHING;

    private KernelWorkspaces() {
    }

    /** {@return whether ORT's kernel for {@code node} has a measured workspace rule} */
    static boolean isModelled(Graph graph, Node node, NodeAttributes attributes) {
        OrtKernels.Kernel kernel = OrtKernels.of(node);
        if (kernel == null) {
            return false;
        }
        return switch (kernel.workspace()) {
            case LRN -> attributes.integer(node.id(), "size").isPresent();
            case CONV_TRANSPOSE -> planar(graph, node);
            case LSTM -> lstmModelled(graph, node, attributes);
            case ATTENTION -> attributes.integer(node.id(), "num_heads").isPresent()
                    && attributes.integers(node.id(), "qkv_hidden_sizes").isEmpty() && attentionShapes(graph, node);
            default -> true;
        };
    }

    /** {@return the node's op type as reports name it: {@code domain.op}, the default domain left out} */
    static String opName(Node node) {
        return node.domain() == null || node.domain().isEmpty() ? node.opType() : node.domain() + "." + node.opType();
    }

    /** {@return the rule for {@code node}, decided once per graph} */
    static Rule of(Graph graph, Node node, NodeAttributes attributes) {
        if (!isModelled(graph, node, attributes)) {
            return allowance(node);
        }
        return switch (OrtKernels.of(node).workspace()) {
            case MLAS_CONV -> conv(graph, node, attributes);
            case LRN -> lrn(node, attributes.integer(node.id(), "size").getAsLong());
            case SOFTMAX -> softmax(node, attributes);
            case QUANTIZED_INPUT -> quantizedInput(node);
            case OUTPUT_SIZED -> outputSized(node);
            case ATTENTION -> attention(graph, node, attributes);
            case CONV_TRANSPOSE -> convTranspose(node);
            case LSTM -> lstm(node, attributes);
            case NONE -> NO_WORKSPACE;
        };
    }

    /**
     * MLAS's working buffer, one thread: none for a pointwise Conv (1 x 1, stride 1, no pads, one
     * group); the whole im2col (output pixels x K floats) when the Conv has more filters than output
     * pixels; else 16,384 floats. The attributes are read here, once; per request the rule reads only
     * the dims it needs (channels, kernel, output pixels: never the batch), so a Conv on fixed
     * spatial dims has the same workspace for every batch and is evaluated once, at compile time.
     */
    private static Rule conv(Graph graph, Node node, NodeAttributes attributes) {
        int id = node.id();
        boolean known = attributes.known(id);
        boolean stride1 = attributes.integers(id, "strides").map(s -> allEqual(s, 1)).orElse(true);
        boolean noPads = attributes.integers(id, "pads").map(p -> allEqual(p, 0)).orElse(true);
        OptionalLong group = attributes.integer(id, "group");
        boolean groupGiven = group.isPresent();
        long groupValue = group.orElse(1);
        int x = node.input(0);
        int w = node.input(1);
        int y = node.output(0);
        int xRank = graph.value(x).shape().rank();
        int wRank = graph.value(w).shape().rank();
        int yRank = graph.value(y).shape().rank();
        return shapes -> {
            long kernel = product(shapes, w, wRank, 2);
            long groups;
            if (groupGiven) {
                groups = groupValue;
            } else {
                long perGroup = shapes.dim(w, 1);
                groups = known || perGroup == 0 ? 1 : Math.max(1, shapes.dim(x, 1) / perGroup);
            }
            // unknown attributes: a Conv whose output keeps its input's spatial dims has stride 1, no pads
            boolean pointwiseGeometry = known ? stride1 && noPads : sameSpatial(shapes, x, xRank, y, yRank);
            if (kernel == 1 && pointwiseGeometry && groups == 1) {
                return NOTHING;
            }
            long k = shapes.dim(x, 1) / groups * kernel;
            long filters = shapes.dim(y, 1) / groups;
            long pixels = product(shapes, y, yRank, 2);
            if (groups == 1 && filters > pixels) {
                return new long[] {FLOAT_BYTES * pixels * k};
            }
            return new long[] {FLOAT_BYTES * MLAS_CONV_FLOATS};
        };
    }

    /** {@return whether the node's input and filter are 4-D: the 2-D case ORT's kernel computes} */
    private static boolean planar(Graph graph, Node node) {
        return present(node, 0) && present(node, 1)
                && graph.value(node.input(0)).shape().rank() == 4 && graph.value(node.input(1)).shape().rank() == 4;
    }

    /**
     * conv_transpose.cc: after its output, one column buffer of (filters per group x kernel) rows and
     * one input image's pixels, reused image by image: the filter's dims past the first times the
     * input's spatial dims, in floats. Measured (node-workspaces.py on PP-OCRv4 detection at
     * 640 x 960): 14,745,600 B for a [1,24,160,240] input and a [24,24,2,2] filter.
     */
    private static Rule convTranspose(Node node) {
        int x = node.input(0);
        int w = node.input(1);
        return shapes -> new long[] {Math.multiplyExact(FLOAT_BYTES,
                Math.multiplyExact(product(shapes, w, 4, 1), product(shapes, x, 4, 2)))};
    }

    /**
     * The LSTMs the rule covers: one direction (forward or reverse; bidirectional measured otherwise),
     * sequence-first layout, no peepholes, a known hidden size and a 3-D input.
     */
    private static boolean lstmModelled(Graph graph, Node node, NodeAttributes attributes) {
        int id = node.id();
        String direction = attributes.string(id, "direction").orElse("forward");
        return attributes.known(id) && (direction.equals("forward") || direction.equals("reverse"))
                && attributes.integer(id, "layout").orElse(0) == 0 && attributes.integer(id, "hidden_size").isPresent()
                && !present(node, 7) && present(node, 0) && graph.value(node.input(0)).shape().rank() == 3;
    }

    private static boolean present(Node node, int input) {
        return node.inputCount() > input && node.input(input) != Graph.ABSENT;
    }

    /**
     * ORT 1.30's LSTM (deep_cpu_lstm.cc, uni_directional_lstm.cc), one direction, after its outputs,
     * in floats of X [S, B, I] and hidden size H: B x H each for Y_h and Y_c when the node does not
     * output them; H and H (the first state and cell); B x H three times (batched state, cell and
     * clipped cell); 4 x H x B x S (the gates); 4 x H for a bias input; S x B x I and S x B x H
     * reversed for the reverse direction; then B int32 sequence lengths without that input.
     * Measured (workspace-probe.py, eight shapes, with and without bias, outputs and lengths,
     * forward and reverse): exact. Identical W and R initializers measure 64 KB more: ORT
     * shares them and packs them during the first run; the rule leaves that aside.
     */
    private static Rule lstm(Node node, NodeAttributes attributes) {
        long h = attributes.integer(node.id(), "hidden_size").getAsLong();
        boolean reverse = attributes.string(node.id(), "direction").orElse("forward").equals("reverse");
        boolean bias = present(node, 3);
        boolean lengths = present(node, 4);
        // by the ONNX node's outputs: memplan's node lists only those given (LSTM(X, W, R) -> ("", Y_h))
        boolean finalState = attributes.givesOutput(node.id(), 1)
                .orElse(node.outputCount() > 1 && node.output(1) != Graph.ABSENT);
        boolean finalCell = attributes.givesOutput(node.id(), 2)
                .orElse(node.outputCount() > 2 && node.output(2) != Graph.ABSENT);
        int x = node.input(0);
        int count = (finalState ? 0 : 1) + (finalCell ? 0 : 1) + 6 + (bias ? 4 : 0) + (reverse ? 2 : 0)
                + (lengths ? 0 : 1);
        return shapes -> { // per request: one array, in the kernel's order, floats until the last line
            long[] xs = shapes.dims(x);
            long s = xs[0];
            long b = xs[1];
            long bh = Math.multiplyExact(b, h);
            long[] out = new long[count];
            int k = 0;
            if (!finalState) {
                out[k++] = bh;
            }
            if (!finalCell) {
                out[k++] = bh;
            }
            for (long n : new long[] {h, h, bh, bh, bh, Math.multiplyExact(Math.multiplyExact(4, bh), s)}) {
                out[k++] = n;
            }
            for (int i = 0; bias && i < 4; i++) {
                out[k++] = h;
            }
            if (reverse) {
                out[k++] = Math.multiplyExact(Math.multiplyExact(s, b), xs[2]);
                out[k++] = Math.multiplyExact(s, bh);
            }
            if (!lengths) {
                out[k] = b; // int32, the size of a float
            }
            for (int i = 0; i < count; i++) {
                out[i] = Math.multiplyExact(FLOAT_BYTES, out[i]);
            }
            return out;
        };
    }

    /** An input-sized scale buffer, then the squares padded by {@code size - 1} channels. */
    private static Rule lrn(Node node, long size) {
        int x = node.input(0);
        return shapes -> {
            long[] xs = shapes.dims(x);
            long pixels = product(xs, 2);
            return new long[] {FLOAT_BYTES * xs[0] * xs[1] * pixels, FLOAT_BYTES * xs[0] * (xs[1] + size - 1) * pixels};
        };
    }

    /**
     * Opset 13+ on a non-last axis: two transposed copies of the input; none on the last axis or
     * before opset 13 (which flattens to 2-D). Unknown attributes count the two copies: a bound.
     */
    private static Rule softmax(Node node, NodeAttributes attributes) {
        int x = node.input(0);
        boolean known = attributes.known(node.id());
        long axis = attributes.integer(node.id(), "axis").orElse(-1);
        boolean before13 = attributes.opset().isPresent() && attributes.opset().getAsLong() < 13;
        return shapes -> {
            long[] xs = shapes.dims(x);
            boolean last = xs.length == 0 || Math.floorMod(axis, xs.length) == xs.length - 1;
            if (known && (last || before13)) {
                return new long[0];
            }
            long bytes = shapes.bytes(x);
            return new long[] {bytes, bytes};
        };
    }

    /** Input 0 quantized to uint8 in the arena: one byte per element. */
    private static Rule quantizedInput(Node node) {
        int a = node.input(0);
        return shapes -> new long[] {product(shapes.dims(a), 0)};
    }

    /** One buffer the size of output 0. */
    private static Rule outputSized(Node node) {
        int y = node.output(0);
        return shapes -> new long[] {shapes.bytes(y)};
    }

    /** The shapes the Attention rule reads: input [B, S, hidden], present (if any) [2, B, heads, T, head size]. */
    private static boolean attentionShapes(Graph graph, Node node) {
        boolean present = node.outputCount() > 1 && node.output(1) != Graph.ABSENT;
        return node.inputCount() > 0 && node.input(0) != Graph.ABSENT && graph.value(node.input(0)).shape().rank() == 3
                && (!present || graph.value(node.output(1)).shape().rank() == 5);
    }

    /**
     * com.microsoft Attention (float, one hidden size for Q, K and V), in the order ORT 1.30's kernel
     * takes them (attention.cc, attention_cpu_base.h {@code ApplyAttention}), T being the present
     * state's length (S without one):
     * <ol>
     * <li>QKV, B x S x 3 x hidden floats;</li>
     * <li>with a mask input or a causal mask over more than one token, the mask as floats: B x T
     *     when it is a padding mask only (a 1-D or 2-D mask input, not causal: broadcast over the
     *     queries), else B x S x T;</li>
     * <li>the scores, B x heads x S x T floats;</li>
     * <li>one {@code MLAS_SGEMM_DATA_PARAMS} (64 bytes) per batch row and head, the batched GEMM's
     *     arguments;</li>
     * <li>the heads' output before its transpose, B x S x hidden floats.</li>
     * </ol>
     * The present output is allocated after QKV ({@link #outputsAfter}). Measured
     * ({@code benchmarks/ort/attention-probe.py}): one node alone at five bindings, with and without
     * a causal mask and with 1-D, 2-D and no mask input, and GPT-2 node by node against ORT's profile;
     * {@code OrtAttentionRuleTest} checks the rule against those figures.
     */
    private static Rule attention(Graph graph, Node node, NodeAttributes attributes) {
        long heads = attributes.integer(node.id(), "num_heads").getAsLong();
        boolean unidirectional = attributes.integer(node.id(), "unidirectional").orElse(0) != 0;
        int x = node.input(0);
        boolean mask = node.inputCount() > 3 && node.input(3) != Graph.ABSENT;
        int maskRank = mask ? graph.value(node.input(3)).shape().rank() : 0;
        int present = node.outputCount() > 1 ? node.output(1) : Graph.ABSENT;
        return shapes -> {
            long[] xs = shapes.dims(x);
            long b = xs[0];
            long s = xs[1];
            long hidden = xs[2];
            long t = present != Graph.ABSENT ? shapes.dims(present)[3] : s;
            long rows = Math.multiplyExact(FLOAT_BYTES * b, s);
            long qkv = Math.multiplyExact(rows, 3 * hidden);
            long scores = Math.multiplyExact(Math.multiplyExact(rows, heads), t);
            long gemmParams = Math.multiplyExact(Math.multiplyExact(b, heads), MLAS_SGEMM_DATA_PARAMS_BYTES);
            long out = Math.multiplyExact(rows, hidden);
            boolean causal = unidirectional && s > 1;
            if (mask || causal) {
                boolean paddingOnly = mask && !causal && (maskRank == 1 || maskRank == 2);
                long maskBytes = Math.multiplyExact(paddingOnly ? FLOAT_BYTES * b : rows, t);
                return new long[] {qkv, maskBytes, scores, gemmParams, out};
            }
            return new long[] {qkv, scores, gemmParams, out};
        };
    }

    /**
     * How many of the node's workspaces its kernel takes before it allocates its outputs from
     * {@link #firstLateOutput} on: ORT allocates an output when the kernel asks for it during its
     * compute. Attention asks for output 0 first and for the present state after computing QKV, so
     * 1; DynamicQuantizeMatMul quantizes A into its workspace before it asks for Y, so 1; every
     * other kernel here asks for its outputs first, so 0.
     */
    static int outputsAfter(Graph graph, Node node, NodeAttributes attributes) {
        OrtKernels.Kernel kernel = OrtKernels.of(node);
        if (kernel == null || !isModelled(graph, node, attributes)) {
            return 0;
        }
        return kernel.workspace() == OrtKernels.Workspace.ATTENTION
                || kernel.workspace() == OrtKernels.Workspace.QUANTIZED_INPUT ? 1 : 0;
    }

    /**
     * The index of the node's first output its kernel asks for after the workspaces
     * {@link #outputsAfter} counts: Attention's present state (1), DynamicQuantizeMatMul's Y (0).
     */
    static int firstLateOutput(Node node) {
        OrtKernels.Kernel kernel = OrtKernels.of(node);
        return kernel != null && kernel.workspace() == OrtKernels.Workspace.QUANTIZED_INPUT ? 0 : 1;
    }

    /** An unmodelled kernel: one buffer of its inputs' and outputs' bytes (a guess, not a bound). */
    private static Rule allowance(Node node) {
        int[] inputs = node.inputs();
        int[] outputs = node.outputs();
        return shapes -> new long[] {Math.addExact(total(shapes, inputs), total(shapes, outputs))};
    }

    /** The bytes of the present values among {@code values}. */
    private static long total(BoundShapes shapes, int[] values) {
        long total = 0;
        for (int v : values) {
            if (v != Graph.ABSENT) {
                total = Math.addExact(total, shapes.bytes(v));
            }
        }
        return total;
    }

    private static long product(long[] dims, int from) {
        long p = 1;
        for (int i = from; i < dims.length; i++) {
            p = Math.multiplyExact(p, dims[i]);
        }
        return p;
    }

    private static boolean allEqual(long[] values, long expected) {
        for (long v : values) {
            if (v != expected) {
                return false;
            }
        }
        return true;
    }

    /** The product of value {@code v}'s dims from axis {@code from} on. */
    private static long product(BoundShapes shapes, int v, int rank, int from) {
        long p = 1;
        for (int i = from; i < rank; i++) {
            p = Math.multiplyExact(p, shapes.dim(v, i));
        }
        return p;
    }

    private static boolean sameSpatial(BoundShapes shapes, int in, int inRank, int out, int outRank) {
        if (inRank != outRank) {
            return false;
        }
        for (int i = 2; i < inRank; i++) {
            if (shapes.dim(in, i) != shapes.dim(out, i)) {
                return false;
            }
        }
        return true;
    }
}
