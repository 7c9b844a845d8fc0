// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.MemplanException;
import dev.memplan.PlanOptions;
import dev.memplan.io.TerminalText;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.ort.OrtModel;
import dev.memplan.ort.ServerSize;
import dev.memplan.ort.internal.OrtRuntimeProfile;
import java.io.PrintWriter;
import java.nio.file.Files;
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
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code memplan size MODEL... --bind S=N... --concurrency K}: the native memory a server process
 * running the models in ONNX Runtime needs beyond its JVM, and the budget to give its
 * {@code MemoryBudget} ({@link ServerSize}). Measures each model in a child JVM.
 */
@Command(name = "size", mixinStandardHelpOptions = true, versionProvider = MemplanCli.Version.class, sortOptions = false,
        description = {"Sizes a server that runs ONNX models in ONNX Runtime under a memplan budget: the native memory"
                + " the process needs beyond its JVM (heap + this = the container's limit), and the budget for its"
                + " MemoryBudget, for K request threads and the longest request. Runs each model in ONNX Runtime in a"
                + " child JVM to measure what cannot be derived.", ExitCode.SUMMARY})
final class SizeCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "MODEL", arity = "1..*", description = "The ONNX models (.onnx) the server runs.")
    private List<Path> models;

    @Option(names = "--bind", paramLabel = "SYM=N", converter = Binding.Converter.class,
            description = "The longest request: binds a symbol of the models to N >= 0. Repeatable; every symbol bound.")
    private List<Binding> binds = new ArrayList<>();

    @Option(names = "--concurrency", paramLabel = "K", required = true,
            description = "Request threads: requests in flight at once, >= 1.")
    private int concurrency;

    @Option(names = "--intra-op-threads", paramLabel = "T", defaultValue = "1",
            description = "ONNX Runtime's intra-op threads per session, >= 1 (default: ${DEFAULT-VALUE}).")
    private int intraOpThreads;

    @Option(names = "--ort-level", paramLabel = "LEVEL", converter = RuntimeOption.LevelConverter.class,
            defaultValue = "all", description = "The sessions' graph optimization level: none, basic, extended or all"
                    + " (default: ${DEFAULT-VALUE}).")
    private OrtModel.Level level;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "text (a table) or json (one object) (default: ${DEFAULT-VALUE}).")
    private OutputFormat format;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Map<String, Long> bindings = bindings();
        if (concurrency < 1 || intraOpThreads < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), (concurrency < 1 ? "--concurrency "
                    + concurrency : "--intra-op-threads " + intraOpThreads) + " is below 1; give at least one thread");
        }
        if (!OrtRuntimeProfile.ortJavaPresent()) {
            err.println("memplan: " + OrtRuntimeProfile.ORT_MISSING + " (the command line reads it from lib/ beside its"
                    + " jar: mvn package puts it there)");
            err.flush();
            return ExitCode.INPUT;
        }
        List<OrtModel> compiled = new ArrayList<>();
        Set<String> known = new LinkedHashSet<>();
        for (Path model : models) {
            try {
                if (!Files.isRegularFile(model)) {
                    throw new MemplanException("no such file; give the path of an .onnx model");
                }
                if (!GraphLoader.isOnnx(model)) {
                    throw new MemplanException("memplan size sizes ONNX models run by ONNX Runtime, and this is not"
                            + " an .onnx file");
                }
                OrtModel ortModel = OrtModel.compile(model, ImportOptions.defaults(), PlanOptions.defaults(), level);
                compiled.add(ortModel);
                known.addAll(ortModel.model().symbols());
            } catch (MemplanException e) {
                return failed(model, e.getMessage(), err);
            }
        }
        List<String> unmatched = bindings.keySet().stream().filter(s -> !known.contains(s)).toList();
        if (!unmatched.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--bind " + String.join(", ", unmatched)
                    + " matches no symbol of the models; their symbols are " + String.join(", ", known));
        }
        ServerSize total = null;
        for (int i = 0; i < compiled.size(); i++) {
            OrtModel model = compiled.get(i);
            Map<String, Long> own = new LinkedHashMap<>();
            for (String symbol : model.model().symbols()) {
                if (!bindings.containsKey(symbol)) {
                    throw new CommandLine.ParameterException(spec.commandLine(), models.get(i) + " has the symbol "
                            + symbol + ", which no --bind gives; bind every symbol to the longest request's value,"
                            + " e.g. --bind " + symbol + "=N");
                }
                own.put(symbol, bindings.get(symbol));
            }
            try {
                ServerSize size = ServerSize.measure(model, own, concurrency, intraOpThreads);
                total = total == null ? size : total.and(size);
            } catch (MemplanException | IllegalArgumentException e) {
                return failed(models.get(i), e.getMessage(), err);
            }
        }
        if (format == OutputFormat.JSON) {
            out.println(SizeReport.json(models, bindings, total));
        } else {
            SizeReport.text(models, bindings, total, out);
        }
        out.flush();
        return ExitCode.OK;
    }

    private static int failed(Path model, String message, PrintWriter err) {
        err.println("memplan: " + TerminalText.escape(CliErrors.aboutFile(model.toString(), message)));
        err.flush();
        return ExitCode.INPUT;
    }

    /** The bindings in the order given; a symbol bound twice to different values is a usage error. */
    private Map<String, Long> bindings() {
        return Binding.toMap(binds, spec.commandLine());
    }
}
