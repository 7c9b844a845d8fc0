// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.io.TerminalText;
import dev.memplan.onnx.TestOnnxModels;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The cases that a careless or hostile user hits at the command line: each failed on
 * the main of the time (hang, stack trace, forged line, wrong exit code) and must not again.
 */
@EngineIndependent
class HostileInputTest {
    private static final Duration PROMPTLY = Duration.ofSeconds(5);

    /** {@code input -> Relu -> hidden -> Relu -> output}, each of shape {@code [symbol, 64]}. */
    static String graph(String input, String hidden, String output, String symbol) throws IOException {
        return graph(input, hidden, output, symbol, symbol);
    }

    /** The same graph, with the output's first dim {@code outputSymbol}. */
    static String graph(String input, String hidden, String output, String symbol, String outputSymbol)
            throws IOException {
        ObjectMapper m = new ObjectMapper();
        String in = m.writeValueAsString(input);
        String hid = m.writeValueAsString(hidden);
        String out = m.writeValueAsString(output);
        String sym = m.writeValueAsString(symbol);
        return "{\"values\": ["
                + "{\"name\":" + in + ",\"dtype\":\"float32\",\"shape\":[" + sym + ",64]},"
                + "{\"name\":" + hid + ",\"dtype\":\"float32\",\"shape\":[" + sym + ",64]},"
                + "{\"name\":" + out + ",\"dtype\":\"float32\",\"shape\":[" + m.writeValueAsString(outputSymbol)
                + ",64]}],"
                + "\"inputs\":[" + in + "],\"outputs\":[" + out + "],"
                + "\"nodes\":[{\"op\":\"Relu\",\"inputs\":[" + in + "],\"outputs\":[" + hid + "]},"
                + "{\"op\":\"Relu\",\"inputs\":[" + hid + "],\"outputs\":[" + out + "]}]}";
    }

    /** The checks every failing run must pass: exit code, one line, no trace, nothing on stdout. */
    static void assertOneLineFailure(CliRun run, int exit, String... fragments) {
        assertEquals(exit, run.exit(), run::toString);
        assertEquals("", run.out(), run::toString);
        assertTrue(run.err().endsWith("\n") && run.err().indexOf('\n') == run.err().length() - 1,
                "one line: " + run);
        assertFalse(run.err().contains("\tat ") || run.err().contains("Exception") || run.err().contains("java."),
                "no stack trace or Java class name: " + run);
        for (String f : fragments) {
            assertTrue(run.err().contains(f), "'" + f + "' in: " + run);
        }
    }

    private static CliRun promptly(String... args) {
        return assertTimeoutPreemptively(PROMPTLY, () -> CliRun.of(args), "memplan " + String.join(" ", args));
    }

    // ---- case 1: special files are refused at once, never blocked on

    @ParameterizedTest
    @ValueSource(strings = {"g.json", "g.onnx"})
    void aFifoIsRefusedAtOnce(String name, @TempDir Path dir) throws Exception {
        Path fifo = dir.resolve(name);
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeTrue(mk.waitFor() == 0, "mkfifo is not available here");
        CliRun run = promptly("plan", fifo.toString());
        assertOneLineFailure(run, ExitCode.INPUT, fifo.toString(), "not a regular file");
        if (name.endsWith(".onnx")) {
            assertOneLineFailure(promptly("symbols", fifo.toString()), ExitCode.INPUT, "not a regular file");
        }
    }

    @Test
    void packRefusesAFifoToo(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("p.csv");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeTrue(mk.waitFor() == 0, "mkfifo is not available here");
        CliRun run = promptly("pack", fifo.toString());
        assertOneLineFailure(run, ExitCode.INPUT, "not a regular file");
    }

    @ParameterizedTest
    @ValueSource(strings = {"plan", "draw", "symbols"})
    void aCorruptModelIsNamedOnce(String command, @TempDir Path dir) throws IOException {
        Path model = Files.write(dir.resolve("zebra\u001b[31m.onnx"), new byte[] {(byte) 0xFF, 0x01, 0x02});
        CliRun run = command.equals("draw")
                ? promptly(command, model.toString(), "-o", dir.resolve("p.html").toString())
                : promptly(command, model.toString());
        assertOneLineFailure(run, ExitCode.INPUT, "is not a readable ONNX model");
        assertTrue(run.err().contains(TerminalText.escape(model.toString())), "the name escaped once: " + run);
        int first = run.err().indexOf("zebra");
        assertTrue(run.err().indexOf("zebra", first + 1) < 0, "the file named once: " + run);
        assertFalse(run.err().contains("\u001b"), "no raw escape character: " + run);
    }

