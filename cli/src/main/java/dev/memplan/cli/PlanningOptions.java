// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.PlanOptions.InPlace;
import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.ImportOptions.ViewPolicy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options that say how a graph file is planned, shared by {@code plan} and {@code draw} as
 * one picocli mixin: bindings, ONNX import, plan options, strategy and engine. Values are checked
 * when read; a bad one is a usage error (exit 2).
 */
final class PlanningOptions {
    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(names = "--bind", paramLabel = "SYM=N", converter = Binding.Converter.class,
            description = "Binds a symbol (a named dim such as batch or seq) to N >= 0. Repeatable.")
    private List<Binding> binds = new ArrayList<>();

    @Option(names = "--value", paramLabel = "NAME=V[,V...]", converter = InputValue.Converter.class,
            description = "ONNX models: the value of a small integer or bool input (a sample rate, a flag),"
                    + " folded like a constant so If conditions and sizes that read it resolve; >= 0. Repeatable.")
    private List<InputValue> values = new ArrayList<>();

    @Option(names = "--input-dims", paramLabel = "NAME=D0,D1,...", converter = InputDims.Converter.class,
            description = "ONNX models: gives an input these dims in place of the declared ones, each a whole number,"
                    + " ? (unnamed) or a symbol name; for exports that named a dim wrong, such as input_ids=batch,seq"
                    + " where the file says [batch, batch]. Repeatable.")
    private List<InputDims> inputDims = new ArrayList<>();

    @Option(names = "--include-graph-inputs",
            description = "Graph inputs own bytes too (by default the caller owns its input buffers).")
    private boolean includeGraphInputs;

    @Option(names = "--alignment", paramLabel = "N", defaultValue = "1",
            description = "Rounds every owner's size up to a multiple of N bytes (default: ${DEFAULT-VALUE}).")
    private long alignment;

    @Mixin
    private StrategyOptions strategy;

    @Option(names = "--in-place", paramLabel = "on|off",
            description = "Whether a node's output may take the buffer of an input that dies at that node"
                    + " (ReLU, Add, BatchNormalization... on ONNX models; the \"inPlace\" hint of graph files):"
                    + " on or off (default: on for offsets plans, off for slots plans).")
    private InPlace inPlace = InPlace.AUTO;

    @Mixin
    private EngineOption engine;

    @Option(names = "--views", paramLabel = "POLICY", defaultValue = "ort",
            description = "ONNX models: which outputs are views: ort (Reshape, Flatten, Squeeze, Unsqueeze,"
                    + " Identity), strided (also Slice, Transpose, Expand) or none (default: ort).")
    private ViewPolicy views;

    @Option(names = "--no-fold-constants",
            description = "ONNX models: count the outputs of nodes computed from weights alone as activations"
                    + " (by default they are folded into weights).")
    private boolean noFoldConstants;

    /**
     * The bindings, in the order given.
     *
     * @throws CommandLine.ParameterException when a symbol is bound twice to different values
     */
    Map<String, Long> bindings() {
        return Binding.toMap(binds, spec.commandLine());
    }

    /**
     * The input values ({@code --value}), by input name, in the order given.
     *
     * @throws CommandLine.ParameterException when an input is given twice with different values
     */
    Map<String, long[]> inputValues() {
        Map<String, long[]> out = new LinkedHashMap<>();
        for (InputValue v : values) {
            long[] previous = out.putIfAbsent(v.input(), v.values());
            if (previous != null && !Arrays.equals(previous, v.values())) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--value " + v.input()
                        + " is given twice, as " + Arrays.toString(previous) + " and "
                        + Arrays.toString(v.values()) + "; give each input once");
            }
        }
        return out;
    }

    /**
     * The plan options, with the chosen strategy (offsets when none was given).
     *
     * @throws CommandLine.ParameterException when the alignment, effort or engine is invalid
     */
    PlanOptions planOptions() {
        if (alignment < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--alignment must be >= 1, got " + alignment);
        }
        return new PlanOptions(includeGraphInputs, alignment, engine.mode(), strategy.strategy(), strategy.effort(),
                inPlace);
    }

    /**
     * How ONNX models are imported: constant folding, the view policy and the inputs' dims.
     *
     * @throws CommandLine.ParameterException when an input is given twice with different dims
     */
    ImportOptions importOptions() {
        return new ImportOptions(!noFoldConstants, views).withInputDims(InputDims.toMap(inputDims,
                spec.commandLine()));
    }

    /** {@code --strategy} and {@code --effort}; {@link StrategyOptions#given()} says whether one was given. */
    StrategyOptions strategy() {
        return strategy;
    }
}
