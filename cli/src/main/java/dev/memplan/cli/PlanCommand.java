// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.EngineUnavailableException;
import dev.memplan.MemPlan;
import dev.memplan.MemplanException;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.draw.Picture;
import dev.memplan.io.TerminalText;
import dev.memplan.json.PlanJson;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.InputDimsException;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.ort.OrtModel;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.internal.ServerAccess;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * failure is reported on stderr (one line each), and the exit code says why ({@link ExitCode}).
 * Memory: one file's plan at a time; the output waits in an {@link OutputSpool}.
 */
@Command(name = "plan", mixinStandardHelpOptions = true, versionProvider = MemplanCli.Version.class,
        sortOptions = false,
        description = {"Plans the activation memory of each graph file.",
                ExitCode.SUMMARY})
final class PlanCommand implements Callable<Integer> {
    /** Size of the {@code --timeline} picture: columns of the arena, rows of positions at most. */
    private static final int TIMELINE_COLUMNS = 64;
    private static final int TIMELINE_ROWS = 40;

    @Spec
    private CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "Graph files (.json) or ONNX models (.onnx).")
    private List<Path> files;

    @Mixin
    private PlanningOptions planning;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "text (a summary per file) or json (one object per file, one per line)"
                    + " (default: ${DEFAULT-VALUE}).")
    private OutputFormat format;

    @Option(names = "--timeline",
            description = "Text format: adds a picture of the arena over time (rows: positions, columns: bytes).")
    private boolean timeline;

    @Option(names = "--require-complete",
            description = "Exit 3 when a plan is deferred (some size is still unknown), after printing it:"
                    + " for scripts that need a number.")
    private boolean requireComplete;

    @Option(names = "--runtime", paramLabel = "memplan|ort", defaultValue = "memplan",
            converter = RuntimeOption.Converter.class,
            description = "The executor whose memory is reported: memplan (the plan's peak; the default) or ort (also"
                    + " ONNX Runtime's CPU arena, predicted for ONNX models from the graph ONNX Runtime runs; needs ONNX"
                    + " Runtime Java, which the build puts in target/lib).")
    private RuntimeOption runtime;

    @Option(names = "--ort-level", paramLabel = "LEVEL", converter = RuntimeOption.LevelConverter.class,
            description = "With --runtime ort: ONNX Runtime's graph optimization level, none, basic, extended or all"
                    + " (default: all, ONNX Runtime's own default).")
    private OrtModel.Level ortLevel;

    @Option(names = "--ort-unmodelled", paramLabel = "refuse|allowance",
            converter = RuntimeOption.UnmodelledConverter.class,
            description = "With --runtime ort: a model whose ONNX Runtime graph runs a kernel memplan has no workspace"
                    + " rule for is refused, naming the kernels (refuse, the default), or predicted with an allowance of"
                    + " each such kernel's inputs and outputs, a guess the report names (allowance).")
    private OrtModel.UnmodelledKernels ortUnmodelled;

    @Override
    public Integer call() {
        Map<String, Long> bindings = planning.bindings();
        Map<String, long[]> values = planning.inputValues(); // a usage error, once, before any file
        ImportOptions importOptions = planning.importOptions(); // so is an input given two sets of dims
        PlanOptions options = planning.planOptions();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        RuntimeFigures figures = runtimeFigures();
        try {
            MemPlan.engineName(options.engine()); // fail once, up front, when native cannot load
        } catch (EngineUnavailableException e) {
            err.println("memplan: " + TerminalText.escape(e.getMessage()));
            return ExitCode.INPUT;
        }
        String unavailable = figures.unavailable(); // once, up front, not per file
        if (unavailable != null) {
            err.println("memplan: " + unavailable);
            return ExitCode.INPUT;
        }
        try (OutputSpool spool = new OutputSpool()) {
            return planAll(bindings, values, options, importOptions, figures, spool, out, err);
        }
    }

    /**
     * {@code --runtime} with its settings: the figures of the executor it names.
     *
     * @throws CommandLine.ParameterException for an ONNX Runtime setting without {@code --runtime ort}
     */
    private RuntimeFigures runtimeFigures() {
        if (runtime != RuntimeOption.ORT && ortLevel != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--ort-level applies to --runtime ort only");
        }
        if (runtime != RuntimeOption.ORT && ortUnmodelled != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--ort-unmodelled applies to --runtime ort only");
        }
        return runtime.figures(ortLevel == null ? OrtModel.Level.ALL : ortLevel,
                ortUnmodelled == null ? OrtModel.UnmodelledKernels.REFUSE : ortUnmodelled,
                planning.importOptions().inputDims());
    }

    /**
     * Plans each file in turn and renders its output into {@code spool} at once, so only one
     * file's plan is in memory at a time; prints the spool only when every file planned.
     */
    private int planAll(Map<String, Long> bindings, Map<String, long[]> values, PlanOptions options,
                        ImportOptions importOptions, RuntimeFigures figures, OutputSpool spool, PrintWriter out,
                        PrintWriter err) {
        boolean verbose = CliErrors.verbose(spec.commandLine().getParseResult());
        List<String> failures = new ArrayList<>();
        List<String> deferred = new ArrayList<>();
        Set<String> known = new LinkedHashSet<>();
        int exit = ExitCode.INPUT;
        for (int i = 0; i < files.size(); i++) {
            Path file = files.get(i);
            String label = file.toString();
            try {
                figures.start(file);
                PlannedFile p = GraphLoader.plan(file, bindings, values, options, importOptions);
                RuntimeFigure figure = figures.figure(p, file);
                if (p.onnx() != null) {
                    ImportedGraph imported = ServerAccess.access().imported(p.onnx());
                    known.addAll(imported.symbols().keySet());
                    imported.valueSymbols().values().forEach(known::addAll); // a value symbol may be bound with --bind too
                } else {
                    known.addAll(p.schedule().graph().symbols().keySet());
                }
                if (!(p.result() instanceof PlanResult.Complete)) {
                    deferred.add(label);
                }
                if (failures.isEmpty()) { // once one file failed, nothing will be printed
                    print(p, figure, i, files.size() > 1, bindings, spool.writer());
                }
            } catch (OutOfMemoryError e) {
                failures.add(CliErrors.outOfMemory(label));
                exit = Math.max(exit, ExitCode.OUT_OF_MEMORY);
                trace(verbose, e, err);
            } catch (RuntimeException e) {
                failures.add(CliErrors.aboutFile(label, e instanceof MemplanException ? e.getMessage()
                        : "internal error; this is a bug: rerun with --verbose and report the output"));
                exit = Math.max(exit, e instanceof InputDimsException ? ExitCode.USAGE // a usage error, as --bind
                        : e instanceof MemplanException ? ExitCode.INPUT : ExitCode.INTERNAL);
                trace(verbose, e, err);
            } catch (IOException e) {
                failures.add(label + ": " + ReadErrors.describe(e));
                trace(verbose, e, err);
            }
        }
        if (!failures.isEmpty()) {
            for (String failure : failures) {
                err.println("memplan: " + TerminalText.escape(failure));
            }
            if (files.size() > 1) {
                err.println("memplan: nothing printed: " + failures.size() + " of " + files.size()
                        + " files could not be planned");
            }
            err.flush();
            return exit;
        }
        String unmatched = unmatchedBindings(bindings, known, files.size());
        if (unmatched != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), unmatched);
        }
        try {
            spool.copyTo(out);
        } catch (UncheckedIOException e) {
            err.println("memplan: cannot write the plans: " + TerminalText.escape(String.valueOf(e.getCause()
                    .getMessage())) + "; check the free space of the temporary directory (java.io.tmpdir)");
            err.flush();
            return ExitCode.INPUT;
        }
        out.flush();
        if (requireComplete && !deferred.isEmpty()) {
            err.println("memplan: " + TerminalText.escape(String.join(", ", deferred)) + ": deferred (a size is"
                    + " still unknown; bind the symbols it lists) and --require-complete was given");
            err.flush();
            return ExitCode.DEFERRED;
        }
        return ExitCode.OK;
    }

    private static void trace(boolean verbose, Throwable e, PrintWriter err) {
        if (verbose) {
            e.printStackTrace(err);
        }
    }

    private void print(PlannedFile p, RuntimeFigure ort, int index, boolean several, Map<String, Long> bindings,
                       PrintWriter out) {
        if (format == OutputFormat.JSON) {
            String file = several ? p.label() : null;
            out.println(p.onnx() == null ? PlanJson.toJson(file, p.schedule(), p.result())
                    : OnnxJson.toJson(file, p.schedule(), p.result(), p.onnx(), ort));
        } else {
            if (index > 0) {
                out.println();
            }
            if (p.onnx() == null) {
                TextReport.write(p, bindings, out);
            } else {
                OnnxTextReport.write(p.label(), p.onnx(), ort, out);
                p.result().asComplete().ifPresent(plan ->
                        out.println("strategies " + StrategyComparison.of(plan, bindings).line()));
            }
            if (timeline && p.result() instanceof PlanResult.Complete c) {
                out.print(Picture.textTimeline(c.plan(), TIMELINE_COLUMNS, TIMELINE_ROWS));
            }
        }
    }

    /**
     * The usage error for {@code --bind}s that match no symbol of any file (most likely a typo,
     * sequence for seq), listing the symbols there are; null when every binding matched.
     */
    private static String unmatchedBindings(Map<String, Long> bindings, Set<String> known, int numFiles) {
        List<String> unmatched = new ArrayList<>();
        for (String symbol : bindings.keySet()) {
            if (!known.contains(symbol)) {
                unmatched.add(symbol);
            }
        }
        if (unmatched.isEmpty()) {
            return null;
        }
        // raw: CliErrors escapes the whole usage message once, so each name reads as --bind takes it
        List<String> symbols = new ArrayList<>(known);
        return "--bind " + String.join(", ", unmatched)
                + (unmatched.size() == 1 ? " matches" : " match") + " no symbol of "
                + (numFiles > 1 ? "any of the graphs" : "the graph")
                + (known.isEmpty() ? " (there are none)" : "; the symbols are " + String.join(", ", symbols));
    }
}
