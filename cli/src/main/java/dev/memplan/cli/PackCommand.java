// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.EngineMode;
import dev.memplan.EngineUnavailableException;
import dev.memplan.InvalidSizeException;
import dev.memplan.MemplanException;
import dev.memplan.Packing;
import dev.memplan.PlanOptions;
import dev.memplan.io.TerminalText;
import java.io.IOException;
import java.io.PrintWriter;
import dev.memplan.io.InputFiles;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@code memplan pack FILE.csv}: packs an interval packing problem in MiniMalloc's CSV form
 * ({@link PackingCsv}) with the offsets planner and prints the rows back with an {@code offset}
 * column; the arena size and the lower bound go to stderr. Nothing reaches stdout unless the whole
 * file reads and packs.
 *
 * <p>Its picocli model is built through picocli's programmatic API, not from annotations: a
 * {@code pack --exact} of a few hundred rows takes under half a second in all, and reading
 * annotations spins a proxy class per annotation type (docs/performance.md, "Exact packing").
 */
final class PackCommand implements Callable<Integer> {
    /** The subcommand's name. */
    static final String NAME = "pack";
    /** Exit code for a file that cannot be read or is not a valid problem: the table's bad input. */
    static final int BAD_INPUT = ExitCode.INPUT;

    private final CommandSpec spec;
    private Path file;
    private Integer effort;
    private boolean exact;
    private Long nodes;
    private Double timeLimit;
    private Long capacity;
    private EngineMode engine;

    private PackCommand() {
        spec = CommandSpec.wrapWithoutInspection(this).name(NAME).versionProvider(new MemplanCli.Version());
        spec.usageMessage().sortOptions(false).description(
                "Packs buffers with lifetimes into one arena: reads CSV rows id,lower,upper,size (alive over"
                        + " [lower, upper)) and prints them with an offset column; arena size and lower bound go"
                        + " to stderr.",
                "Exit codes: 0 packed, 1 bad input or the engine cannot load, 2 usage.");
        spec.addPositional(PositionalParamSpec.builder().paramLabel("FILE").type(Path.class).required(true)
                .description("The problem: a CSV file with the header id,lower,upper,size.").build());
        spec.addOption(OptionSpec.builder("--effort").paramLabel("N").type(Integer.class)
                .description("How hard the planner searches, 0 to " + PlanOptions.MAX_EFFORT
                        + ", counted in iterations so results are deterministic (default: " + Packing.DEFAULT_EFFORT
                        + ", lowered for large problems so the search stays within a fixed work budget, down to 1"
                        + " from about 31,000 buffers).").build());
        spec.addOption(OptionSpec.builder("--exact").type(boolean.class)
                .description("Search for the smallest arena, until it is proven optimal or a limit stops the search;"
                        + " reports the proven lower bound and the gap left.").build());
        spec.addOption(OptionSpec.builder("--nodes").paramLabel("N").type(Long.class)
                .description("With --exact: search nodes allowed (default: " + Packing.DEFAULT_EXACT_NODES
                        + "). Deterministic: the same answer on every machine and engine.").build());
        spec.addOption(OptionSpec.builder("--time-limit").paramLabel("SECONDS").type(Double.class)
                .description("With --exact: end the whole call, the JVM's start included, within this many seconds"
                        + " (default: none). A time limit"
                        + " that stops the search makes the answer depend on the machine; a node limit never does.")
                .build());
        spec.addOption(OptionSpec.builder("--capacity").paramLabel("BYTES").type(Long.class)
                .description("With --exact: stop as soon as the arena fits in BYTES (MiniMalloc's decision problem).")
                .build());
        spec.addOption(EngineOption.optionSpec());
        MemplanCli.addStandardHelpOptions(spec);
    }

    /** {@return a new command line of {@code pack}, ready to be added under {@code memplan}} */
    static CommandLine commandLine() {
        return new CommandLine(new PackCommand().spec);
    }

    /** Reads the parsed options into the fields, as picocli fills an annotated command's. */
    private void readArguments() {
        ParseResult args = spec.commandLine().getParseResult();
        file = args.matchedPositionalValue(0, null);
        effort = args.matchedOptionValue("--effort", null);
        exact = args.hasMatchedOption("--exact");
        nodes = args.matchedOptionValue("--nodes", null);
        timeLimit = args.matchedOptionValue("--time-limit", null);
        capacity = args.matchedOptionValue("--capacity", null);
        engine = args.matchedOptionValue(EngineOption.NAME, null);
    }

