// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.EngineMode;
import dev.memplan.EngineUnavailableException;
import dev.memplan.MemPlan;
import dev.memplan.MemplanException;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.draw.TextTimeline;
import dev.memplan.json.PlanJson;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxReport;
import dev.memplan.onnx.ViewPolicy;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code memplan plan FILE...}: plans each file and prints the plans in argument order. Every
 * file is read and planned before anything is printed; if one fails, stdout stays empty, each
 * failure is reported on stderr, and the exit code is 1.
 */
@Command(name = "plan", mixinStandardHelpOptions = true, versionProvider = MemplanCli.Version.class,
        sortOptions = false,
        description = {"Plans the activation memory of each graph file.",
                "Exit codes: 0 planned (complete or deferred), 1 bad input, 2 usage."})
final class PlanCommand implements Callable<Integer> {
    /** Size of the {@code --timeline} picture: columns of the arena, rows of positions at most. */
    private static final int TIMELINE_COLUMNS = 64;
    private static final int TIMELINE_ROWS = 40;

    @Spec
    private CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "Graph files (.json) or ONNX models (.onnx).")
    private List<Path> files;

    @Option(names = "--views", paramLabel = "POLICY", defaultValue = "ort", converter = LowerCaseEnums.Views.class,
            completionCandidates = LowerCaseEnums.Views.class,
            description = "ONNX models: which outputs are views: ort (Reshape, Flatten, Squeeze, Unsqueeze,"
                    + " Identity), strided (also Slice, Transpose, Expand) or none (default: ${DEFAULT-VALUE}).")
    private ViewPolicy views;

    @Option(names = "--no-fold-constants",
            description = "ONNX models: count the outputs of nodes computed from weights alone as activations"
                    + " (by default they are folded into weights).")
    private boolean noFoldConstants;

    @Option(names = "--bind", paramLabel = "SYM=N", converter = Binding.Converter.class,
            description = "Binds a symbol (a named dim such as batch or seq) to N >= 0. Repeatable.")
    private List<Binding> binds = new ArrayList<>();

    @Option(names = "--include-graph-inputs",
            description = "Graph inputs own slots too (by default the caller owns its input buffers).")
    private boolean includeGraphInputs;

    @Option(names = "--alignment", paramLabel = "N", defaultValue = "1",
            description = "Rounds every owner's size up to a multiple of N bytes (default: ${DEFAULT-VALUE}).")
    private long alignment;

    @Option(names = "--engine", paramLabel = "ENGINE", converter = LowerCaseEnums.Engine.class,
            completionCandidates = LowerCaseEnums.Engine.class,
            description = "auto, native or java (default: the memplan.engine property, else auto).")
    private EngineMode engine;

    @Mixin
    private StrategyOptions strategy;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text", converter = LowerCaseEnums.Format.class,
            completionCandidates = LowerCaseEnums.Format.class,
            description = "text (a summary per file) or json (one object per file, one per line)"
                    + " (default: ${DEFAULT-VALUE}).")
    private OutputFormat format;

    @Option(names = "--timeline",
            description = "Text format: adds a picture of the arena over time (rows: positions, columns: bytes).")
    private boolean timeline;

    @Override
    public Integer call() {
        Map<String, Long> bindings = bindings();
        PlanOptions options = options();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            MemPlan.engineName(options.engine()); // fail once, up front, when native cannot load
        } catch (EngineUnavailableException e) {
            err.println("memplan: " + e.getMessage());
            return 1;
        }

        List<PlannedFile> planned = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (Path file : files) {
            String label = file.toString();
            try {
                planned.add(GraphLoader.plan(file, bindings, options, new ImportOptions(!noFoldConstants, views)));
            } catch (MemplanException e) {
                failures.add(label + ": " + e.getMessage());
            } catch (NoSuchFileException e) {
                failures.add(label + ": no such file");
            } catch (AccessDeniedException e) {
                failures.add(label + ": cannot read it (permission denied)");
            } catch (IOException e) {
                failures.add(label + ": cannot read it (" + e + ")");
            }
        }
        if (!failures.isEmpty()) {
            for (String failure : failures) {
                err.println("memplan: " + failure);
            }
            if (files.size() > 1) {
                err.println("memplan: nothing printed: " + failures.size() + " of " + files.size()
                        + " files could not be planned");
            }
            err.flush();
            return 1;
        }
        warnAboutUnusedBindings(bindings, planned, err);
        print(planned, bindings, out);
        return 0;
    }

    private void print(List<PlannedFile> planned, Map<String, Long> bindings, PrintWriter out) {
        boolean several = planned.size() > 1;
        for (int i = 0; i < planned.size(); i++) {
            PlannedFile p = planned.get(i);
            if (format == OutputFormat.JSON) {
                String json = PlanJson.toJson(several ? p.label() : null, p.schedule(), p.result());
                out.println(p.onnx() == null ? json : OnnxJson.extend(json, p.onnx()));
            } else {
                if (i > 0) {
                    out.println();
                }
                if (p.onnx() == null) {
                    TextReport.write(p, bindings, out);
                } else {
                    out.print(OnnxReport.text(p.label(), p.onnx()));
                    p.result().asComplete().ifPresent(plan ->
                            out.println("strategies " + StrategyComparison.of(plan, bindings).line()));
                }
                if (timeline && p.result() instanceof PlanResult.Complete c) {
                    out.print(TextTimeline.render(c.plan(), TIMELINE_COLUMNS, TIMELINE_ROWS));
                }
            }
        }
        out.flush();
    }

    private Map<String, Long> bindings() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Binding b : binds) {
            Long previous = out.putIfAbsent(b.symbol(), b.value());
            if (previous != null && previous != b.value()) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--bind " + b.symbol()
                        + " is given twice, as " + previous + " and " + b.value() + "; bind each symbol once");
            }
        }
        return out;
    }

    private PlanOptions options() {
        if (alignment < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--alignment must be >= 1, got " + alignment);
        }
        EngineMode mode;
        try {
            mode = engine != null ? engine : EngineMode.fromSystemProperty();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "-D" + EngineMode.PROPERTY + ": "
                    + e.getMessage());
        }
        return new PlanOptions(includeGraphInputs, alignment, mode, strategy.strategy(), strategy.effort());
    }

    /** A --bind that matches no symbol is most likely a typo (sequence for seq): say so. */
    private static void warnAboutUnusedBindings(Map<String, Long> bindings, List<PlannedFile> planned,
                                                PrintWriter err) {
        Set<String> known = new LinkedHashSet<>();
        for (PlannedFile p : planned) {
            known.addAll(p.onnx() != null ? p.onnx().imported().symbols().keySet()
                    : p.schedule().graph().symbols().keySet());
        }
        for (String symbol : bindings.keySet()) {
            if (!known.contains(symbol)) {
                err.println("memplan: warning: --bind " + symbol + " matches no symbol of "
                        + (planned.size() > 1 ? "any of the graphs" : "the graph")
                        + (known.isEmpty() ? " (there are none)" : "; the symbols are " + String.join(", ", known)));
            }
        }
        err.flush();
    }
}
