// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.io.TerminalText;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Turns every failure that reaches picocli into one escaped line on stderr and a documented exit
 * code: no stack trace reaches a user unless {@code --verbose} asks for it, and a usage error
 * prints its reason and where to look, not the whole help.
 */
final class CliErrors {
    private CliErrors() {
    }

    /** Installs the handlers on {@code cli} (the top-level command line). */
    static CommandLine install(CommandLine cli) {
        cli.setParameterExceptionHandler(CliErrors::usage);
        cli.setExecutionExceptionHandler(CliErrors::failure);
        // Errors (out of memory, stack overflow) pass picocli's exception handler by: catch them here.
        CommandLine.IExecutionStrategy runLast = new CommandLine.RunLast();
        cli.setExecutionStrategy(parsed -> {
            try {
                return runLast.execute(parsed);
            } catch (Error e) {
                ParseResult last = parsed;
                while (last.subcommand() != null) {
                    last = last.subcommand();
                }
                CommandLine cmd = last.commandSpec().commandLine();
                return report(e, cmd.getCommandSpec().qualifiedName(), cmd.getErr(), verbose(parsed));
            }
        });
        return cli;
    }

    /** A usage error: {@code memplan plan: <reason>; see 'memplan plan --help'}, exit 2. */
    private static int usage(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        String name = cmd.getCommandSpec().qualifiedName();
        PrintWriter err = cmd.getErr();
        String reason = reason(e);
        err.println(TerminalText.escape(name + ": " + reason) + "; see '" + name + " --help'");
        if (verbose(cmd.getParseResult())) {
            e.printStackTrace(err);
        }
        err.flush();
        return ExitCode.USAGE;
    }

    /**
     * The reason of a usage error. picocli parses enum options itself, ignoring case, but its
     * message lists the constants in upper case; the options are written and documented in lower
     * case, so the message lists them that way too.
     */
    private static String reason(CommandLine.ParameterException e) {
        ArgSpec arg = e.getArgSpec();
        if (e.getCause() instanceof CommandLine.TypeConversionException && arg instanceof OptionSpec option
                && arg.type().isEnum()) {
            List<String> names = Arrays.stream(arg.type().getEnumConstants())
                    .map(c -> ((Enum<?>) c).name().toLowerCase(Locale.ROOT)).toList();
            return "Invalid value for option '" + option.longestName() + "': expected one of " + names
                    + " but was '" + e.getValue() + "'";
        }
        if (e.getCause() != null && arg != null && !arg.type().isEnum()
                && e.getMessage() != null && e.getMessage().contains("cannot convert")) {
            // picocli's conversion message names the Java type and its exception: say it in words
            String what = arg instanceof OptionSpec option ? "option '" + option.longestName() + "'"
                    : arg.paramLabel();
            return "Invalid value for " + what + ": '" + e.getValue() + "' is not "
                    + (Path.class.isAssignableFrom(arg.type()) ? "a file name this system accepts"
                    : "a valid " + arg.paramLabel());
        }
        return e.getMessage() == null ? "invalid command line" : e.getMessage();
    }

    /**
     * {@code file: message}, unless the library's message already starts with the file's name
     * (the ONNX reader names its source), so the name is said once.
     */
    static String aboutFile(String file, String message) {
        return message.startsWith(file + " ") || message.startsWith(file + ":") ? message : file + ": " + message;
    }

    /** Anything a command threw: out of memory, or a bug; one line, exit 4 or 5. */
    private static int failure(Exception e, CommandLine cmd, ParseResult parsed) {
        return report(e, cmd.getCommandSpec().qualifiedName(), cmd.getErr(), verbose(parsed));
    }

    /**
     * Reports {@code t}, thrown while running {@code command}, on one line (plus the stack trace
     * when {@code verbose}) and returns the exit code.
     */
    static int report(Throwable t, String command, PrintWriter err, boolean verbose) {
        int code;
        if (t instanceof OutOfMemoryError) {
            err.println(command + ": " + outOfMemory("it"));
            code = ExitCode.OUT_OF_MEMORY;
        } else {
            // no exception class or message: --verbose prints them, with the stack trace
            err.println(TerminalText.escape(command + ": internal error"
                    + (verbose ? " (a bug in memplan; report what follows)"
                    : "; this is a bug: rerun with --verbose and report the output")));
            code = ExitCode.INTERNAL;
        }
        if (verbose) {
            t.printStackTrace(err);
        }
        err.flush();
        return code;
    }

    /** The out-of-memory sentence: what ran out, and how to give the JVM more heap. */
    static String outOfMemory(String what) {
        long max = Runtime.getRuntime().maxMemory();
        return "the Java heap (" + ByteCount.format(max) + ") ran out while planning " + what
                + "; give the JVM more, e.g. MEMPLAN_JAVA_OPTS=-Xmx" + Math.max(2, 2 * (max >> 30) + 2)
                + "g (or java -Xmx... -jar)";
    }

    /** Whether {@code --verbose} was given, on the top-level command or a subcommand. */
    static boolean verbose(ParseResult parsed) {
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return false;
    }
}
