// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.util.List;
import java.util.stream.Stream;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code main} builds only the subcommand its arguments name ({@link MemplanCli#commandLineFor}):
 * every run answers as among all subcommands, in exit code, stdout and stderr, on success, usage
 * errors, help, an inherited option and input errors. (Every other command line test runs through
 * {@code commandLineFor} too, by {@link CliRun#of(String...)}.)
 */
@EngineIndependent
class SubcommandOnDemandTest {

    static Stream<List<String>> commandLines() {
        return Stream.of(
                List.of("pack", "--help"),
                List.of("pack", "--no-such-option"),
                List.of("pack", "--verbose", "no-such-file.csv"),
                List.of("pack", "--effort", "-3", "x.csv"),
                List.of("pack"),
                List.of("plan", "--help"),
                List.of("plan", "src/test/resources/graphs/no-such-graph.json"),
                List.of("plan", "--strategy", "OFFSETS", "--bind", "x"),
                List.of("symbols", "--version"),
                List.of("demo", "--format", "json"),
                List.of("draw", "-o"),
                List.of("ops", "--help"),
                List.of("size", "--concurrency", "0", "x.onnx"),
                List.of("help", "pack"),
                List.of("pakc", "x.csv"),
                List.of("--verbose", "pack", "x.csv"),
                List.of());
    }

    /** The names MemplanCli writes down to find a subcommand are the names its commands declare. */
    @Test
    void theWrittenNamesAreTheCommandsOwn() {
        List<String> declared = Stream.of(PlanCommand.class, SymbolsCommand.class, DemoCommand.class,
                        DrawCommand.class, OpsCommand.class, SizeCommand.class, CommandLine.HelpCommand.class)
                .map(c -> c.getAnnotation(CommandLine.Command.class).name()).toList();
        List<String> written = MemplanCli.subcommandNames();
        assertEquals(declared.size() + 1, written.size(), written.toString());
        assertTrue(written.containsAll(declared), written + " against " + declared);
        assertTrue(written.contains(PackCommand.NAME), written.toString());
        assertEquals(PackCommand.NAME, PackCommand.commandLine().getCommandName());
    }

    @ParameterizedTest
    @MethodSource("commandLines")
    void oneSubcommandAnswersAsAllDo(List<String> commandLine) {
        String[] args = commandLine.toArray(String[]::new);
        CliRun all = CliRun.of(MemplanCli.commandLine(), args);
        CliRun one = CliRun.of(MemplanCli.commandLineFor(args), args);
        assertEquals(all.toString(), one.toString(), commandLine.toString());
    }
}
