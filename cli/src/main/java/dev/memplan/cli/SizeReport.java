// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.memplan.io.JsonOutput;
import dev.memplan.io.TerminalText;
import dev.memplan.ort.ServerSize;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What {@code memplan size} prints: a short table, or one JSON object ({@link Json}). */
final class SizeReport {
    private SizeReport() {
    }

    /**
     * The JSON object: the inputs, then each part and the totals, in bytes.
     *
     * @param models             the models' files as given
     * @param bindings           the longest request
     * @param concurrency        request threads
     * @param intraOpThreads     intra-op threads per session
     * @param residentBytes      the total beyond the JVM
     * @param budgetBytes        the capacity to give the MemoryBudget
     * @param runtimeBytes       ORT's library and environment
     * @param sessionBytes       the sessions with weights, prepacked copies and a warm-up run
     * @param memplanBytes       memplan's own
     * @param requestBytes       one longest request's lease
     * @param inFlightBytes      the requests in flight, counted at the budget
     * @param threadBytes        thread-local buffers, request threads and intra-op pools
     * @param requestThreadBytes one request thread's buffers
     */
    record Json(List<String> models, Map<String, Long> bindings, int concurrency, int intraOpThreads,
                long residentBytes, long budgetBytes, long runtimeBytes, long sessionBytes, long memplanBytes,
                long requestBytes, long inFlightBytes, long threadBytes, long requestThreadBytes) {
    }

    static String json(List<Path> models, Map<String, Long> bindings, ServerSize s) {
        Json json = new Json(models.stream().map(Path::toString).toList(), new LinkedHashMap<>(bindings),
                s.concurrency(), s.intraOpThreads(), s.residentBytes(), s.budgetBytes(), s.runtimeBytes(),
                s.sessionBytes(), s.memplanBytes(), s.requestBytes(), s.budgetBytes(), s.threadBytes(),
                s.requestThreadBytes());
        try {
            return JsonOutput.mapper().writeValueAsString(json); // escapes what a terminal would act on
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("numbers and strings always write", e);
        }
    }

    static void text(List<Path> models, Map<String, Long> bindings, ServerSize s, PrintWriter out) {
        StringBuilder request = new StringBuilder();
        bindings.forEach((k, v) -> request.append(request.isEmpty() ? "" : " ").append(k).append('=').append(v));
        out.println(TerminalText.escape(String.join(", ", models.stream().map(Path::toString).toList()) + ": "
                + s.concurrency() + " request thread(s), " + s.intraOpThreads() + " intra-op thread(s), longest request "
                + request));
        row(out, "ONNX Runtime (library, environment)", s.runtimeBytes());
        row(out, "sessions (weights, prepacked, warm-up)", s.sessionBytes());
        row(out, "memplan (engine, compile, allocator)", s.memplanBytes());
        row(out, "requests in flight (" + s.concurrency() + " x " + mib(s.requestBytes()) + ")", s.budgetBytes());
        row(out, "thread buffers (" + s.concurrency() + " x " + mib(s.requestThreadBytes()) + " + pools)",
                s.threadBytes());
        row(out, "resident beyond the JVM", s.residentBytes());
        row(out, "budget (MemoryBudget capacity)", s.budgetBytes());
    }

    private static void row(PrintWriter out, String part, long bytes) {
        out.println(String.format(Locale.ROOT, "%-42s %16s  %s", part, String.format(Locale.ROOT, "%,d B", bytes),
                mib(bytes)));
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }
}
