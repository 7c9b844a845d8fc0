// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.Dim;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.read.Attrs;
import dev.memplan.onnx.rules.ConditionTracking;
import dev.memplan.onnx.rules.ConstantFolder;
import dev.memplan.onnx.rules.InferenceContext;
import dev.memplan.onnx.rules.OpInference;
import dev.memplan.onnx.rules.OpRegistry;
import dev.memplan.onnx.rules.ShapeRule;
import dev.memplan.onnx.symbols.DimSubstitution;
import dev.memplan.onnx.symbols.SymbolTable;
import dev.memplan.onnx.symbols.TensorInfo;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The import step that infers one node's outputs: runs the op's {@link ShapeRule} on what the
 * graph knows of the node's inputs, computes the output's values when its inputs are known
 * constants ({@link ConstantFolder}), and drops dim expressions too large to keep. A rule that
 * throws leaves the outputs uninferred and is recorded as an {@link InferenceFailure}.
 */
final class NodeInference {
    private final ImportSession session;
    private final ValueTable values;
    private final GraphScope scope;
    private final List<InferenceFailure> failures = new ArrayList<>();

    NodeInference(ImportSession session, ValueTable values, GraphScope scope) {
        this.session = session;
        this.values = values;
        this.scope = scope;
    }

    /** What inference found for one node, and why it found nothing when its rule failed. */
    record Result(List<TensorInfo> outputs, String failure) {
        /** Output {@code i}, or null when not inferred. */
        TensorInfo output(int i) {
            return i < outputs.size() ? outputs.get(i) : null;
        }
    }

    /** Infers the outputs of {@code node}, labelled {@code nodeDesc} in symbols and failures. */
    Result infer(NodeProto node, String nodeDesc) {
        int[] lastInput = {-1};
        InferenceContext ctx = context(node, nodeDesc, lastInput);
        List<TensorInfo> outs;
        try {
            outs = OpInference.infer(ctx);
        } catch (RuntimeException e) {
            // absurd attributes or inputs (a corrupted file), or a bug: the outputs stay uninferred
            String why = record(node, nodeDesc, "shape", e, ctx, lastInput[0]);
            return new Result(List.of(), "inference failed (" + why + ")");
        }
        if (outs.size() == 1 && outs.get(0) != null) {
            outs = List.of(ConditionTracking.apply(ctx, withValues(node, nodeDesc, ctx, outs.get(0))));
        }
        List<TensorInfo> bounded = new ArrayList<>(outs.size());
        for (TensorInfo t : outs) {
            bounded.add(t == null || t.shape == null || !DimSubstitution.tooComplex(t.shape) ? t : null);
        }
        return new Result(bounded, null);
    }

    /** Appends the failures recorded in the bodies of a control-flow node of this graph. */
    void addBodyFailures(List<InferenceFailure> bodyFailures) {
        failures.addAll(bodyFailures);
    }

    /** Failures recorded so far, in node order. */
    List<InferenceFailure> failures() {
        return Collections.unmodifiableList(failures);
    }

    private String record(NodeProto node, String nodeDesc, String stage, RuntimeException e, InferenceContext ctx,
                          int lastInput) {
        String why = RuleFailure.describe(e, lastInput, lastInput >= 0 ? node.getInput(lastInput) : null,
                lastInput >= 0 ? ctx.input(lastInput) : null, ctx.attrs().lastRead());
        failures.add(new InferenceFailure(scope.label(nodeDesc), OpRegistry.canonicalDomain(node.getDomain()),
                node.getOpType(), stage, why));
        return why;
    }

    /** {@code inferred} with its values when the node's inputs are known constants. */
    private TensorInfo withValues(NodeProto node, String nodeDesc, InferenceContext ctx, TensorInfo inferred) {
        try {
            TensorInfo folded = ConstantFolder.fold(ctx, inferred);
            return folded == null ? inferred : folded;
        } catch (RuntimeException e) {
            // an overflow or absurd constant: keep what inference said, and say so
            record(node, nodeDesc, "values", e, ctx, -1);
            return inferred;
        }
    }


    private InferenceContext context(NodeProto node, String nodeDesc, int[] lastInput) {
        Attrs attrs = new Attrs(node);
        String firstOut = node.getOutputCount() > 0 ? node.getOutput(0) : nodeDesc;
        SymbolTable symbols = session.symbols();
        long opset = session.opset();
        return new InferenceContext() {
            @Override
            public int inputCount() {
                return node.getInputCount();
            }

            @Override
            public TensorInfo input(int i) {
                if (i >= 0 && i < node.getInputCount()) {
                    lastInput[0] = i; // what a failed rule could not use
                }
                return i < node.getInputCount() ? values.lookup(node.getInput(i)) : null;
            }

            @Override
            public Attrs attrs() {
                return attrs;
            }

            @Override
            public String opType() {
                return node.getOpType();
            }

            @Override
            public String domain() {
                return node.getDomain();
            }

            @Override
            public int outputCount() {
                return node.getOutputCount();
            }

            @Override
            public long opset() {
                return opset;
            }

            @Override
            public int nchwcBlockSize() {
                return session.options().nchwcBlockSize();
            }

            @Override
            public Dim fresh(String hint) {
                return symbols.fresh(firstOut + "_" + hint, "data-dependent " + hint + " of " + nodeDesc);
            }

            @Override
            public void relate(Dim a, Dim b, String why, boolean broadcast) {
                symbols.relations().record(a, b, nodeDesc, why, broadcast);
            }
        };
    }
}
