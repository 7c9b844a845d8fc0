// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.Packing;
import java.time.Duration;
import java.util.Locale;

/** The one stderr line {@code memplan pack --exact} ends with: the arena, and proven or the gap left. */
final class ExactReport {
    private ExactReport() {
    }

    /**
     * The summary line.
     *
     * @param escapedFile the input's name, already escaped for the terminal
     * @param r           the exact answer
     * @param seconds     wall time of the heuristic plan and the search
     * @param cpuSeconds  the process's CPU time over the same span (a loaded machine moves it far
     *                    less than the wall time)
     * @return one line, without a newline
     */
    static String line(String escapedFile, Packing.ExactResult r, double seconds, double cpuSeconds) {
        Packing.Result plan = r.plan();
        String verdict = r.provenOptimal()
                ? "proven optimal"
                : String.format(Locale.ROOT, "gap open: %d bytes above the proven bound %d (%s)", r.gapBytes(),
                r.provenBoundBytes(), reason(r.status()));
        String parts = r.parts() > 1 ? String.format(Locale.ROOT, ", %d parts apart in time", r.parts()) : "";
        return String.format(Locale.ROOT, "memplan: %s: %d buffers%s, exact: arena %d bytes, %s; lower bound %d"
                        + " bytes, %d nodes, %.3f s (cpu %.3f s)", escapedFile, plan.size(), parts, plan.arenaBytes(),
                verdict, plan.lowerBoundBytes(), r.nodes(), seconds, cpuSeconds);
    }

    /**
     * The process's CPU time in ns so far (every thread: the planning thread, and the JIT and GC
     * threads that run beside it), or 0 where the platform cannot say.
     */
    static long processCpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    private static String reason(Packing.ExactStatus status) {
        return switch (status) {
            case NODE_LIMIT -> "node limit; raise --nodes";
            case TIME_LIMIT -> "time limit; raise --time-limit";
            case TOO_LARGE -> "too many overlapping buffers to search; the heuristic plan";
            case CAPACITY_REACHED -> "fits the --capacity asked for";
            case PROVEN_OPTIMAL -> "proven";
        };
    }
}
