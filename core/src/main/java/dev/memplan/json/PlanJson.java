// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.io.JsonOutput;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.Arrays;

/**
 * The JSON plan output: one compact object per plan, on one line.
 *
 * <p>Complete: {@code {"engine":"java","status":"complete","strategy":"offsets","order":[node names],
 * "owners":[{"value":"h","bytes":3072,"def":0,"useEnd":2,"offset":0}],"peakBytes":...,
 * "naiveBytes":...,"savingsRatio":...,"lowerBoundBytes":...}}, owners in ascending (def, value id).
 * With in-place reuse on (docs/design.md §3b), then {@code "lowerBoundWithoutInPlaceBytes"} and
 * {@code "inPlace":[{"value":"r1","buffer":"c0","over":"c0","def":1,"useEnd":2}]}: each value that
 * took an input's buffer, the owner whose buffer it is, the input it overwrote and its own interval.
 * A slots plan (strategy {@code "slots"}) also gives each owner its {@code "slot"} (after
 * {@code "offset"}, the slot's base), and after the owners {@code "slots":[{"id":0,"capacityBytes":3072}]}
 * in ascending id, and {@code "numSlots"} after {@code "naiveBytes"}; an offsets plan has neither.
 * Deferred: {@code {"engine":"java","status":"deferred","unknownSizes":[value names in ascending id]}}.
 * Names are {@code Value.displayName()} and {@code Node.displayName()}. When a file label is given
 * (the command line plans several files), {@code "file"} comes first.
 */
public final class PlanJson {
    private static final JsonFactory FACTORY = JsonOutput.FACTORY;

    private PlanJson() {
    }

    /**
     * {@return the plan object of {@code result}, planned on {@code schedule}, without a newline}
     *
     * @param schedule the schedule planned on
     * @param result the plan or deferral
     */
    public static String toJson(Schedule schedule, PlanResult result) {
        return toJson(null, schedule, result);
    }

