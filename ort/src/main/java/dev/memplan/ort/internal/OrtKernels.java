// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Graph.Node;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What ONNX Runtime 1.30's CPU kernels declare to its allocation planner and take during their
 * compute: the single home of ORT's kernel facts, keyed by domain and op type. {@code Alias}: output
 * 0 must share input 0. {@code MayInplace(i, 0)}: output 0 may overwrite input i. ORT's
 * {@code activations.cc} registers the activation family with it; {@code element_wise_ops.cc}'s
 * {@code REG_ELEMENTWISE_TYPED_KERNEL} registers Add, Sub, Mul, Div and the rest without it
 * ({@code benchmarks/ort/inplace-probe.py} measured the list, docs/ort-runtime.md section 1). The
 * workspace kind names the rule {@link KernelWorkspaces} applies (section 5). An op missing here has
 * no known rule: it gets an allowance and is reported as unmodelled.
 */
final class OrtKernels {
    /** Domains as ORT's saved graphs spell them. */
    private static final String ONNX = "";
    private static final String MS = "com.microsoft";
    private static final String NCHWC = "com.microsoft.nchwc";

    /** The rule a kernel's workspace follows (each documented on its {@link KernelWorkspaces} method). */
    enum Workspace {
        /** Measured to take nothing beyond its outputs. */
        NONE,
        /** MLAS's convolution working buffer. */
        MLAS_CONV,
        /** LRN's scale and padded-squares buffers. */
        LRN,
        /** Two transposed copies of the input on a non-last axis. */
        SOFTMAX,
        /** Input 0 quantized to uint8: one byte per element. */
        QUANTIZED_INPUT,
        /** One buffer the size of output 0. */
        OUTPUT_SIZED,
        /** ConvTranspose's column buffer, one image's worth. */
        CONV_TRANSPOSE,
        /** LSTM's state, gate and bias buffers (forward or reverse). */
        LSTM,
        /** com.microsoft Attention's QKV, mask, scores, GEMM arguments, heads' output; the present state after QKV. */
        ATTENTION
    }

    /**
     * One kernel's facts.
     *
     * @param alias        output 0 shares input 0's buffer
     * @param inPlaceInput the input output 0 may overwrite, or -1
     * @param workspace    what it takes during its compute
     */
    record Kernel(boolean alias, int inPlaceInput, Workspace workspace) {
    }

    private static final Map<String, Kernel> KERNELS = new HashMap<>();

