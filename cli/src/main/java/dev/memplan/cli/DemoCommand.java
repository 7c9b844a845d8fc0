// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.ActivationPlan;
import dev.memplan.Admission;
import dev.memplan.EngineUnavailableException;
import dev.memplan.InvalidSizeException;
import dev.memplan.PlanOptions;
import dev.memplan.Schedule;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.MemPlan;
import dev.memplan.io.TerminalText;
import dev.memplan.json.GraphJson;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code memplan demo}: plans a built-in GPT-2-small decoder at sequence lengths 128 to 8192 with
 * both strategies (one compiled schedule each), then answers the admission question with the
 * chosen strategy (offsets by default): the longest sequence whose activations fit a budget.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = MemplanCli.Version.class,
        sortOptions = false,
        description = {"Plans a built-in GPT-2-small decoder (12 layers, hidden 768, 12 heads) at sequence"
                + " lengths 128 to 8192, then finds the longest sequence that fits a budget.",
                ExitCode.SUMMARY})
final class DemoCommand implements Callable<Integer> {
    private static final long MAX_SEQUENCE = 1L << 20;

    @Spec
    private CommandSpec spec;

    @Option(names = "--budget", paramLabel = "BYTES", defaultValue = "1GiB", converter = ByteCount.class,
            description = "Activation memory available to one request: bytes, or with a unit: KiB, MiB, GiB,"
                    + " TiB or K, M, G, T (powers of 1024), KB, MB, GB, TB (powers of 1000) (default: ${DEFAULT-VALUE}).")
    private long budget;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "1",
            description = "Batch size (default: ${DEFAULT-VALUE}).")
    private long batch;

    @Mixin
    private StrategyOptions strategy;

    @Mixin
    private EngineOption engine;

    @Override
    public Integer call() {
        if (batch < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--batch must be >= 1, got " + batch);
        }
        // Rendered in full before anything is printed: an error (sizes that overflow at a huge
        // --batch) is then one line, never half a table and a stack trace.
        StringWriter text = new StringWriter();
        int exit;
        try {
            exit = render(new PrintWriter(text));
        } catch (InvalidSizeException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--batch " + batch + " is too large: "
                    + e.getMessage() + "; give a smaller --batch");
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(text);
        out.flush();
        return exit;
    }

    /** The table and the budget answer, into {@code out}; the exit code. */
    private int render(PrintWriter out) {
        PlanOptions options = PlanOptions.defaults().withEngine(engine.mode())
                .withStrategy(strategy.strategy()).withEffort(strategy.effort());
        GraphJson.GraphFile model = DemoDecoder.load();
        Schedule schedule;
        Schedule offsets;
        Schedule slots;
        try {
            // once each; every length below re-plans without a graph walk
            offsets = MemPlan.compile(model.graph(), model.views(), options.withStrategy(Strategy.OFFSETS));
            slots = MemPlan.compile(model.graph(), model.views(), options.withStrategy(Strategy.SLOTS));
        } catch (EngineUnavailableException e) {
            spec.commandLine().getErr().println("memplan: " + TerminalText.escape(e.getMessage()));
            return ExitCode.INPUT;
        }
        schedule = options.strategy() == Strategy.OFFSETS ? offsets : slots;
        Map<String, Long> batchOnly = Map.of(DemoDecoder.BATCH, batch);
        out.printf(Locale.ROOT, "GPT-2 small decoder (%s), batch %d, %d owners, engine %s%n", DemoDecoder.DESCRIPTION, batch,
                schedule.numOwners(), schedule.engine());
        out.printf(Locale.ROOT, "%8s  %16s  %16s  %16s  %16s  %13s  %11s%n", "seq", "naive bytes", "offsets peak",
                "slots peak", "lower bound", "offsets/bound", "slots/bound");
        for (long seq = 128; seq <= 8192; seq *= 2) {
            Map<String, Long> bindings = DemoDecoder.bindings(batch, seq);
            ActivationPlan byOffsets = offsets.plan(bindings).orElseThrow();
            ActivationPlan bySlots = slots.plan(bindings).orElseThrow();
            long bound = byOffsets.lowerBoundBytes();
            out.printf(Locale.ROOT, "%8d  %,16d  %,16d  %,16d  %,16d  %13.2f  %11.2f%n", seq, byOffsets.naiveBytes(),
                    byOffsets.peakBytes(), bySlots.peakBytes(), bound, ratio(byOffsets.peakBytes(), bound),
                    ratio(bySlots.peakBytes(), bound));
        }
        out.println();
        out.println("the budget answer below plans with " + options.strategy()
                + " (--strategy offsets|slots chooses)");
        OptionalLong longest = Admission.largestFitting(schedule, DemoDecoder.SEQUENCE, batchOnly, budget, MAX_SEQUENCE);
        if (longest.isEmpty()) {
            out.printf(Locale.ROOT, "budget %s: not even a 1-token sequence fits (it needs %,d bytes)%n",
                    ByteCount.format(budget), Admission.peakAt(schedule, DemoDecoder.SEQUENCE, batchOnly, 1));
        } else if (longest.getAsLong() == MAX_SEQUENCE) {
            out.printf(Locale.ROOT, "budget %s: every sequence up to %,d tokens fits%n", ByteCount.format(budget),
                    MAX_SEQUENCE);
        } else {
            long seq = longest.getAsLong();
            out.printf(Locale.ROOT, "budget %s: the longest sequence that fits is %,d tokens (reserve %,d bytes);"
                            + " %,d tokens would need %,d bytes%n", ByteCount.format(budget), seq,
                    Admission.peakAt(schedule, DemoDecoder.SEQUENCE, batchOnly, seq), seq + 1,
                    Admission.peakAt(schedule, DemoDecoder.SEQUENCE, batchOnly, seq + 1));
        }
        out.flush();
        return ExitCode.OK;
    }

    /** {@code peak / bound}, 0 when the bound is 0. */
    private static double ratio(long peak, long bound) {
        return bound == 0 ? 0.0 : (double) peak / bound;
    }
}