    /**
     * As {@link #toJson(Schedule, PlanResult)}, with {@code "file"} first when {@code file} is not null.
     *
     * @param file the file name to put first, or null
     * @param schedule the schedule planned on
     * @param result the plan or deferral
     * @return one line of JSON
     */
    public static String toJson(String file, Schedule schedule, PlanResult result) {
        StringWriter out = new StringWriter();
        try {
            write(file, schedule, result, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    /**
     * Writes the plan object to {@code out}, without a newline; does not close {@code out}.
     *
     * @param file the file name to put first, or null
     * @param schedule the schedule planned on
     * @param result the plan or deferral
     * @param out where to write; not closed
     * @throws IOException when {@code out} fails
     */
    public static void write(String file, Schedule schedule, PlanResult result, Writer out) throws IOException {
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.writeStartObject();
            writeFields(g, file, schedule, result);
            g.writeEndObject();
        }
    }

    /**
     * Writes the fields of the plan object into the object {@code g} has open, so that a caller
     * can add fields of its own before closing it (the ONNX report does).
     *
     * @param g an open generator, inside an object
     * @param file the file name to put first, or null
     * @param schedule the schedule planned on
     * @param result the plan or deferral
     * @throws IOException when the generator's target fails
     */
    public static void writeFields(JsonGenerator g, String file, Schedule schedule, PlanResult result)
            throws IOException {
        if (file != null) {
            g.writeStringField("file", file);
        }
        g.writeStringField("engine", schedule.engine());
        if (result instanceof PlanResult.Complete c) {
            if (c.plan().schedule() != schedule) {
                throw new IllegalArgumentException("the plan was made on another schedule");
            }
            writeComplete(g, schedule, c.plan());
        } else {
            g.writeStringField("status", "deferred");
            g.writeArrayFieldStart("unknownSizes");
            for (int v : ((PlanResult.Deferred) result).unknownSizes()) {
                g.writeString(schedule.graph().value(v).displayName());
            }
            g.writeEndArray();
        }
    }

    private static void writeComplete(JsonGenerator g, Schedule schedule, ActivationPlan plan) throws IOException {
        Graph graph = schedule.graph();
        boolean slots = plan.strategy() == Strategy.SLOTS;
        g.writeStringField("status", "complete");
        g.writeStringField("strategy", plan.strategy().toString());
        g.writeArrayFieldStart("order");
        for (int n : schedule.order()) {
            g.writeString(graph.node(n).displayName());
        }
        g.writeEndArray();
        g.writeArrayFieldStart("owners");
        for (int o : ownersByDefThenId(schedule)) {
            int v = schedule.ownerValue(o);
            g.writeStartObject();
            g.writeStringField("value", graph.value(v).displayName());
            g.writeNumberField("bytes", plan.sizeOf(v));
            g.writeNumberField("def", schedule.def(o));
            g.writeNumberField("useEnd", schedule.useEnd(o));
            g.writeNumberField("offset", plan.offsetOf(v));
            if (slots) {
                g.writeNumberField("slot", plan.slotOf(v));
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        if (slots) {
            g.writeArrayFieldStart("slots");
            for (ActivationPlan.Slot s : plan.slots()) {
                g.writeStartObject();
                g.writeNumberField("id", s.id());
                g.writeNumberField("capacityBytes", s.capacityBytes());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        g.writeNumberField("peakBytes", plan.peakBytes());
        g.writeNumberField("naiveBytes", plan.naiveBytes());
        if (slots) {
            g.writeNumberField("numSlots", plan.numSlots());
        }
        g.writeNumberField("savingsRatio", plan.savingsRatio());
        g.writeNumberField("lowerBoundBytes", plan.lowerBoundBytes());
        writeInPlace(g, schedule, plan);
    }

    /**
     * With in-place reuse on: the bound without it, and every value placed in place: the owner
     * whose buffer it is in ({@code "buffer"}), the input it overwrote ({@code "over"}) and its
     * own interval. Nothing when in-place reuse is off, so such plans read as before.
     *
     * @param g an open generator, inside the plan object
     * @param schedule the schedule planned on
     * @param plan the plan
     * @throws IOException when the generator's target fails
     */
    public static void writeInPlace(JsonGenerator g, Schedule schedule, ActivationPlan plan) throws IOException {
        if (!schedule.options().inPlaceEnabled()) {
            return;
        }
        g.writeNumberField("lowerBoundWithoutInPlaceBytes", plan.lowerBoundWithoutInPlaceBytes());
        Graph graph = schedule.graph();
        g.writeArrayFieldStart("inPlace");
        if (schedule.numInPlace() > 0) {
            Schedule plain = schedule.withoutInPlace();
            for (int o : ownersByDefThenId(plain)) {
                int v = plain.ownerValue(o);
                int over = schedule.inPlaceSource(v);
                if (over < 0) {
                    continue;
                }
                g.writeStartObject();
                g.writeStringField("value", graph.value(v).displayName());
                g.writeStringField("buffer", graph.value(schedule.bufferOf(v)).displayName());
                g.writeStringField("over", graph.value(over).displayName());
                g.writeNumberField("def", plain.def(o));
                g.writeNumberField("useEnd", plain.useEnd(o));
                g.writeEndObject();
            }
        }
        g.writeEndArray();
    }

    /**
     * Owner indexes in ascending (def, value id), the order of {@code "owners"}. Allocation order sorts by def already, but the
     * outputs of one node, and included graph inputs next to the first node's outputs, need not
     * be in id order.
     *
     * @param schedule the schedule
     * @return owner indexes in that order
     */
    public static int[] ownersByDefThenId(Schedule schedule) {
        int n = schedule.numOwners();
        long[] keys = new long[n];
        for (int o = 0; o < n; o++) {
            keys[o] = ((long) schedule.def(o) << 32) | schedule.ownerValue(o);
        }
        Arrays.sort(keys);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = schedule.ownerIndexOf((int) keys[i]);
        }
        return out;
    }
}
