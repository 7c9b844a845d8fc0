// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** One in-process run of the command line, with stdout and stderr captured. */
record CliRun(int exit, String out, String err) {

    /** A run as {@code main} makes it: the command line built for {@code args}. */
    static CliRun of(String... args) {
        return of(MemplanCli.commandLineFor(args), args);
    }

    static CliRun of(CommandLine cli, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(args);
        return new CliRun(exit, out.toString(), err.toString());
    }

    /** The lines of stdout. */
    String[] lines() {
        return out.isEmpty() ? new String[0] : out.split("\n", -1);
    }

    @Override
    public String toString() {
        return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
