// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ScopeType;

/**
 * {@code memplan}: the command line. Each subcommand is its own class, registered in
 * {@code SUBCOMMANDS} below. Exit codes are in {@link ExitCode}; every failure is one line on
 * stderr ({@link CliErrors}), and {@code @file} arguments are file names, never argument files.
 *
 * <p>This command and {@code pack} build their picocli model through its programmatic API, the
 * other subcommands from their annotations: a short {@code pack} run then reads no annotation
 * (each annotation type read spins a proxy class, a fixed cost of every run; docs/performance.md,
 * "Exact packing").
 */
public final class MemplanCli implements Callable<Integer> {
    private static final String[] DESCRIPTION = {"Plans the activation memory of inference graphs: which tensors"
            + " share a buffer, and how many bytes a request needs.", ExitCode.SUMMARY};

    /** A subcommand: its name, and how its command line is built. */
    private record Subcommand(String name, Supplier<CommandLine> commandLine) {
        static Subcommand annotated(String name, Class<?> command) {
            return new Subcommand(name, () -> new CommandLine(command));
        }
    }

    /**
     * The subcommands, in the order usage help lists them. Registered when a command line is
     * built, not through {@code @Command(subcommands = ...)}, so that a run of one subcommand
     * builds only that one ({@link #commandLineFor}). The names are written here, not read from the
     * annotations, so that finding one reads none (a test checks they agree).
     */
    private static final List<Subcommand> SUBCOMMANDS = List.of(
            Subcommand.annotated("plan", PlanCommand.class), Subcommand.annotated("symbols", SymbolsCommand.class),
            Subcommand.annotated("demo", DemoCommand.class), new Subcommand(PackCommand.NAME, PackCommand::commandLine),
            Subcommand.annotated("draw", DrawCommand.class), Subcommand.annotated("ops", OpsCommand.class),
            Subcommand.annotated("size", SizeCommand.class),
            Subcommand.annotated("help", CommandLine.HelpCommand.class));

    private CommandSpec spec;

    private MemplanCli() {
    }

    /** {@code memplan} without a subcommand is a usage error. */
    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /**
     * A command line ready to {@code execute}: tests run it in process with their own streams.
     * Enum options without a converter of their own ({@code --strategy}) ignore case.
     */
    public static CommandLine commandLine() {
        return withSubcommands(SUBCOMMANDS);
    }

    /**
     * The command line for {@code args}: when they start with a subcommand's name, memplan with
     * only that subcommand, else with all ({@link #commandLine()}). picocli reads every command's
     * annotations when it builds it, and building all of them is a large part of a short run's
     * start (a {@code pack --exact} of a few hundred rows, docs/performance.md); the one
     * subcommand parses its arguments as it does among all.
     */
    static CommandLine commandLineFor(String[] args) {
        for (Subcommand subcommand : SUBCOMMANDS) {
            if (args.length > 0 && !subcommand.name().equals("help") // help names the others
                    && args[0].equals(subcommand.name())) {
                return withSubcommands(List.of(subcommand));
            }
        }
        return commandLine();
    }

    /** {@return the subcommands' names, in usage help's order} */
    static List<String> subcommandNames() {
        return SUBCOMMANDS.stream().map(Subcommand::name).toList();
    }

    private static CommandLine withSubcommands(List<Subcommand> subcommands) {
        MemplanCli memplan = new MemplanCli();
        memplan.spec = CommandSpec.wrapWithoutInspection(memplan).name("memplan").versionProvider(new Version());
        memplan.spec.usageMessage().description(DESCRIPTION);
        addStandardHelpOptions(memplan.spec);
        // read through the parse result by CliErrors#verbose; inherited by every subcommand
        memplan.spec.addOption(OptionSpec.builder("--verbose").scopeType(ScopeType.INHERIT)
                .description("On a failure, also print the stack trace (for a bug report).").build());
        CommandLine cli = new CommandLine(memplan.spec);
        for (Subcommand subcommand : subcommands) {
            cli.addSubcommand(subcommand.name(), subcommand.commandLine().get());
        }
        cli.setCaseInsensitiveEnumValuesAllowed(true); // after the subcommands: picocli hands it down
        cli.setExpandAtFiles(false); // memplan plan @v.json reads the file named @v.json
        return CliErrors.install(cli);
    }

    /**
     * Adds {@code -h, --help} and {@code -V, --version}, as {@code mixinStandardHelpOptions} does
     * for an annotated command (which reads picocli's own annotated mixin).
     */
    static void addStandardHelpOptions(CommandSpec spec) {
        spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true)
                .description("Show this help message and exit.").build());
        spec.addOption(OptionSpec.builder("-V", "--version").versionHelp(true)
                .description("Print version information and exit.").build());
    }

    public static void main(String[] args) {
        NativePreload.startFor(args);
        System.exit(commandLineFor(args).execute(args));
    }

    /** The version Maven recorded in the jar (pom.properties), when running from a jar. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            Properties pom = new Properties();
            try (InputStream in = MemplanCli.class.getResourceAsStream(
                    "/META-INF/maven/dev.memplan/memplan/pom.properties")) {
                if (in != null) {
                    pom.load(in);
                }
            }
            return new String[] {"memplan " + pom.getProperty("version", "(development build)")};
        }
    }
}