    static {
        // activations.cc, Softmax, Cast: MayInplace(0, 0), no workspace (Softmax's non-last axis aside)
        for (String op : new String[] {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Elu", "HardSigmoid", "Softplus",
                "Clip", "Cast"}) {
            put(ONNX, op, new Kernel(false, 0, Workspace.NONE));
        }
        for (String op : new String[] {"Softmax", "LogSoftmax"}) {
            put(ONNX, op, new Kernel(false, 0, Workspace.SOFTMAX));
        }
        for (String op : new String[] {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}) {
            put(ONNX, op, new Kernel(true, -1, Workspace.NONE));
        }
        // measured (workspace-probe.py, inplace-probe.py): their own output, nothing more
        for (String op : new String[] {"DepthToSpace", "MaxPool", "AveragePool", "GlobalAveragePool", "Concat", "Pad",
                "Slice", "Dropout", "Add", "Sub", "Mul", "Div", "Pow", "Sum", "Exp", "Sqrt", "Abs", "Neg", "Erf",
                "ConstantOfShape", "BatchNormalization", "InstanceNormalization", "LayerNormalization", "Gemm",
                "MatMul", "Transpose"}) {
            put(ONNX, op, new Kernel(false, -1, Workspace.NONE));
        }
        put(ONNX, "Conv", new Kernel(false, -1, Workspace.MLAS_CONV));
        put(ONNX, "ConvTranspose", new Kernel(false, -1, Workspace.CONV_TRANSPOSE));
        put(ONNX, "LSTM", new Kernel(false, -1, Workspace.LSTM));
        put(ONNX, "LRN", new Kernel(false, -1, Workspace.LRN));
        // level all, x86: the NCHWc kernels (nchwc_ops.cc) run MLAS's blocked routines, which take no
        // working buffer; the Conv's fused residual Sum input (3) is MayInplace
        put(NCHWC, "Conv", new Kernel(false, 3, Workspace.NONE));
        for (String op : new String[] {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "ReorderInput",
                "ReorderOutput", "Upsample"}) {
            put(NCHWC, op, new Kernel(false, -1, Workspace.NONE));
        }
        put(MS, "FusedConv", new Kernel(false, 3, Workspace.MLAS_CONV));
        // level all, MiniLM int8 (node-workspaces.py at 1 x 128 and 4 x 512): nothing beyond the outputs
        for (String op : new String[] {"Shape", "Gather", "DequantizeLinear", "DynamicQuantizeLinear", "Split",
                "Resize", "Equal"}) {
            put(ONNX, op, new Kernel(false, -1, Workspace.NONE));
        }
        // levels none and basic, MiniLM int8 (workspace-probe.py; ReduceMean also over the middle and
        // over two axes): nothing beyond the outputs
        for (String op : new String[] {"MatMulInteger", "ReduceMean"}) {
            put(ONNX, op, new Kernel(false, -1, Workspace.NONE));
        }
        // measured (workspace-probe.py at [4,512,384]; inplace-probe.py: none runs in place)
        for (String op : new String[] {"Log", "Floor", "Ceil", "Reciprocal", "Sin", "Cos", "Min", "Max", "Greater",
                "Less", "Expand", "Tile", "ReduceSum", "ReduceMax"}) {
            put(ONNX, op, new Kernel(false, -1, Workspace.NONE));
        }
        // activations.cc; level all, PP-OCRv4 recognition (node-workspaces.py): nothing beyond the output
        for (String op : new String[] {"MatMulIntegerToFloat", "FusedMatMul", "Gelu", "QuickGelu"}) {
            put(MS, op, new Kernel(false, -1, Workspace.NONE));
        }
        // dynamic_quantize_matmul.cc: A is quantized into an arena buffer of A's element count in
        // uint8 before MLAS's integer GEMM (measured: 49,152 B at [1,128,384], 3,145,728 B at [4,512,1536]);
        // the kernel asks for Y after it (KernelWorkspaces.outputsAfter)
        put(MS, "DynamicQuantizeMatMul", new Kernel(false, -1, Workspace.QUANTIZED_INPUT));
        // level all, tiny GPT-2 (node-workspaces.py at 1 x (1 + 127), 2 x (32 + 224), 4 x (128 + 896))
        for (String op : new String[] {"EmbedLayerNormalization", "SkipLayerNormalization"}) {
            put(MS, op, new Kernel(false, -1, Workspace.NONE));
        }
        // measured with its bias input (GPT-2's): a temporary of the output's size, the biased input;
        // without a bias the same size stands as a bound
        put(MS, "FastGelu", new Kernel(false, -1, Workspace.OUTPUT_SIZED));
        // bias_gelu_fusion.cc: the output, then a temporary of X's element count (workspace-probe.py,
        // node-workspaces.py on the fp32 BGE, E5 and MiniLM encoders: the output's bytes again)
        put(MS, "BiasGelu", new Kernel(false, -1, Workspace.OUTPUT_SIZED));
        // fused_gemm.h: Gemm's kernel with the activation applied to its output (measured: nothing more)
        put(MS, "FusedGemm", new Kernel(false, -1, Workspace.NONE));
        // attention.cc + attention_cpu_base.h (ApplyAttention)
        put(MS, "Attention", new Kernel(false, -1, Workspace.ATTENTION));
    }

    private static void put(String domain, String op, Kernel kernel) {
        KERNELS.put(domain + ":" + op, kernel);
    }

    private OrtKernels() {
    }

    /** {@return the facts of the node's kernel, or null when ORT's kernel for it has no rule here} */
    static Kernel of(Node node) {
        return KERNELS.get(domain(node) + ":" + node.opType());
    }

    /** {@return whether the node's outputs alias its first input} */
    static boolean isAlias(Node node) {
        Kernel k = of(node);
        return k != null && k.alias();
    }

    /** {@return the input position the node may overwrite with its output, or -1} */
    static int inPlaceInput(Node node) {
        Kernel k = of(node);
        return k == null ? -1 : k.inPlaceInput();
    }

    /**
     * Kernels that pre-pack a constant float matrix input with MLAS's SGEMM packing, after which ORT
     * drops the initializer once every reader has packed it (FusedGemm is Gemm's kernel; measured for
     * MatMul and Gemm: an If branch reading such a weight gets no memory pattern; docs/ort-runtime.md
     * section 7).
     */
    private static final Map<String, Integer> PRE_PACKED_INPUT = Map.of(ONNX + ":MatMul", 1, ONNX + ":Gemm", 1,
            MS + ":FusedGemm", 1);

    /** {@return the input position ORT's kernel for {@code opType} pre-packs when constant, or -1} */
    static int prePackedInput(String domain, String opType) {
        String d = domain == null || domain.equals("ai.onnx") ? ONNX : domain;
        return PRE_PACKED_INPUT.getOrDefault(d + ":" + opType, -1);
    }

    /** {@return whether {@code opType} is an If, whose branch the replay runs inside it ({@link OrtSubgraphReplay})} */
    static boolean isIf(String opType) {
        return "If".equals(opType);
    }

    /** {@return whether a node of {@code domain} and {@code opType} is ONNX's Loop, whose trip count a probe feeds} */
    static boolean isLoop(String domain, String opType) {
        return "Loop".equals(opType) && (domain == null || domain.isEmpty() || domain.equals("ai.onnx"));
    }