    @Test
    void directoriesAndDevicesAreRefused(@TempDir Path dir) throws IOException {
        Path folder = Files.createDirectory(dir.resolve("d.json"));
        assertOneLineFailure(promptly("plan", folder.toString()), ExitCode.INPUT, "is a directory");
        Path onnxFolder = Files.createDirectory(dir.resolve("d.onnx"));
        assertOneLineFailure(promptly("plan", onnxFolder.toString()), ExitCode.INPUT, "is a directory");
        Path zero = Path.of("/dev/zero");
        assumeTrue(Files.exists(zero), "no /dev/zero here");
        Path endless = Files.createSymbolicLink(dir.resolve("z.json"), zero);
        assertOneLineFailure(promptly("plan", endless.toString()), ExitCode.INPUT, "not a regular file");
    }

    // ---- case 3: demo with a huge batch: one line, not half a table and a stack trace

    @Test
    void demoWithAHugeBatchIsOneLine() {
        CliRun run = promptly("demo", "--engine", "java", "--batch", "1000000000");
        assertOneLineFailure(run, ExitCode.USAGE, "--batch 1000000000 is too large", "give a smaller --batch");
    }

    // ---- case 5: names from input files never reach the terminal raw

    @Test
    void controlCharactersInNamesAreEscapedInTextOutput(@TempDir Path dir) throws IOException {
        String evil = "h\u001b[31mRED\nforged: complete plan\u0007";
        Path file = dir.resolve("g.json");
        Files.writeString(file, graph("x", evil, "y\r\u009b2J", "batch"));
        // a slots plan's text lists the owners of each slot by name
        CliRun run = promptly("plan", "--strategy", "slots", "--bind", "batch=2", file.toString());
        assertEquals(0, run.exit(), run::toString);
        assertFalse(run.out().chars().anyMatch(c -> c == 0x1b || c == 7 || c == '\r' || c == 0x9b),
                "no raw control character: " + run);
        assertTrue(run.out().contains("h\\x1b[31mRED\\nforged: complete plan\\x07"), run::toString);
        assertFalse(run.out().lines().anyMatch(l -> l.startsWith("forged")), "no forged line: " + run);
        // deferred: the "no size" line lists the names
        CliRun deferred = promptly("plan", file.toString());
        assertEquals(0, deferred.exit(), deferred::toString);
        assertFalse(deferred.out().chars().anyMatch(c -> c == 0x1b), deferred::toString);
        assertEquals(1, deferred.out().lines().filter(l -> l.contains("forged")).count(), deferred::toString);
    }

    @Test
    void controlCharactersInNamesAreEscapedInErrors(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("g.json");
        // a node reads a value nobody declared: the error names it
        Files.writeString(file, "{\"values\":[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[1]}],"
                + "\"nodes\":[{\"op\":\"Relu\",\"inputs\":[\"ghost\\u001b[2J\\nmemplan: all good\"],\"outputs\":[\"x\"]}]}");
        CliRun run = promptly("plan", file.toString());
        assertOneLineFailure(run, ExitCode.INPUT, "ghost\\x1b[2J\\nmemplan: all good");
        // a file name with a newline and an escape, as given on the command line
        Path named = dir.resolve("a\nb\u001b.json");
        CliRun missing = promptly("plan", named.toString());
        assertOneLineFailure(missing, ExitCode.INPUT, "a\\nb\\x1b.json", "no such file");
    }

    @Test
    void onnxNamesAreEscapedAndUseTheGraphUnits(@TempDir Path dir) throws IOException {
        Path model = dir.resolve("m.onnx");
        Files.write(model, TestOnnxModels.mlp(4L, 4096, "mm\u001b]0;pwned\u0007\nforged"));
        CliRun run = promptly("plan", "--in-place", "off", model.toString()); // the peak below: two activations, none in place
        assertEquals(0, run.exit(), run::toString);
        assertFalse(run.out().chars().anyMatch(c -> c == 0x1b || c == 7), run::toString);
        assertFalse(run.out().lines().anyMatch(l -> l.startsWith("forged")), run::toString);
        // case 12: the same units and thousands separators as a graph's text output
        long peak = 2L * 4 * 4096 * 4;
        assertTrue(run.out().contains("peak       " + String.format(Locale.ROOT, "%,d B", peak)), run::toString);
        assertTrue(run.out().contains("KiB"), run::toString);
    }

