// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.MemplanException;
import dev.memplan.cli.OnnxPlanJson.SymbolEntry;
import dev.memplan.io.JsonOutput;
import dev.memplan.io.TerminalText;
import dev.memplan.onnx.ImportOptions.ViewPolicy;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.imports.ImportedGraph;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code memplan symbols model.onnx}: the symbols a model's shapes use, which {@code plan --bind}
 * must bind: those the model names, and fresh ones for unnamed or data-dependent dims.
 */
@Command(name = "symbols", mixinStandardHelpOptions = true, versionProvider = MemplanCli.Version.class,
        description = {"Lists the symbols of an ONNX model's shapes: what `memplan plan --bind` binds.",
                ExitCode.SUMMARY})
final class SymbolsCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "MODEL", description = "An ONNX model (.onnx).")
    private Path model;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "text (one symbol per line) or json (an array) (default: ${DEFAULT-VALUE}).")
    private OutputFormat format;

    @Option(names = "--value", paramLabel = "NAME=V[,V...]", converter = InputValue.Converter.class,
            description = "The value of a small integer or bool input, as for plan: the If branches it decides"
                    + " are taken, and the symbols only the other branches use are not listed. Repeatable.")
    private List<InputValue> values = new ArrayList<>();

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<SymbolEntry> symbols;
        try {
            if (!GraphLoader.isOnnx(model)) {
                throw new MemplanException("memplan symbols reads .onnx models; for a .json graph file the symbols"
                        + " are the string dims of its shapes");
            }
            ImportedGraph imported = GraphLoader.importOnnx(model, new ImportOptions(true, ViewPolicy.ORT));
            Map<String, long[]> given = new LinkedHashMap<>();
            values.forEach(v -> given.put(v.input(), v.values()));
            Map<String, Long> valueBindings = GraphLoader.withValues(imported, Map.of(), given);
            ImportedGraph shown = imported.forBindings(valueBindings);
            symbols = OnnxPlanJson.symbols(shown, valueBindings);
            valueSymbols(shown, valueBindings, symbols);
        } catch (MemplanException e) {
            err.println("memplan: " + TerminalText.escape(CliErrors.aboutFile(model.toString(), e.getMessage())));
            err.flush();
            return ExitCode.INPUT;
        }
        if (format == OutputFormat.JSON) {
            ObjectMapper json = JsonOutput.mapper();
            try {
                out.println(json.writeValueAsString(new Listing(model.toString(), symbols)));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("a tree of strings always writes", e);
            }
        } else {
            for (SymbolEntry s : symbols) {
                String derived = s.derived() != null ? " = " + s.derived() : "";
                out.println(TerminalText.escape(s.name() + derived) + "\t" + TerminalText.escape(s.origin()));
            }
        }
        out.flush();
        return ExitCode.OK;
    }

    /** What {@code --format json} prints: the model and its symbols. */
    record Listing(String model, List<SymbolEntry> symbols) {
    }

    /**
     * Says which listed symbols are input values, and lists those only If conditions read (no shape
     * uses them, but giving them decides a branch).
     */
    private static void valueSymbols(ImportedGraph imported, Map<String, Long> bound, List<SymbolEntry> symbols) {
        Map<String, String> origins = new LinkedHashMap<>();
        imported.valueSymbols().forEach((input, names) -> names.forEach(n -> origins.put(n, "value of input '"
                + input + "': give it with --value " + input + "=" + (names.size() == 1 ? "N" : "N,N,..."))));
        for (int i = 0; i < symbols.size(); i++) {
            String origin = origins.remove(symbols.get(i).name());
            if (origin != null) {
                symbols.set(i, symbols.get(i).withOrigin(origin));
            }
        }
        String conditions = String.join(", ", imported.openConditions().values());
        origins.forEach((name, origin) -> {
            if (conditions.contains(name)) {
                symbols.add(new SymbolEntry(name, bound.get(name), null, origin + "; an If condition reads it ("
                        + conditions + ")"));
            }
        });
    }
}
