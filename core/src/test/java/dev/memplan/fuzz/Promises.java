// SPDX-License-Identifier: Apache-2.0
package dev.memplan.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.MemplanException;
import dev.memplan.PlanResult;
import dev.memplan.io.TerminalText;
import dev.memplan.io.UnsafeChars;
import dev.memplan.testing.PlanAssertions;
import dev.memplan.validate.PlanValidator;
import java.util.function.Supplier;

/**
 * What every fuzz target holds memplan to, whatever the input: a refusal is one of memplan's own
 * exceptions with a one-line message free of raw control characters; a plan passes the
 * {@link PlanValidator}; the two engines give the same answer, refusal or plan. Any other
 * throwable escapes the target, and Jazzer reports it as a finding.
 */
public final class Promises {
    private Promises() {
    }

    /** The outcome of one call: a value, or the memplan exception it threw. */
    public record Outcome<T>(T value, MemplanException refusal) {
        public boolean refused() {
            return refusal != null;
        }
    }

    /**
     * Runs {@code call}; a {@link MemplanException} is checked ({@link #documented}) and returned
     * as a refusal, anything else propagates.
     */
    public static <T> Outcome<T> attempt(Supplier<T> call) {
        try {
            return new Outcome<>(call.get(), null);
        } catch (MemplanException e) {
            documented(e);
            return new Outcome<>(null, e);
        }
    }

    /**
     * A refusal as design.md promises it: a message, one line as printed. A message may quote the
     * input's names raw: it is escaped once, where it is printed (design.md, "Nothing from an input
     * file reaches a user unescaped"), so the printed form is what must be one clean line.
     */
    static void documented(MemplanException e) {
        String message = e.getMessage();
        assertNotNull(message, () -> e.getClass().getSimpleName() + " without a message");
        assertFalse(message.isBlank(), () -> e.getClass().getSimpleName() + " with a blank message");
        oneCleanLine(TerminalText.escape(message), e.getClass().getSimpleName() + ", as printed,");
    }

    /** {@code text} has no line break and no character that UnsafeChars lists (terminal escapes, bidi, ...). */
    static void oneCleanLine(String text, String what) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            int at = i;
            assertTrue(c != '\n' && c != '\r', () -> what + " spans lines: " + escaped(text));
            assertFalse(UnsafeChars.isUnsafeAt(text, at), () -> what + " holds a raw unsafe character at " + at
                    + ": " + escaped(text));
        }
    }

    /** Both engines refused with the same exception and message, or gave the same valid result. */
    static void sameOutcome(Outcome<PlanResult> java, Outcome<PlanResult> nat, String context) {
        if (java.refused() || nat.refused()) {
            assertTrue(java.refused() && nat.refused(), () -> context + ": one engine refused, the other planned: "
                    + (java.refused() ? "java " + java.refusal().getMessage() : "native " + nat.refusal().getMessage()));
            assertEquals(java.refusal().getClass(), nat.refusal().getClass(), context + ": refusal types");
            assertEquals(java.refusal().getMessage(), nat.refusal().getMessage(), context + ": refusal messages");
            return;
        }
        PlanAssertions.assertSameResult(java.value(), nat.value(), context);
        if (java.value() instanceof PlanResult.Complete complete) {
            PlanValidator.validate(complete.plan());
            PlanValidator.validate(nat.value().orElseThrow());
        }
    }

    /** {@code text} with every character below U+0020 or past U+007E written as \\uXXXX, for a failure message. */
    static String escaped(String text) {
        StringBuilder out = new StringBuilder();
        for (char c : text.toCharArray()) {
            out.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c));
        }
        return out.toString();
    }
}