    // ---- case 7: other encodings: say so, where, without Java class names

    @Test
    void utf16AndLatin1JsonSayWhatIsWrong(@TempDir Path dir) throws IOException {
        String json = graph("x", "h", "y", "batch");
        Path utf16 = dir.resolve("u16.json");
        Files.write(utf16, json.getBytes(StandardCharsets.UTF_16));
        assertOneLineFailure(promptly("plan", utf16.toString()), ExitCode.INPUT, "line 1, column 1", "UTF-16",
                "save it as UTF-8");
        Path utf16le = dir.resolve("u16le.json");
        Files.write(utf16le, json.getBytes(StandardCharsets.UTF_16LE)); // no byte order mark
        assertOneLineFailure(promptly("plan", utf16le.toString()), ExitCode.INPUT, "UTF-16", "save it as UTF-8");
        Path latin1 = dir.resolve("latin1.json");
        Files.write(latin1, graph("x", "h\u00e9", "y", "batch").getBytes(StandardCharsets.ISO_8859_1));
        assertOneLineFailure(promptly("plan", latin1.toString()), ExitCode.INPUT, "line 1, column",
                "not UTF-8", "save it as UTF-8");
    }

    // ---- case 9: symbols are taken as written

    @Test
    void symbolsWithTrailingSpacesOrControlCharactersCanBeBound(@TempDir Path dir) throws IOException {
        Path spaced = dir.resolve("spaced.json");
        Files.writeString(spaced, graph("x", "h", "y", "seq "));
        CliRun run = promptly("plan", "--format", "json", "--bind", "seq =3", spaced.toString());
        assertEquals(0, run.exit(), run::toString);
        assertTrue(run.out().contains("\"status\":\"complete\""), run::toString);

        // "seq" and "seq\0" are two symbols; the text output shows the second as seq\x00, and
        // that is how it is bound
        Path nul = dir.resolve("nul.json");
        Files.writeString(nul, graph("x", "h", "y", "seq", "seq\u0000"));
        CliRun deferred = promptly("plan", "--bind", "seq=2", nul.toString());
        assertEquals(0, deferred.exit(), deferred::toString);
        assertTrue(deferred.out().contains("to bind:      seq\\x00"), deferred::toString);
        CliRun both = promptly("plan", "--format", "json", "--bind", "seq=2", "--bind", "seq\\x00=5", nul.toString());
        assertEquals(0, both.exit(), both::toString);
        assertTrue(both.out().contains("\"status\":\"complete\""), both::toString);
    }

    /** The unmatched-binding error names each symbol escaped once: the name it shows binds as shown. */
    @Test
    void theUnmatchedBindingErrorShowsSymbolsAsTheyAreBound(@TempDir Path dir) throws IOException {
        Path nul = dir.resolve("nul.json");
        Files.writeString(nul, graph("x", "h", "y", "seq\u0000"));
        CliRun typo = promptly("plan", "--bind", "sequence=2", nul.toString());
        assertEquals(ExitCode.USAGE, typo.exit(), typo::toString);
        assertTrue(typo.err().contains("the symbols are seq\\x00;"), typo::toString);
        String shown = typo.err().replaceAll("(?s).*the symbols are (\\S+);.*", "$1");
        CliRun typedBack = promptly("plan", "--format", "json", "--bind", shown + "=2", nul.toString());
        assertEquals(0, typedBack.exit(), typedBack::toString);
        assertTrue(typedBack.out().contains("\"status\":\"complete\""), typedBack::toString);
    }

