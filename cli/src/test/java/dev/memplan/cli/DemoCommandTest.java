// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.Admission;
import dev.memplan.PlanOptions;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.validate.PlanValidator;
import dev.memplan.Schedule;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.generate.GeneratedGraph;
import dev.memplan.generate.TransformerConfig;
import dev.memplan.generate.TransformerGenerator;
import dev.memplan.json.GraphJson;
import java.util.Arrays;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

@EngineIndependent
class DemoCommandTest {
    private static final Pattern ANSWER = Pattern.compile("the longest sequence that fits is ([\\d,]+) tokens");

    @Test
    void plansEveryLengthAndFindsTheLongestThatFits() {
        CliRun run = CliRun.of("demo", "--budget", "256MiB");
        assertEquals(0, run.exit(), run::toString);
        String[] lines = run.lines();
        Schedule offsets = TransformerGenerator.gpt2Small().compile(PlanOptions.defaults().withStrategy(Strategy.OFFSETS));
        Schedule slots = TransformerGenerator.gpt2Small().compile(PlanOptions.defaults().withStrategy(Strategy.SLOTS));
        for (long seq = 128; seq <= 8192; seq *= 2) {
            String prefix = String.format("%8d  ", seq);
            String row = Arrays.stream(lines).filter(l -> l.startsWith(prefix)).findFirst().orElseThrow(
                    () -> new AssertionError("no row for this length in\n" + run));
            // seq, naive, offsets peak, slots peak, lower bound, offsets/bound, slots/bound
            String[] cols = row.trim().split(" +");
            Map<String, Long> bindings = Map.of("batch", 1L, "seq", seq);
            ActivationPlan byOffsets = offsets.plan(bindings).orElseThrow();
            ActivationPlan bySlots = slots.plan(bindings).orElseThrow();
            assertEquals(byOffsets.peakBytes(), number(cols[2]), "offsets peak in " + row);
            assertEquals(bySlots.peakBytes(), number(cols[3]), "slots peak in " + row);
            assertEquals(byOffsets.lowerBoundBytes(), number(cols[4]), "bound in " + row);
        }
        assertTrue(run.out().contains("the budget answer below plans with offsets"), run::toString);
        Matcher m = ANSWER.matcher(run.out());
        assertTrue(m.find(), run::toString);
        long answer = Long.parseLong(m.group(1).replace(",", ""));

        Schedule schedule = TransformerGenerator.gpt2Small().compile(PlanOptions.defaults());
        long budget = 256L << 20;
        ActivationPlan atAnswer = schedule.plan(Map.of("batch", 1L, "seq", answer)).orElseThrow();
        PlanValidator.validate(atAnswer);
        assertTrue(atAnswer.peakBytes() <= budget, "the answer fits");
        assertTrue(Admission.peakAt(schedule, "seq", Map.of("batch", 1L), answer + 1) > budget,
                "one more token does not");
    }

    @Test
    void largestFittingSearchesTheWholeRange() {
        Schedule schedule = TransformerGenerator.gpt2Small().compile(PlanOptions.defaults());
        Map<String, Long> batch = Map.of("batch", 1L);
        assertEquals(OptionalLong.empty(), Admission.largestFitting(schedule, "seq", batch, 1, 1 << 20));
        assertEquals(OptionalLong.of(64), Admission.largestFitting(schedule, "seq", batch, Long.MAX_VALUE, 64));
        long budget = Admission.peakAt(schedule, "seq", batch, 1000);
        long found = Admission.largestFitting(schedule, "seq", batch, budget, 1 << 20).getAsLong();
        assertTrue(found >= 1000, "1000 fits its own peak, so the answer is at least 1000: " + found);
        assertTrue(Admission.peakAt(schedule, "seq", batch, found + 1) > budget);
    }

    @Test
    void theBudgetAnswerCanUseSlots() {
        CliRun run = CliRun.of("demo", "--budget", "256MiB", "--strategy", "slots");
        assertEquals(0, run.exit(), run::toString);
        assertTrue(run.out().contains("the budget answer below plans with slots"), run::toString);
        Matcher m = ANSWER.matcher(run.out());
        assertTrue(m.find(), run::toString);
        long answer = Long.parseLong(m.group(1).replace(",", ""));
        Schedule schedule = TransformerGenerator.gpt2Small().compile(PlanOptions.defaults().withStrategy(Strategy.SLOTS));
        ActivationPlan atAnswer = schedule.plan(Map.of("batch", 1L, "seq", answer)).orElseThrow();
        PlanValidator.validate(atAnswer);
        assertTrue(atAnswer.peakBytes() <= 256L << 20, "the answer fits");
        assertTrue(Admission.peakAt(schedule, "seq", Map.of("batch", 1L), answer + 1) > 256L << 20);
    }

    private static long number(String column) {
        return Long.parseLong(column.replace(",", ""));
    }

    /** The jar's demo model is the test generator's GPT-2 small, value for value and view for view. */
    @Test
    void theDemoModelIsTheGeneratorsGpt2Small() {
        GeneratedGraph generated = TransformerGenerator.gpt2Small();
        GraphJson.GraphFile bundled = DemoDecoder.load();
        assertEquals(GraphJson.toJson(generated.graph(), generated.views()),
                GraphJson.toJson(bundled.graph(), bundled.views()),
                "regenerate src/main/resources/dev/memplan/cli/" + DemoDecoder.RESOURCE
                        + " with GraphJson.write(TransformerGenerator.gpt2Small()...)");
        assertEquals(TransformerConfig.gpt2Small().toString(), DemoDecoder.DESCRIPTION);
        assertEquals(generated.bindings().keySet(), DemoDecoder.bindings(1, 1).keySet());
    }

    @Test
    void badBudgetIsAUsageError() {
        CliRun run = CliRun.of("demo", "--budget", "lots");
        assertEquals(2, run.exit(), run::toString);
        assertTrue(run.err().contains("'lots' is not a byte count"), run::toString);
    }
}
