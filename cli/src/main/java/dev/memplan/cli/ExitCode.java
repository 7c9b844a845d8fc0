// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

/**
 * The exit codes of every {@code memplan} command, in one place so that scripts can rely on them
 * (docs/cli.md lists the same table).
 */
final class ExitCode {
    /** Done: every file planned (a deferred plan too, unless {@code --require-complete}). */
    static final int OK = 0;
    /** Bad input: a file is missing, unreadable, not a regular file, or not a valid graph or model. */
    static final int INPUT = 1;
    /** Usage: an unknown option, a malformed value, or a {@code --bind} that matches no symbol. */
    static final int USAGE = 2;
    /**
     * A plan is deferred (a size is still unknown) where a complete one was needed: {@code plan
     * --require-complete}, or {@code draw}, which has nothing to draw.
     */
    static final int DEFERRED = 3;
    /** The Java heap ran out: give the JVM more ({@code MEMPLAN_JAVA_OPTS=-Xmx4g}). */
    static final int OUT_OF_MEMORY = 4;
    /** An internal error: a bug in memplan; {@code --verbose} prints its stack trace for a report. */
    static final int INTERNAL = 5;

    /** The table as one line, for {@code --help}. */
    static final String SUMMARY = "Exit codes: 0 done, 1 bad input, 2 usage, 3 deferred (plan --require-complete, draw),"
            + " 4 out of memory, 5 internal error.";

    private ExitCode() {
    }
}