    /** An unpaired surrogate (and a bidi override) in a name: every output format writes it escaped, as valid UTF-8. */
    @Test
    void aNameWithAnUnpairedSurrogateIsWrittenInEveryFormat(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("lone.json");
        Files.writeString(file, graph("x", "h", "y", "seq").replace("\"h\"", "\"h\\ud800\\u202e\""));
        for (String out : List.of("lone.html", "lone.svg")) {
            Path picture = dir.resolve(out);
            CliRun run = promptly("draw", "--bind", "seq=4", file.toString(), "-o", picture.toString());
            assertEquals(0, run.exit(), run::toString);
            String text = java.nio.charset.StandardCharsets.UTF_8.newDecoder()
                    .decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(picture))).toString();
            assertTrue(text.contains("h\\ud800\\u202e") || text.contains("h\\uD800\\u202E"), out);
            assertFalse(text.contains("\u202e"), out);
        }
        CliRun json = promptly("plan", "--format", "json", "--bind", "seq=4", file.toString());
        assertEquals(0, json.exit(), json::toString);
        assertTrue(json.out().contains("\"h\\uD800\\u202E\""), json::toString);
        assertEquals("h\ud800\u202e", new ObjectMapper().readTree(json.out()).get("owners").get(0).get("value").asText());
        CliRun text = promptly("plan", "--timeline", "--bind", "seq=4", file.toString());
        assertEquals(0, text.exit(), text::toString);
        assertFalse(text.out().contains("\ud800") || text.out().contains("\u202e"), text::toString);
    }

    // ---- case 10: @file is a file name, not an argument file

    @Test
    void atFileIsAFileName() throws IOException {
        // relative to the working directory, where an argument file would be looked up
        String name = "memplan-at-test-" + ProcessHandle.current().pid() + ".json";
        Path at = Path.of("@" + name);
        Path argumentFile = Path.of(name);
        try {
            Files.writeString(at, graph("x", "h", "y", "batch"));
            // were @NAME an argument file, NAME's content would be the arguments
            Files.writeString(argumentFile, "--no-such-option");
            CliRun run = promptly("plan", "--bind", "batch=1", "@" + name);
            assertEquals(0, run.exit(), run::toString);
            assertTrue(run.out().startsWith("@" + name + ": complete plan"), run::toString);
        } finally {
            Files.deleteIfExists(at);
            Files.deleteIfExists(argumentFile);
        }
    }

    // ---- case 12: scripts

    @Test
    void requireCompleteMakesADeferredPlanExit3(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("g.json");
        Files.writeString(file, graph("x", "h", "y", "batch"));
        CliRun plain = promptly("plan", file.toString());
        assertEquals(ExitCode.OK, plain.exit(), plain::toString);
        CliRun strict = promptly("plan", "--require-complete", file.toString());
        assertEquals(ExitCode.DEFERRED, strict.exit(), strict::toString);
        assertEquals(plain.out(), strict.out(), "the deferred plan is still printed");
        assertTrue(strict.err().contains("deferred") && strict.err().lines().count() == 1, strict::toString);
        CliRun complete = promptly("plan", "--require-complete", "--bind", "batch=2", file.toString());
        assertEquals(ExitCode.OK, complete.exit(), complete::toString);
    }

    @ParameterizedTest
    @CsvSource({"2GB, 2000000000", "2gb, 2000000000", "2G, 2147483648", "2GiB, 2147483648", "2g, 2147483648",
            "512MiB, 536870912", "512MB, 512000000", "64K, 65536", "64KB, 64000", "1TB, 1000000000000",
            "100, 100", "100B, 100", "3T, 3298534883328"})
    void budgetUnits(String text, long bytes) {
        assertEquals(bytes, new ByteCount().convert(text));
    }

    @Test
    void badBudgetsAreOneLineUsageErrors() {
        for (String bad : new String[] {"2XB", "-1G", "9999999999T", "G", ""}) {
            assertOneLineFailure(promptly("demo", "--budget", bad), ExitCode.USAGE, "--budget", "see 'memplan demo --help'");
        }
    }

    // ---- no stack trace, ever; --verbose adds it

    @Test
    void verboseAddsTheStackTrace(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bad.json");
        Files.writeString(file, "{\"values\": [}");
        assertOneLineFailure(promptly("plan", file.toString()), ExitCode.INPUT, "bad.json", "malformed JSON");
        CliRun verbose = promptly("plan", "--verbose", file.toString());
        assertEquals(ExitCode.INPUT, verbose.exit(), verbose::toString);
        assertTrue(verbose.err().contains("\tat "), verbose::toString);
    }

    @Test
    void terminalTextRoundTrips() {
        for (String s : new String[] {"plain", "seq ", "a\\b", "\u0000\u001b[1m\n\t\r\u007f\u0085\u202e\u2028",
                "emoji \ud83d\ude00 ok", "lone \ud83d high", "\\x41 is not A"}) {
            String e = TerminalText.escape(s);
            assertFalse(e.chars().anyMatch(c -> c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x202e),
                    "escaped: " + e);
            assertEquals(s, TerminalText.unescape(e), e);
        }
        assertEquals("plain", TerminalText.escape("plain"));
        assertEquals("emoji \ud83d\ude00 ok", TerminalText.escape("emoji \ud83d\ude00 ok"));
    }
}
