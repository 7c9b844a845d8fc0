// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.ActivationPlan;
import dev.memplan.EngineUnavailableException;
import dev.memplan.MemPlan;
import dev.memplan.MemplanException;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.draw.Picture;
import dev.memplan.io.TerminalText;
import dev.memplan.json.GraphJson;
import dev.memplan.onnx.InputDimsException;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.internal.OnnxPlanner;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code memplan draw FILE -o OUT}: plans a graph file and draws the plan: a self-contained
 * interactive page ({@code .html}) or a static picture ({@code .svg}). For the page both strategies
 * are planned unless {@code --strategy} picks one, so the page can toggle between them.
 */
@Command(name = "draw", mixinStandardHelpOptions = true, versionProvider = MemplanCli.Version.class,
        sortOptions = false,
        description = {"Draws the activation plan of a graph file: time (execution position) against"
                + " memory (offset in the arena, or slot lane), one rectangle per tensor.",
                "OUT ending in .html: a self-contained interactive page (no network needed);"
                        + " ending in .svg: a static picture for documents.",
                ExitCode.SUMMARY})
final class DrawCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "A graph file (.json) or an ONNX model (.onnx).")
    private Path file;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", required = true,
            description = "Where to write the picture: a .html page or a .svg file.")
    private Path output;

    @Mixin
    private PlanningOptions planning;

    @Override
    public Integer call() {
        boolean svg = kind().equals("svg");
        Map<String, Long> bindings = planning.bindings();
        planning.importOptions(); // an input given two sets of dims is a usage error, before the file is read
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<Strategy> strategies = planning.strategy().given().map(List::of)
                .orElse(svg ? List.of(Strategy.OFFSETS) : List.of(Strategy.OFFSETS, Strategy.SLOTS));
        // The strategies of one picture share one schedule's tensors: in-place reuse is decided
        // once, by the first strategy (on for offsets unless --in-place off), for all of them.
        PlanOptions first = planning.planOptions().withStrategy(strategies.get(0));
        PlanOptions options = first.withInPlace(first.inPlaceEnabled());
        String label = file.toString(); // escaped where printed, once
        try {
            MemPlan.engineName(options.engine()); // fail once, up front, when native cannot load
            Picture picture = picture(strategies, bindings, options);
            String text = svg ? picture.svg() : picture.html();
            try {
                Files.writeString(output, text, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return fail(err, "cannot write " + output + ": " + ReadErrors.describeWrite(e), ExitCode.INPUT, e);
            }
            out.println("memplan: drew " + picture.tensors() + " tensors of " + TerminalText.escape(label) + " ("
                    + String.join(" and ", picture.layouts()) + " plan"
                    + (picture.layouts().size() > 1 ? "s" : "") + ") to " + TerminalText.escape(output.toString()));
            out.flush();
            return ExitCode.OK;
        } catch (EngineUnavailableException e) {
            return fail(err, e.getMessage(), ExitCode.INPUT, e);
        } catch (DeferredPlanException e) {
            return fail(err, CliErrors.aboutFile(label, e.getMessage()), ExitCode.DEFERRED, null);
        } catch (InputDimsException e) {
            return fail(err, CliErrors.aboutFile(label, e.getMessage()), ExitCode.USAGE, e);
        } catch (MemplanException | IllegalArgumentException e) {
            return fail(err, CliErrors.aboutFile(label, e.getMessage()), ExitCode.INPUT, e);
        } catch (IOException e) {
            return fail(err, label + ": " + ReadErrors.describe(e), ExitCode.INPUT, e);
        }
    }

    /** One escaped line; with {@code --verbose}, the stack trace of {@code cause} after it. */
    private int fail(PrintWriter err, String problem, int exit, Throwable cause) {
        err.println("memplan: " + TerminalText.escape(problem));
        if (cause != null && CliErrors.verbose(spec.commandLine().getParseResult())) {
            cause.printStackTrace(err);
        }
        err.flush();
        return exit;
    }

    /** Loads the file once and plans it with each strategy. */
    private Picture picture(List<Strategy> strategies, Map<String, Long> bindings, PlanOptions options)
            throws IOException {
        String title = file.getFileName() == null ? file.toString() : file.getFileName().toString();
        if (GraphLoader.isOnnx(file)) {
            ImportedGraph imported = GraphLoader.importOnnx(file, planning.importOptions());
            if (!imported.name().isEmpty()) {
                title = title + " (" + imported.name() + ")";
            }
            Map<String, Long> withValues = GraphLoader.withValues(imported, bindings, planning.inputValues());
            List<OnnxPlan> plans = new ArrayList<>();
            for (Strategy s : strategies) {
                OnnxPlan plan = OnnxPlanner.plan(imported, withValues, options.withStrategy(s));
                if (!(plan.result() instanceof PlanResult.Complete)) {
                    throw deferred(plan.unboundSymbols());
                }
                plans.add(plan);
            }
            return Picture.ofOnnx(title, plans);
        }
        if (!planning.inputValues().isEmpty()) {
            throw new MemplanException("--value gives the inputs of ONNX models; this is a graph file, whose"
                    + " sizes only symbols give (use --bind)");
        }
        GraphJson.GraphFile graph = GraphLoader.load(file);
        List<ActivationPlan> plans = new ArrayList<>();
        for (Strategy s : strategies) {
            Schedule schedule = MemPlan.compile(graph.graph(), graph.views(), options.withStrategy(s));
            PlanResult result = schedule.plan(bindings);
            if (!(result instanceof PlanResult.Complete c)) {
                List<String> unbound = new ArrayList<>();
                graph.graph().symbols().keySet().stream().filter(k -> !bindings.containsKey(k)).forEach(unbound::add);
                throw deferred(unbound);
            }
            plans.add(c.plan());
        }
        return Picture.of(title, bindings, plans);
    }

    private static DeferredPlanException deferred(List<String> unbound) {
        StringBuilder example = new StringBuilder();
        unbound.forEach(s -> example.append(" --bind ").append(s).append("=N"));
        return new DeferredPlanException("the plan is deferred, some tensors have no size: nothing to draw"
                + (unbound.isEmpty() ? "" : "; bind " + String.join(", ", unbound) + " (e.g." + example + ")"));
    }

    /** {@code html} or {@code svg}, from the output's extension; anything else is a usage error. */
    private String kind() {
        String name = output.getFileName() == null ? "" : output.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".html") || name.endsWith(".htm")) {
            return "html";
        }
        if (name.endsWith(".svg")) {
            return "svg";
        }
        // CliErrors escapes the whole usage message once
        throw new CommandLine.ParameterException(spec.commandLine(), "-o " + output
                + ": name a .html file (interactive page) or a .svg file (static picture)");
    }

    /** A plan that cannot be drawn because a size is still unknown: exit 3, as for plan --require-complete. */
    private static final class DeferredPlanException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DeferredPlanException(String message) {
            super(message, null, false, false);
        }
    }
}
