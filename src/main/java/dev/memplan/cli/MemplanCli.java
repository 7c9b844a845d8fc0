// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code memplan}: the command line. Each subcommand is its own class, registered in
 * {@code SUBCOMMANDS} below. Exit codes are in {@link ExitCode}; every failure is one line on
 * stderr ({@link CliErrors}), and {@code @file} arguments are file names, never argument files.
 */
@Command(name = "memplan", mixinStandardHelpOptions = true, versionProvider = MemplanCli.Version.class,
        description = {"Plans the activation memory of inference graphs: which tensors share a buffer,"
                + " and how many bytes a request needs.", ExitCode.SUMMARY})
public final class MemplanCli implements Callable<Integer> {
    /**
     * The subcommands, in the order usage help lists them. Registered when a command line is
     * built, not through {@code @Command(subcommands = ...)}, so that a run of one subcommand
     * builds only that one ({@link #commandLineFor}).
     */
    private static final List<Class<?>> SUBCOMMANDS = List.of(PlanCommand.class, SymbolsCommand.class,
            DemoCommand.class, PackCommand.class, DrawCommand.class, OpsCommand.class, CommandLine.HelpCommand.class);

    @Spec
    private CommandSpec spec;

    /** Read through the parse result by {@link CliErrors#verbose}; a field so picocli has a place for it. */
    @Option(names = "--verbose", scope = ScopeType.INHERIT,
            description = "On a failure, also print the stack trace (for a bug report).")
    private boolean verbose;

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
        for (Class<?> subcommand : SUBCOMMANDS) {
            if (args.length > 0 && subcommand != CommandLine.HelpCommand.class // help names the others
                    && args[0].equals(subcommand.getAnnotation(Command.class).name())) {
                return withSubcommands(List.of(subcommand));
            }
        }
        return commandLine();
    }

    private static CommandLine withSubcommands(List<Class<?>> subcommands) {
        CommandLine cli = new CommandLine(new MemplanCli());
        for (Class<?> subcommand : subcommands) {
            cli.addSubcommand(new CommandLine(subcommand));
        }
        cli.setCaseInsensitiveEnumValuesAllowed(true); // after the subcommands: picocli hands it down
        cli.setExpandAtFiles(false); // memplan plan @v.json reads the file named @v.json
        return CliErrors.install(cli);
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
