// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import com.code_intelligence.jazzer.mutation.annotation.WithUtf8Length;
import dev.memplan.io.TerminalText;
import dev.memplan.io.UnsafeChars;
import dev.memplan.onnx.TestOnnxModels;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Coverage-guided fuzzing of the command line's option parsing (picocli options, {@link Binding},
 * {@link InputValue}, {@link ByteCount}, the engine, strategy and format names): fuzzed command
 * lines of {@code plan}, {@code symbols}, {@code pack} and {@code ops} over small valid files, run
 * in process. The promise: a documented exit code (0 to 3), stderr one line per message, each
 * starting "memplan", no stack trace, no class name and no raw control character on either
 * stream. The {@code ort} runtime is left to its own target. Regression inputs:
 * {@code CliArgumentsFuzzTestInputs/}.
 */
@EngineIndependent
class CliArgumentsFuzzTest {
    private static final String[] COMMANDS = {"plan", "symbols", "pack", "ops"};
    private static final String[] OPTIONS = {"--bind", "--value", "--alignment", "--batch", "--budget", "--effort",
        "--engine", "--format", "--in-place", "--include-graph-inputs", "--no-fold-constants", "--require-complete",
        "--strategy", "--timeline", "--views", "--verbose", "--help", "--version", "-h", "-V", "--"};
    private static final String[] VALUES = {"batch=2", "seq=8", "batch=-1", "batch=9223372036854775807", "=", "a=b=c",
        "x=1,2,3", "1GiB", "0", "-1", "1e3", "4611686018427387904", "java", "native", "auto", "json", "text", "on",
        "off", "slots", "offsets", "ort", "none", "all", "\u001b[2J", "line\nbreak", "\u202e", "\\x00=1"};
    /** Words that name a Java or library class: none may reach a user. */
    private static final List<String> CLASS_NAMES = List.of("Exception", "java.", "dev.memplan", "com.fasterxml",
            "com.google.protobuf", "picocli", "org.bytedeco");
    private static final Path FILES = files();

    @FuzzTest(maxDuration = "20s")
    void commandLine(FuzzedDataProvider data) {
        List<String> args = new ArrayList<>();
        String command = data.pickValue(COMMANDS);
        args.add(command);
        int options = data.consumeInt(0, 6);
        for (int i = 0; i < options; i++) {
            args.add(data.consumeBoolean() ? data.pickValue(OPTIONS) : "--" + data.consumeAsciiString(12));
            if (data.consumeBoolean()) {
                args.add(data.consumeBoolean() ? data.pickValue(VALUES) : data.consumeString(24));
            }
        }
        if (!command.equals("ops")) {
            args.add(FILES.resolve(command.equals("pack") ? "p.csv" : data.pickValue(new String[] {"g.json", "m.onnx"}))
                    .toString());
        }
        if (args.stream().anyMatch(a -> a.toLowerCase(Locale.ROOT).contains("ort") && !a.equals("--views"))) {
            return; // the ort runtime has a target of its own; a views policy named ort stays in
        }
        check(args, CliRun.of(args.toArray(String[]::new)));
    }

    @FuzzTest(maxDuration = "20s")
    void bindOption(@NotNull @WithUtf8Length(max = 200) String binding) {
        List<String> args = List.of("plan", "--bind", binding, FILES.resolve("g.json").toString());
        check(args, CliRun.of(args.toArray(String[]::new)));
    }

    private static void check(List<String> args, CliRun run) {
        String where = escaped(args + "\n" + run);
        assertTrue(run.exit() >= 0 && run.exit() <= ExitCode.DEFERRED, () -> "undocumented exit: " + where);
        String all = run.out() + run.err();
        if (args.contains("--verbose")) {
            return; // --verbose asks for the stack trace behind a message (CliErrors), class names and all
        }
        boolean echoed = args.stream().anyMatch(a -> a.contains("\tat ") || a.contains("Caused by:"));
        // a marker the arguments themselves hold comes back quoted in the message, not from a trace
        assertFalse(!echoed && (all.contains("\tat ") || all.contains("Caused by:")), () -> "a stack trace: " + where);
        for (String word : CLASS_NAMES) {
            if (args.stream().anyMatch(a -> a.contains(word) || TerminalText.escape(a).contains(word))) {
                // the command line's own text, quoted back (a symbol named "bapchjava."), or its
                // escape: U+001C before "om.fasterxml" prints as backslash, u001c, om.fasterxml
                continue;
            }
            assertFalse(all.contains(word), () -> "a class name (" + word + "): " + where);
        }
        assertTrue(run.err().lines().allMatch(l -> l.startsWith("memplan")), () -> "a message not one line: " + where);
        assertFalse(rawControl(run.err(), false) || rawControl(run.out(), true), () -> "a raw control character: "
                + where);
        if (run.exit() != 0 && run.exit() != ExitCode.DEFERRED) {
            assertFalse(run.err().isBlank(), () -> "a failure without a message: " + where);
        }
    }

    /** A character UnsafeChars lists, other than a newline (and a tab in stdout, the symbols table's separator). */
    private static boolean rawControl(String text, boolean tabs) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '\n' && !(tabs && c == '\t') && UnsafeChars.isUnsafeAt(text, i)) {
                return true;
            }
        }
        return false;
    }

    /** A graph file, a model and a packing problem in a temporary folder, deleted when the JVM exits. */
    private static Path files() {
        try {
            Path dir = Files.createTempDirectory("memplan-cli-fuzz");
            Files.copy(Path.of("examples/transformer_block.json"), dir.resolve("g.json"));
            Files.write(dir.resolve("m.onnx"), TestOnnxModels.mlp("batch", 16, "mm"));
            Files.writeString(dir.resolve("p.csv"), "id,lower,upper,size\na,0,10,100\nb,5,20,50\nc,20,30,100\n",
                    StandardCharsets.UTF_8);
            for (String name : List.of("g.json", "m.onnx", "p.csv")) {
                dir.resolve(name).toFile().deleteOnExit();
            }
            dir.toFile().deleteOnExit();
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code text} with every character outside printable ASCII written as \\uXXXX, for a failure message. */
    private static String escaped(String text) {
        StringBuilder out = new StringBuilder();
        for (char c : text.toCharArray()) {
            out.append(c == '\n' || (c >= 0x20 && c < 0x7f) ? String.valueOf(c) : String.format("\\u%04x", (int) c));
        }
        return out.toString();
    }
}
