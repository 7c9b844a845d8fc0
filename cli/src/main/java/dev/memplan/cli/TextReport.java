// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.Dim.Symbol;
import dev.memplan.Graph.Value;
import dev.memplan.io.TerminalText;
import dev.memplan.json.PlanJson;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The text format of {@code memplan plan}: a short summary of one file's plan, for people, with
 * both strategies' peaks side by side (the other strategy is planned just for that line).
 */
final class TextReport {
    /** Slot lines shown before "... more slots". */
    private static final int MAX_SLOTS = 12;
    /** Names listed per line before "(+N more)". */
    private static final int MAX_NAMES = 8;

    private TextReport() {
    }

    static void write(PlannedFile file, Map<String, Long> bindings, PrintWriter out) {
        Schedule s = file.schedule();
        if (file.result() instanceof PlanResult.Complete c) {
            writeComplete(file.label(), s, c.plan(), bindings, out);
        } else {
            writeDeferred(file.label(), s, ((PlanResult.Deferred) file.result()).unknownSizes(), bindings, out);
        }
    }

    private static void writeComplete(String label, Schedule s, ActivationPlan plan, Map<String, Long> bindings,
                                      PrintWriter out) {
        Graph g = s.graph();
        out.println(TerminalText.escape(label) + ": complete plan (engine " + s.engine() + ")");
        String bound = boundSymbols(g, bindings);
        if (!bound.isEmpty()) {
            out.println("  bound:        " + bound);
        }
        boolean slotsPlan = plan.strategy() == Strategy.SLOTS;
        out.println("  nodes " + g.nodeCount() + ", owners " + s.numOwners()
                + (slotsPlan ? ", slots " + plan.numSlots() : ""));
        out.println("  strategy     " + plan.strategy()
                + (slotsPlan ? "" : " (effort " + s.options().effort() + ")"));
        // naive is the largest of the three: align the others under it.
        int w = String.format(Locale.ROOT, "%,d", plan.naiveBytes()).length();
        out.println("  naive        " + bytes(plan.naiveBytes(), w));
        out.println("  peak         " + bytes(plan.peakBytes(), w));
        out.println(String.format(Locale.ROOT, "  savings      %.1f%%", 100.0 * plan.savingsRatio()));
        out.println("  lower bound  " + bytes(plan.lowerBoundBytes(), w)
                + (plan.lowerBoundBytes() > 0
                ? String.format(Locale.ROOT, "  peak/lower bound %.2f", (double) plan.peakBytes() / plan.lowerBoundBytes())
                : ""));
        out.println("  in-place     " + InPlaceSavings.of(s, plan, bindings).line());
        out.println("  " + StrategyComparison.of(plan, bindings).line());
        if (slotsPlan) {
            writeSlots(s, plan, out);
        } else {
            out.println("  (--format json lists every owner's offset)");
        }
    }

    /** One line per slot (at most {@link #MAX_SLOTS}): its capacity and the owners in it. */
    private static void writeSlots(Schedule s, ActivationPlan plan, PrintWriter out) {
        Graph g = s.graph();
        List<List<String>> bySlot = new ArrayList<>();
        for (int i = 0; i < plan.numSlots(); i++) {
            bySlot.add(new ArrayList<>());
        }
        for (int o : ownersByDefThenId(s)) {
            int v = s.ownerValue(o);
            bySlot.get(plan.slotOf(v)).add(g.value(v).displayName());
        }
        List<ActivationPlan.Slot> slots = plan.slots();
        int width = String.format(Locale.ROOT, "%,d", slots.stream().mapToLong(ActivationPlan.Slot::capacityBytes)
                .max().orElse(0)).length();
        for (int i = 0; i < Math.min(slots.size(), MAX_SLOTS); i++) {
            ActivationPlan.Slot slot = slots.get(i);
            out.println(String.format(Locale.ROOT, "  slot %-3d %," + width + "d B  %s", slot.id(),
                    slot.capacityBytes(), names(bySlot.get(i))));
        }
        if (slots.size() > MAX_SLOTS) {
            out.println("  ... " + (slots.size() - MAX_SLOTS) + " more slots (--format json lists them all)");
        }
    }

    private static void writeDeferred(String label, Schedule s, List<Integer> unknown, Map<String, Long> bindings,
                                      PrintWriter out) {
        Graph g = s.graph();
        out.println(TerminalText.escape(label) + ": deferred, " + unknown.size() + " of " + s.numOwners()
                + " owners have no size yet (engine " + s.engine() + ")");
        String bound = boundSymbols(g, bindings);
        if (!bound.isEmpty()) {
            out.println("  bound:        " + bound);
        }
        List<String> names = new ArrayList<>();
        Set<String> missing = new LinkedHashSet<>();
        List<String> noFixedWidth = new ArrayList<>();
        for (int v : unknown) {
            Value value = g.value(v);
            names.add(value.displayName());
            if (!value.dataType().hasFixedWidth()) {
                noFixedWidth.add(value.displayName() + " (" + value.dataType() + ")");
            }
            for (Symbol sym : value.shape().symbols()) {
                if (!bindings.containsKey(sym.name())) {
                    missing.add(TerminalText.escape(sym.name()));
                }
            }
        }
        out.println("  no size:      " + names(names));
        if (!missing.isEmpty()) {
            StringBuilder example = new StringBuilder();
            for (String sym : missing) {
                example.append(" --bind ").append(sym).append("=N");
            }
            out.println("  to bind:      " + String.join(", ", missing) + "   (e.g." + example + ")");
        }
        if (!noFixedWidth.isEmpty()) {
            out.println("  no fixed width, so no static size: " + names(noFixedWidth));
        }
    }

    /** The graph's symbols that are bound, as {@code batch=2, seq=128}, in the graph's order. */
    private static String boundSymbols(Graph g, Map<String, Long> bindings) {
        List<String> parts = new ArrayList<>();
        for (String sym : g.symbols().keySet()) {
            Long v = bindings.get(sym);
            if (v != null) {
                parts.add(TerminalText.escape(sym) + "=" + v);
            }
        }
        return String.join(", ", parts);
    }

    private static int[] ownersByDefThenId(Schedule s) {
        return PlanJson.ownersByDefThenId(s);
    }

    /** Names from the input file, escaped for the terminal; at most {@link #MAX_NAMES}. */
    private static String names(List<String> names) {
        List<String> shown = new ArrayList<>();
        for (String name : names.subList(0, Math.min(names.size(), MAX_NAMES))) {
            shown.add(TerminalText.escape(name));
        }
        return String.join(", ", shown)
                + (names.size() > MAX_NAMES ? ", ... (+" + (names.size() - MAX_NAMES) + " more)" : "");
    }

    /** {@code 1,572,864 B  1.50 MiB}, the number right-aligned to {@code width} characters (0: none). */
    static String bytes(long n, int width) {
        String exact = String.format(Locale.ROOT, width > 0 ? "%," + width + "d B" : "%,d B", n);
        if (n < 1024) {
            return exact;
        }
        return exact + "  " + ByteCount.inBinaryUnits(n, false);
    }
}
