package dev.memplan.cli;

import dev.memplan.ActivationPlan;
import dev.memplan.EngineMode;
import dev.memplan.EngineUnavailableException;
import dev.memplan.MemPlan;
import dev.memplan.MemplanException;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.Strategy;
import dev.memplan.draw.Escape;
import dev.memplan.draw.HtmlWriter;
import dev.memplan.draw.Picture;
import dev.memplan.draw.PictureBuilder;
import dev.memplan.draw.SvgWriter;
import dev.memplan.json.GraphFile;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.ImportedGraph;
import dev.memplan.onnx.OnnxPlan;
import dev.memplan.onnx.OnnxPlanner;
import dev.memplan.onnx.ViewPolicy;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

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
                "Exit codes: 0 drawn, 1 bad input or the plan is deferred, 2 usage."})
final class DrawCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "A graph file (.json) or an ONNX model (.onnx).")
    private Path file;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", required = true,
            description = "Where to write the picture: a .html page or a .svg file.")
    private Path output;

    @Option(names = "--strategy", paramLabel = "STRATEGY", converter = StrategyName.class,
            completionCandidates = StrategyName.class,
            description = "offsets or slots: draw only this plan (default: the page plans both and toggles;"
                    + " an SVG draws the offsets plan).")
    private Strategy strategy;

    @Option(names = "--effort", paramLabel = "N", defaultValue = "" + PlanOptions.DEFAULT_EFFORT,
            description = "Search effort of the offsets planner, in iterations (default: ${DEFAULT-VALUE}).")
    private int effort;

    @Option(names = "--bind", paramLabel = "SYM=N", converter = Binding.Converter.class,
            description = "Binds a symbol (a named dim such as batch or seq) to N >= 0. Repeatable.")
    private List<Binding> binds = new ArrayList<>();

    @Option(names = "--views", paramLabel = "POLICY", defaultValue = "ort", converter = LowerCaseEnums.Views.class,
            completionCandidates = LowerCaseEnums.Views.class,
            description = "ONNX models: which outputs are views: ort, strided or none (default: ${DEFAULT-VALUE}).")
    private ViewPolicy views;

    @Option(names = "--no-fold-constants",
            description = "ONNX models: count the outputs of nodes computed from weights alone as activations.")
    private boolean noFoldConstants;

    @Option(names = "--include-graph-inputs",
            description = "Graph inputs own bytes in the arena too (by default the caller owns them).")
    private boolean includeGraphInputs;

    @Option(names = "--alignment", paramLabel = "N", defaultValue = "1",
            description = "Rounds every owner's size up to a multiple of N bytes (default: ${DEFAULT-VALUE}).")
    private long alignment;

    @Option(names = "--engine", paramLabel = "ENGINE", converter = LowerCaseEnums.Engine.class,
            completionCandidates = LowerCaseEnums.Engine.class,
            description = "auto, native or java (default: the memplan.engine property, else auto).")
    private EngineMode engine;

    @Override
    public Integer call() {
        boolean svg = kind().equals("svg");
        PlanOptions options = options();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<Strategy> strategies = strategy != null ? List.of(strategy)
                : svg ? List.of(Strategy.OFFSETS) : List.of(Strategy.OFFSETS, Strategy.SLOTS);
        String label = Escape.terminal(file.toString());
        try {
            MemPlan.engineName(options.engine());
            Picture picture = picture(strategies, options);
            String text = svg ? SvgWriter.write(picture, picture.layouts().get(0).name()) : HtmlWriter.write(picture);
            Files.writeString(output, text, StandardCharsets.UTF_8);
            out.println("memplan: drew " + picture.owners().size() + " tensors of " + label + " ("
                    + String.join(" and ", picture.layouts().stream().map(l -> l.name()).toList()) + " plan"
                    + (picture.layouts().size() > 1 ? "s" : "") + ") to " + Escape.terminal(output.toString()));
            out.flush();
            return 0;
        } catch (EngineUnavailableException e) {
            err.println("memplan: " + Escape.terminal(e.getMessage()));
        } catch (MemplanException | IllegalArgumentException e) {
            err.println("memplan: " + label + ": " + Escape.terminal(e.getMessage()));
        } catch (NoSuchFileException e) {
            err.println("memplan: " + Escape.terminal(e.getFile()) + ": no such file or folder");
        } catch (AccessDeniedException e) {
            err.println("memplan: " + Escape.terminal(e.getFile()) + ": permission denied");
        } catch (IOException e) {
            err.println("memplan: " + label + ": " + Escape.terminal(e.toString()));
        }
        err.flush();
        return 1;
    }

    /** Loads the file once and plans it with each strategy. */
    private Picture picture(List<Strategy> strategies, PlanOptions options) throws IOException {
        Map<String, Long> bindings = bindings();
        String title = file.getFileName() == null ? file.toString() : file.getFileName().toString();
        if (GraphLoader.isOnnx(file)) {
            ImportedGraph imported = GraphLoader.importOnnx(file, new ImportOptions(!noFoldConstants, views));
            if (!imported.name().isEmpty()) {
                title = title + " (" + imported.name() + ")";
            }
            List<OnnxPlan> plans = new ArrayList<>();
            for (Strategy s : strategies) {
                OnnxPlan plan = OnnxPlanner.plan(imported, bindings, options.withStrategy(s));
                if (!(plan.result() instanceof PlanResult.Complete)) {
                    throw deferred(plan.unboundSymbols());
                }
                plans.add(plan);
            }
            return PictureBuilder.ofOnnx(title, plans);
        }
        GraphFile graph = GraphLoader.load(file);
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
        return PictureBuilder.of(title, bindings, plans);
    }

    private static MemplanException deferred(List<String> unbound) {
        StringBuilder example = new StringBuilder();
        unbound.forEach(s -> example.append(" --bind ").append(s).append("=N"));
        return new MemplanException("the plan is deferred, some tensors have no size: nothing to draw"
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
        throw new CommandLine.ParameterException(spec.commandLine(), "-o " + Escape.terminal(output.toString())
                + ": name a .html file (interactive page) or a .svg file (static picture)");
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
            throw new CommandLine.ParameterException(spec.commandLine(), "--alignment must be >= 1, got " + alignment);
        }
        if (effort < 0 || effort > PlanOptions.MAX_EFFORT) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--effort must be between 0 and "
                    + PlanOptions.MAX_EFFORT + ", got " + effort);
        }
        EngineMode mode;
        try {
            mode = engine != null ? engine : EngineMode.fromSystemProperty();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "-D" + EngineMode.PROPERTY + ": "
                    + e.getMessage());
        }
        return new PlanOptions(includeGraphInputs, alignment, mode, Strategy.OFFSETS, effort);
    }

    /** {@code --strategy offsets|slots}, in lower case in help and errors. */
    static final class StrategyName implements CommandLine.ITypeConverter<Strategy>, Iterable<String> {
        @Override
        public Strategy convert(String text) {
            return LowerCaseEnums.parse(Strategy.class, text);
        }

        @Override
        public Iterator<String> iterator() {
            return List.of("offsets", "slots").iterator();
        }
    }
}