    /** {@return the node's domain as ORT's graphs spell it: empty for the default domain} */
    static String domain(Node node) {
        String d = node.domain();
        return d == null || d.equals("ai.onnx") ? ONNX : d;
    }

    /**
     * Which kernels keep the rows of a batch apart ({@link BatchRows}): a fact about what each op
     * computes, kept here with ORT's other kernel facts.
     */
    static final class Rows {
        /** Ops that map each row of their inputs to the same row of their outputs, whatever their attributes. */
        private static final Set<String> ROW_WISE = Set.of(
                "Abs", "Acos", "Acosh", "Add", "And", "Asin", "Asinh", "Atan", "Atanh", "BitShift", "Cast", "CastLike",
                "Ceil", "Celu", "Clip", "Cos", "Cosh", "Div", "Elu", "Equal", "Erf", "Exp", "Floor", "Gelu", "Greater",
                "GreaterOrEqual", "HardSigmoid", "HardSwish", "Identity", "IsInf", "IsNaN", "LeakyRelu", "Less",
                "LessOrEqual", "Log", "Max", "Mean", "Min", "Mish", "Mod", "Mul", "Neg", "Not", "Or", "Pow", "PRelu",
                "QuantizeLinear", "DequantizeLinear", "Reciprocal", "Relu", "Round", "Selu", "Shrink", "Sigmoid", "Sign",
                "Sin", "Sinh", "Softplus", "Softsign", "Sqrt", "Sub", "Sum", "Tan", "Tanh", "ThresholdedRelu", "Where",
                "Xor", "Dropout", "Expand", "Reshape", "Squeeze", "Unsqueeze", "Flatten", "Slice", "Pad", "Transpose",
                "MatMul", "MatMulInteger", "QLinearMatMul", "Conv", "ConvInteger", "ConvTranspose", "QLinearConv",
                "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool", "BatchNormalization",
                "InstanceNormalization", "GroupNormalization", "LRN", "Resize", "Upsample", "DepthToSpace",
                "SpaceToDepth", "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "DynamicQuantizeLinear",
                // ORT's contrib and NCHWc kernels, as it fuses encoders and CNNs
                "Attention", "MultiHeadAttention", "QAttention", "SkipLayerNormalization",
                "SkipSimplifiedLayerNormalization", "SimplifiedLayerNormalization", "EmbedLayerNormalization",
                "BiasGelu", "FastGelu", "QuickGelu", "FusedMatMul", "FusedConv", "DynamicQuantizeMatMul",
                "MatMulIntegerToFloat", "BiasAdd", "QLinearAdd", "QLinearMul", "ReorderInput", "ReorderOutput");
        /** Ops that work along one axis, given by an {@code axis} attribute: row-wise when it is not the first. */
        private static final Set<String> ALONG_AXIS = Set.of("Concat", "Split", "Gather", "GatherElements", "Softmax",
                "LogSoftmax", "Hardmax", "LayerNormalization", "ArgMax", "ArgMin", "TopK");
        /** Ops whose output takes the batch from a shape alone, never from another row's data. */
        private static final Set<String> SHAPED_ONLY = Set.of("ConstantOfShape", "Expand");
        /** Ops that read a value's shape, not its rows. */
        private static final Set<String> SHAPE_READERS = Set.of("Shape", "Size");


        private Rows() {
        }

        /** {@return whether the op maps each row of its inputs to the same row of its outputs} */
        static boolean rowWise(String op) {
            return ROW_WISE.contains(op);
        }

        /** {@return whether the op works along the axis its {@code axis} attribute names} */
        static boolean alongAxis(String op) {
            return ALONG_AXIS.contains(op);
        }

        /** {@return whether the op's rows come from a shape alone} */
        static boolean fromShapes(String op) {
            return SHAPED_ONLY.contains(op);
        }

        /** {@return whether the op reads its input's shape, not its data} */
        static boolean readsShapes(String op) {
            return SHAPE_READERS.contains(op);
        }

        /** {@return whether the op is a Gemm, whose first input's rows are its output's unless transposed} */
        static boolean isGemm(String op) {
            return op.equals("Gemm") || op.equals("FusedGemm");
        }

        /** {@return whether the op picks from its first input by the indices of another} */
        static boolean gathers(String op) {
            return op.equals("Gather") || op.equals("GatherElements");
        }

        /** {@return the ONNX default of an axis-taking op's {@code axis}} */
        static long defaultAxis(String op, OptionalLong opset) {
            return switch (op) {
                case "Softmax", "LogSoftmax", "Hardmax" -> opset.orElse(13) >= 13 ? -1 : 1;
                case "LayerNormalization", "TopK" -> -1;
                default -> 0; // Concat has none (ORT refuses it without), Split, Gather*, ArgMax, ArgMin: 0
            };
        }
    }
}
