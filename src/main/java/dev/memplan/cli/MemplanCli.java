// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import java.io.IOException;
import java.io.InputStream;
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
 * {@code subcommands} below. Exit codes are in {@link ExitCode}; every failure is one line on
 * stderr ({@link CliErrors}), and {@code @file} arguments are file names, never argument files.
 */
@Command(name = "memplan", mixinStandardHelpOptions = true, versionProvider = MemplanCli.Version.class,
        description = {"Plans the activation memory of inference graphs: which tensors share a buffer,"
                + " and how many bytes a request needs.", ExitCode.SUMMARY},
        subcommands = {PlanCommand.class, SymbolsCommand.class, DemoCommand.class, PackCommand.class,
                DrawCommand.class, OpsCommand.class,
                CommandLine.HelpCommand.class})
public final class MemplanCli implements Callable<Integer> {
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
        CommandLine cli = new CommandLine(new MemplanCli()).setCaseInsensitiveEnumValuesAllowed(true);
        cli.setExpandAtFiles(false); // memplan plan @v.json reads the file named @v.json
        return CliErrors.install(cli);
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
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