    @Override
    public Integer call() {
        readArguments();
        if (!exact && (nodes != null || timeLimit != null || capacity != null)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--nodes, --time-limit and --capacity need --exact");
        }
        if (effort != null && (effort < 0 || effort > PlanOptions.MAX_EFFORT)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--effort must be in [0, "
                    + PlanOptions.MAX_EFFORT + "], got " + effort);
        }
        Packing.ExactLimits limits = exact ? exactLimits() : null;
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PackingCsv.Problem problem;
        try (Reader in = newReader(file)) {
            problem = PackingCsv.read(in);
        } catch (MemplanException e) {
            return fail(err, e.getMessage());
        } catch (CharacterCodingException e) {
            return fail(err, "it is not UTF-8 text; save it as UTF-8");
        } catch (IOException e) {
            return fail(err, ReadErrors.describe(e));
        }
        if (limits != null) {
            limits = fromProcessStart(limits, problem.sizes().length);
        }
        Packing.Result r;
        int chosen;
        Packing.ExactResult exactResult = null;
        long started = System.nanoTime();
        long startedCpu = ExactReport.processCpuNanos();
        try {
            chosen = effort != null ? effort : Packing.defaultEffort(problem.sizes().length);
            if (limits != null) {
                exactResult = Packing.packExact(problem.lower(), problem.upper(), problem.sizes(), limits,
                        EngineOption.mode(engine, spec));
                r = exactResult.plan();
            } else {
                r = Packing.pack(problem.lower(), problem.upper(), problem.sizes(), chosen,
                        EngineOption.mode(engine, spec));
            }
        } catch (EngineUnavailableException e) {
            err.println("memplan: " + TerminalText.escape(e.getMessage()));
            err.flush();
            return ExitCode.INPUT;
        } catch (InvalidSizeException e) {
            return fail(err, e.getMessage()); // more bytes alive at once than a 64-bit offset reaches
        }
        try {
            PackingCsv.write(problem, r.offsets(), out);
        } catch (IOException e) {
            return fail(err, "cannot write the result (" + e.getMessage() + ")");
        }
        out.flush();
        if (exactResult != null) {
            err.println(ExactReport.line(TerminalText.escape(file.toString()), exactResult,
                    (System.nanoTime() - started) / 1e9, (ExactReport.processCpuNanos() - startedCpu) / 1e9));
            err.flush();
            return 0;
        }
        err.println(String.format(Locale.ROOT, "memplan: %s: %d buffers, effort %d, arena %d bytes, lower bound %d bytes%s",
                TerminalText.escape(file.toString()), r.size(), chosen, r.arenaBytes(), r.lowerBoundBytes(), r.lowerBoundBytes() > 0
                        ? String.format(Locale.ROOT, ", arena/bound %.4f", (double) r.arenaBytes() / r.lowerBoundBytes())
                        : ""));
        err.flush();
        return 0;
    }

    /** The exact search's limits from the options; usage errors name the option at fault. */
    private Packing.ExactLimits exactLimits() {
        if (nodes != null && nodes < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--nodes must be at least 1, got " + nodes);
        }
        if (timeLimit != null && !(timeLimit > 0 && timeLimit <= 1e9)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--time-limit must be a positive number of seconds, got " + timeLimit);
        }
        if (capacity != null && capacity < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--capacity must be >= 0 bytes, got "
                    + capacity);
        }
        return new Packing.ExactLimits(nodes != null ? nodes : Packing.DEFAULT_EXACT_NODES,
                timeLimit != null ? Duration.ofNanos(Math.max(1_000_000L, (long) (timeLimit * 1e9)))
                        : Duration.ZERO,
                capacity != null ? capacity : -1);
    }

    /**
     * {@code --time-limit} counts from the process's start: the JVM's start and the reading of the
     * rows have spent part of it, and writing them back takes some (about a microsecond a row), so
     * the search gets what is left, at least a millisecond.
     */
    private static Packing.ExactLimits fromProcessStart(Packing.ExactLimits limits, int rows) {
        if (limits.timeLimit().isZero()) {
            return limits;
        }
        // the JVM's own uptime, in milliseconds (the process's start instant is in whole seconds here)
        Duration spent = Duration.ofMillis(ManagementFactory.getRuntimeMXBean().getUptime());
        Duration writing = Duration.ofMillis(50).plusNanos(1_000L * rows);
        Duration left = limits.timeLimit().minus(spent).minus(writing);
        Duration least = Duration.ofMillis(1);
        return new Packing.ExactLimits(limits.nodes(), left.compareTo(least) < 0 ? least : left, limits.capacityBytes());
    }

    /** A reader of {@code file}, refusing a FIFO, device or directory at once (never blocking on one). */
    private static Reader newReader(Path file) throws IOException {
        InputFiles.requireRegularFile(file);
        return Files.newBufferedReader(file, StandardCharsets.UTF_8);
    }

    private int fail(PrintWriter err, String problem) {
        err.println("memplan: " + TerminalText.escape(file.toString() + ": " + problem));
        err.flush();
        return BAD_INPUT;
    }
}
