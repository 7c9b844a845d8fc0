// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.ActivationPlan;
import dev.memplan.EngineMode;
import dev.memplan.EngineUnavailableException;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.json.Examples;
import dev.memplan.json.GraphJson;
import dev.memplan.testing.PlanChecks;
import dev.memplan.json.PlanJson;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

@EngineIndependent
class PlanCommandTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String VIEWS = "examples/views.json";
    private static final String BLOCK = "examples/transformer_block.json";
    private static final String RESNET = "examples/resnet_block.json";

    static List<Path> examples() {
        return Examples.all();
    }

    /** What the API plans for {@code file}: the reference the command line must print. */
    private static Planned api(String file, PlanOptions options, Map<String, Long> bindings) throws IOException {
        GraphJson.GraphFile gf = GraphJson.read(Path.of(file));
        Schedule s = MemPlan.compile(gf.graph(), gf.views(), options);
        PlanResult r = s.plan(bindings);
        r.asComplete().ifPresent(PlanChecks::validate);
        return new Planned(s, r);
    }

    private record Planned(Schedule schedule, PlanResult result) {
        String json(String label) {
            return PlanJson.toJson(label, schedule, result);
        }
    }

    static Stream<Arguments> examplesAndStrategies() {
        return examples().stream().flatMap(f -> Stream.of(Strategy.values()).map(s -> Arguments.of(f, s)));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("examplesAndStrategies")
    void textSummaryOfEachExample(Path file, Strategy strategy) throws IOException {
        Planned p = api(file.toString(), PlanOptions.defaults().withStrategy(strategy), Examples.BINDINGS);
        Strategy other = strategy == Strategy.SLOTS ? Strategy.OFFSETS : Strategy.SLOTS;
        ActivationPlan otherPlan = api(file.toString(), PlanOptions.defaults().withStrategy(other), Examples.BINDINGS)
                .result().orElseThrow();
        List<String> args = new ArrayList<>(List.of("plan", "--strategy", strategy.toString(), file.toString()));
        for (String symbol : p.schedule().graph().symbols().keySet()) {
            args.addAll(List.of("--bind", symbol + "=" + Examples.BINDINGS.get(symbol)));
        }
        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertEquals(0, run.exit(), run.toString());
        assertEquals("", run.err(), run.toString());
        var plan = p.result().orElseThrow();
        assertTrue(run.out().startsWith(file + ": complete plan (engine " + plan.engine() + ")\n"), run.toString());
        assertTrue(run.out().contains("  nodes " + p.schedule().graph().nodeCount() + ", owners "
                + p.schedule().numOwners() + (strategy == Strategy.SLOTS ? ", slots " + plan.numSlots() : "") + "\n"),
                run.toString());
        assertTrue(run.out().contains("  strategy     " + strategy), run.toString());
        ActivationPlan offsets = strategy == Strategy.OFFSETS ? plan : otherPlan;
        ActivationPlan slots = strategy == Strategy.SLOTS ? plan : otherPlan;
        assertTrue(run.out().contains(String.format(Locale.ROOT, "  offsets peak %,d B, slots peak %,d B, bound %,d B\n",
                offsets.peakBytes(), slots.peakBytes(), plan.lowerBoundBytes())), run.toString());
        assertTrue(run.out().contains(String.format(Locale.ROOT, "%,d B", plan.peakBytes())), run.toString());
        assertTrue(run.out().contains(String.format(Locale.ROOT, "%,d B", plan.naiveBytes())), run.toString());
        assertTrue(run.out().contains(String.format(Locale.ROOT, "%,d B", plan.lowerBoundBytes())), run.toString());
        assertTrue(run.out().contains(String.format(Locale.ROOT, "savings      %.1f%%", 100 * plan.savingsRatio())));
        assertEquals(plan.numSlots(), run.out().lines().filter(l -> l.startsWith("  slot ")).count());
    }

    @Test
    void jsonOfOneFileIsTheApiPlan() throws IOException {
        CliRun run = CliRun.of("plan", "--format", "json", VIEWS);
        assertEquals(0, run.exit(), run.toString());
        assertEquals(api(VIEWS, PlanOptions.defaults(), Map.of()).json(null) + "\n", run.out());
        assertFalse(run.out().contains("\"file\""));
    }

    @Test
    void bindingsPlanTheSymbolicExample() throws IOException {
        CliRun run = CliRun.of("plan", "--bind", "batch=2", "--bind", "seq=128", "--format", "json", BLOCK);
        assertEquals(0, run.exit(), run.toString());
        Planned expected = api(BLOCK, PlanOptions.defaults(), Map.of("batch", 2L, "seq", 128L));
        assertTrue(expected.result().isComplete());
        assertEquals(expected.json(null) + "\n", run.out());
        assertEquals("complete", MAPPER.readTree(run.out()).get("status").asText());
    }

    @Test
    void anInputValueGivenTwiceIsAUsageErrorNamedOnceNotAnInternalError() {
        CliRun run = CliRun.of("plan", "--value", "batch=9223372036854775807", "--value", "batch=2", BLOCK, BLOCK);
        assertEquals(ExitCode.USAGE, run.exit(), run.toString());
        assertTrue(run.err().contains("--value batch is given twice"), run.toString());
        assertFalse(run.err().contains("internal error"), run.toString());
        assertEquals(1, run.err().lines().filter(l -> l.contains("given twice")).count(), run.toString());
    }

    @Test
    void withoutBindingsTheSymbolicExampleDefers() throws IOException {
        CliRun json = CliRun.of("plan", "--format", "json", BLOCK);
        assertEquals(0, json.exit(), json.toString());
        assertEquals(api(BLOCK, PlanOptions.defaults(), Map.of()).json(null) + "\n", json.out());
        assertEquals("deferred", MAPPER.readTree(json.out()).get("status").asText());

        CliRun text = CliRun.of("plan", "--bind", "batch=4", BLOCK);
        assertEquals(0, text.exit(), text.toString());
        Schedule s = api(BLOCK, PlanOptions.defaults(), Map.of()).schedule();
        assertTrue(text.out().startsWith(BLOCK + ": deferred, " + s.numOwners() + " of " + s.numOwners()
                + " owners have no size yet (engine " + s.engine() + ")\n"), text.toString());
        assertTrue(text.out().contains("  bound:        batch=4\n"), text.toString());
        assertTrue(text.out().contains("  to bind:      seq   (e.g. --bind seq=N)\n"), text.toString());
        assertTrue(text.out().contains("  no size:      ln1_out, qkv, "), text.toString());
    }

    @Test
    void severalFilesPrintOneJsonLinePerFileInArgumentOrder() throws IOException {
        for (List<String> files : List.of(List.of(VIEWS, BLOCK, RESNET), List.of(RESNET, VIEWS, BLOCK))) {
            List<String> args = new ArrayList<>(List.of("plan", "--format", "json", "--bind", "seq=64"));
            args.addAll(files);
            CliRun run = CliRun.of(args.toArray(String[]::new));
            assertEquals(0, run.exit(), run.toString());
            String[] lines = run.lines();
            assertEquals(files.size() + 1, lines.length, run.toString());
            assertEquals("", lines[files.size()], "the output ends with a newline");
            for (int i = 0; i < files.size(); i++) {
                JsonNode doc = MAPPER.readTree(lines[i]);
                assertEquals("file", doc.fieldNames().next());
                assertEquals(files.get(i), doc.get("file").asText());
                assertEquals(api(files.get(i), PlanOptions.defaults(), Map.of("seq", 64L)).json(files.get(i)), lines[i]);
            }
        }
    }

    @Test
    void strategyAndEffortChooseThePlan() throws IOException {
        for (String spelling : List.of("slots", "SLOTS", "Slots")) {
            CliRun run = CliRun.of("plan", "--strategy", spelling, "--format", "json", RESNET);
            assertEquals(0, run.exit(), run.toString());
            assertEquals(api(RESNET, PlanOptions.defaults().withStrategy(Strategy.SLOTS), Map.of()).json(null) + "\n",
                    run.out());
            assertEquals("slots", MAPPER.readTree(run.out()).get("strategy").asText());
        }
        CliRun byDefault = CliRun.of("plan", "--format", "json", RESNET);
        assertEquals("offsets", MAPPER.readTree(byDefault.out()).get("strategy").asText(), "offsets is the default");
        assertFalse(byDefault.out().contains("\"slot\""), byDefault.toString());
        for (int effort : new int[] {0, 3, PlanOptions.MAX_EFFORT}) {
            CliRun run = CliRun.of("plan", "--effort", Integer.toString(effort), "--format", "json", RESNET);
            assertEquals(0, run.exit(), run.toString());
            assertEquals(api(RESNET, PlanOptions.defaults().withEffort(effort), Map.of()).json(null) + "\n", run.out());
        }
    }

    @Test
    void severalFilesInTextAreBlocksInArgumentOrder() {
        CliRun run = CliRun.of("plan", RESNET, VIEWS);
        assertEquals(0, run.exit(), run.toString());
        String[] blocks = run.out().split("\n\n");
        assertEquals(2, blocks.length, run.toString());
        assertTrue(blocks[0].startsWith(RESNET + ": complete plan"));
        assertTrue(blocks[1].startsWith(VIEWS + ": complete plan"));
    }

    @ParameterizedTest
    @CsvSource({"json", "text"})
    void javaAndNativeEnginesPrintTheSamePlan(String format) throws IOException {
        assumeTrue(nativeLoads(), "the native engine does not load on this platform");
        for (String file : List.of(VIEWS, BLOCK, RESNET)) {
            // only the symbols the file has: a --bind that matches none is a usage error
            List<String> binds = new ArrayList<>();
            for (String symbol : GraphJson.read(Path.of(file)).graph().symbols().keySet()) {
                binds.addAll(List.of("--bind", symbol + "=" + (symbol.equals("batch") ? 3 : 77)));
            }
            List<String> common = new ArrayList<>(List.of("plan", "--format", format));
            common.addAll(binds);
            common.add(file);
            List<String> javaArgs = new ArrayList<>(common);
            javaArgs.addAll(1, List.of("--engine", "java"));
            List<String> nativeArgs = new ArrayList<>(common);
            nativeArgs.addAll(1, List.of("--engine", "NATIVE"));
            CliRun java = CliRun.of(javaArgs.toArray(String[]::new));
            CliRun nat = CliRun.of(nativeArgs.toArray(String[]::new));
            assertEquals(0, java.exit(), java.toString());
            assertEquals(0, nat.exit(), nat.toString());
            String marker = format.equals("json") ? "\"engine\":\"%s\"" : "(engine %s)";
            assertTrue(java.out().contains(String.format(marker, "java")), java.toString());
            assertTrue(nat.out().contains(String.format(marker, "native")), nat.toString());
            assertEquals(java.out().replace(String.format(marker, "java"), String.format(marker, "native")), nat.out());
        }
    }

    @Test
    void alignmentRoundsEveryOwner() throws IOException {
        CliRun run = CliRun.of("plan", "--alignment", "4096", "--format", "json", RESNET);
        assertEquals(0, run.exit(), run.toString());
        assertEquals(api(RESNET, PlanOptions.defaults().withAlignment(4096), Map.of()).json(null) + "\n", run.out());
        for (JsonNode owner : MAPPER.readTree(run.out()).get("owners")) {
            assertEquals(0, owner.get("bytes").asLong() % 4096, owner.toString());
        }
    }

    @Test
    void includeGraphInputsGivesInputsSlots() throws IOException {
        CliRun run = CliRun.of("plan", "--include-graph-inputs", "--format", "json", VIEWS);
        assertEquals(0, run.exit(), run.toString());
        assertEquals(api(VIEWS, PlanOptions.defaults().withIncludeGraphInputs(true), Map.of()).json(null) + "\n",
                run.out());
        JsonNode first = MAPPER.readTree(run.out()).get("owners").get(0);
        assertEquals("x", first.get("value").asText());
        assertEquals(0, first.get("def").asInt());
        CliRun without = CliRun.of("plan", "--format", "json", VIEWS);
        assertFalse(without.out().contains("\"value\":\"x\""));
    }

    @Test
    void stringTensorsDeferWithoutSymbolsToBind(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("tokens.json"), "{\"values\":["
                + "{\"name\":\"ids\",\"dtype\":\"int64\",\"shape\":[8]},"
                + "{\"name\":\"words\",\"dtype\":\"string\",\"shape\":[8]}],"
                + "\"inputs\":[\"ids\"],\"outputs\":[\"words\"],"
                + "\"nodes\":[{\"name\":\"lookup\",\"op\":\"LabelEncoder\",\"domain\":\"ai.onnx.ml\","
                + "\"inputs\":[\"ids\"],\"outputs\":[\"words\"]}]}");
        CliRun run = CliRun.of("plan", file.toString());
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("  no size:      words\n"), run.toString());
        assertTrue(run.out().contains("  no fixed width, so no static size: words (string)\n"), run.toString());
        assertFalse(run.out().contains("to bind"), run.toString());
    }

    @Test
    void aBindingThatMatchesNoSymbolIsAUsageError() {
        // a typo in --bind used to be a warning with exit 0, which scripts never notice
        CliRun run = CliRun.of("plan", "--bind", "sequence=128", "--bind", "batch=1", BLOCK);
        assertEquals(2, run.exit(), run.toString());
        assertEquals("", run.out(), run.toString());
        assertEquals("memplan plan: --bind sequence matches no symbol of the graph; the symbols are batch, seq;"
                + " see 'memplan plan --help'\n", run.err());
    }

    // ---- exit 1: bad input. Message on stderr naming the file, nothing on stdout.

    @Test
    void malformedFile(@TempDir Path dir) throws IOException {
        Path bad = dir.resolve("bad.json");
        String line2 = "  {\"name\": \"x\",, \"dtype\": \"float32\"}";
        Files.writeString(bad, "{\"values\": [\n" + line2 + "\n], \"nodes\": []}\n");
        CliRun run = CliRun.of("plan", bad.toString());
        assertEquals(1, run.exit(), run.toString());
        assertEquals("", run.out());
        assertTrue(run.err().startsWith("memplan: " + bad + ": line 2, column " + (line2.indexOf(",,") + 2)
                + " ($.values[0].name): malformed JSON: "
                + "Unexpected character (','"), run.toString());
    }

    @Test
    void missingFileUnsupportedTypeAndBadGraph(@TempDir Path dir) throws IOException {
        CliRun missing = CliRun.of("plan", dir.resolve("nope.json").toString());
        assertEquals(1, missing.exit());
        assertEquals("", missing.out());
        assertEquals("memplan: " + dir.resolve("nope.json") + ": no such file\n", missing.err());

        Path text = Files.writeString(dir.resolve("model.txt"), "not really");
        CliRun unsupported = CliRun.of("plan", text.toString());
        assertEquals(1, unsupported.exit());
        assertEquals("memplan: " + text + ": unsupported file type: memplan cannot read '.txt' files;"
                + " give it a .json graph file or an .onnx model\n", unsupported.err());

        Path onnx = Files.writeString(dir.resolve("model.onnx"), "not really");
        CliRun notOnnx = CliRun.of("plan", onnx.toString());
        assertEquals(1, notOnnx.exit());
        assertEquals("", notOnnx.out());
        assertTrue(notOnnx.err().startsWith("memplan: " + onnx + " is not a readable ONNX model"), notOnnx.err());

        Path view = Files.writeString(dir.resolve("view.JSON"), "{\"values\":["
                + "{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[4]},{\"name\":\"y\",\"dtype\":\"float32\",\"shape\":[4]}],"
                + "\"inputs\":[\"x\"],\"outputs\":[\"y\"],"
                + "\"nodes\":[{\"op\":\"Relu\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}],\"views\":{\"x\":\"y\"}}");
        CliRun viewRule = CliRun.of("plan", view.toString());
        assertEquals(1, viewRule.exit());
        assertEquals("", viewRule.out());
        assertEquals("memplan: " + view + ": view 'x' (value 0) is a graph input; only node outputs can be views\n",
                viewRule.err());
    }

    @Test
    void oneBadFileAmongSeveralPrintsNothing(@TempDir Path dir) throws IOException {
        String dup = "{\"values\":[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[1]},"
                + "{\"name\":\"x\",\"dtype\":\"int8\",\"shape\":[1]}],\"nodes\":[]}";
        Path bad = Files.writeString(dir.resolve("dup.json"), dup);
        int column = dup.indexOf("\"x\",\"dtype\":\"int8\"") + 1;
        for (String format : List.of("json", "text")) {
            CliRun run = CliRun.of("plan", "--format", format, VIEWS, bad.toString(), RESNET);
            assertEquals(1, run.exit(), run.toString());
            assertEquals("", run.out(), run.toString());
            assertEquals("memplan: " + bad + ": line 1, column " + column + " ($.values[1].name): value name 'x' is already"
                    + " declared at $.values[0]; value names must be unique\n"
                    + "memplan: nothing printed: 1 of 3 files could not be planned\n", run.err());
        }
        CliRun two = CliRun.of("plan", bad.toString(), "missing.json");
        assertEquals(1, two.exit());
        assertEquals(3, two.err().lines().count(), two.toString());
        assertTrue(two.err().contains("memplan: missing.json: no such file\n"));
    }

    // ---- exit 2: usage. One line on stderr (the reason, then "see --help"), nothing on stdout.

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--bind seq               | 'seq' is not SYM=N; write the symbol, '=' and a whole number, e.g. seq=128",
            "--bind =3                | '=3' is not SYM=N",
            "--bind seq=              | 'seq=' is not SYM=N",
            "--bind seq=abc           | 'abc' in 'seq=abc' is not a whole number; write e.g. seq=128",
            "--bind seq=1.5           | '1.5' in 'seq=1.5' is not a whole number",
            "--bind seq=-1            | 'seq=-1' binds seq to a negative number; a dim is >= 0",
            "--bind seq=1 --bind seq=2 | --bind seq is given twice, as 1 and 2; bind each symbol once",
            "--alignment 0            | --alignment must be >= 1, got 0",
            "--alignment x            | Invalid value for option '--alignment': 'x' is not a long",
            "--engine fast            | Invalid value for option '--engine': expected one of [auto, native, java] but was 'fast'",
            "--format xml             | Invalid value for option '--format': expected one of [text, json] but was 'xml'",
            "--strategy best          | Invalid value for option '--strategy': expected one of [offsets, slots] but was 'best'",
            "--effort -1              | --effort must be in [0, 1000], got -1",
            "--effort 1001            | --effort must be in [0, 1000], got 1001",
            "--effort lots            | Invalid value for option '--effort': 'lots' is not an int",
            "--verbosity              | Unknown option: '--verbosity'"})
    void usageErrors(String options, String message) {
        List<String> args = new ArrayList<>(List.of("plan"));
        args.addAll(List.of(options.trim().split(" +")));
        args.add(VIEWS);
        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertEquals(2, run.exit(), run.toString());
        assertEquals("", run.out(), run.toString());
        assertTrue(run.err().contains(message), run.toString());
        // a bad option: one line and where to look, not 25 lines of help
        assertTrue(run.err().startsWith("memplan plan: ") && run.err().endsWith("; see 'memplan plan --help'\n")
                && run.err().indexOf('\n') == run.err().length() - 1, run.toString());
    }

    @Test
    void missingFileOrSubcommandIsUsage() {
        CliRun noFile = CliRun.of("plan", "--format", "json");
        assertEquals(2, noFile.exit(), noFile.toString());
        assertEquals("memplan plan: Missing required parameter: 'FILE'; see 'memplan plan --help'\n", noFile.err());
        assertEquals("", noFile.out());

        CliRun nothing = CliRun.of();
        assertEquals(2, nothing.exit(), nothing.toString());
        assertEquals("memplan: Missing required subcommand; see 'memplan --help'\n", nothing.err());

        CliRun unknown = CliRun.of("simulate", VIEWS);
        assertEquals(2, unknown.exit(), unknown.toString());
    }

    @Test
    void helpAndVersion() {
        CliRun help = CliRun.of("plan", "--help");
        assertEquals(0, help.exit());
        for (String option : List.of("FILE...", "--bind=SYM=N", "--include-graph-inputs", "--alignment=N",
                "--engine=ENGINE", "--format=FORMAT", "--strategy=STRATEGY", "--effort=N", "--require-complete",
                "--verbose", "Exit codes: 0 done")) {
            assertTrue(help.out().contains(option), option + " in\n" + help.out());
        }
        CliRun top = CliRun.of("--help");
        assertEquals(0, top.exit());
        assertTrue(top.out().contains("plan"), top.out());
        for (String[] args : List.of(new String[] {"--version"}, new String[] {"plan", "--version"})) {
            CliRun version = CliRun.of(args);
            assertEquals(0, version.exit());
            assertTrue(version.out().startsWith("memplan "), version.out());
        }
    }

    @Test
    void textBytesAreReadable() {
        assertEquals("512 B", TextReport.bytes(512, 3));
        assertEquals("    1,024 B  1.00 KiB", TextReport.bytes(1024, 9));
        assertEquals("1,572,864 B  1.50 MiB", TextReport.bytes(1_572_864, 9));
    }

    private static boolean nativeLoads() {
        try {
            MemPlan.engineName(EngineMode.NATIVE);
            return true;
        } catch (EngineUnavailableException e) {
            return false;
        }
    }
}
