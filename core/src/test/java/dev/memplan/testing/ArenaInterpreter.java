// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import dev.memplan.Schedule;
import java.util.Arrays;

/**
 * Runs a plan on one byte arena, the way an executor would: each node first reads its inputs, then
 * writes its outputs. A produced value's stamp is derived from its id and its inputs' stamps, and
 * the node fills the value's bytes (in its buffer, at the buffer owner's offset) with a pattern of
 * that stamp; every read checks that its buffer still holds the stamp of the value it expects (a
 * view reads its root's). Any two live values that a plan lets overlap, in place or not, make some
 * read find another value's pattern. Graph inputs that own no bytes and weights live outside.
 */
public final class ArenaInterpreter {
    private final Schedule schedule;
    private final Graph graph;
    private final ActivationPlan plan;
    private final long[] bytesOf;
    private final byte[] arena;
    private final long[] stamp;

    /**
     * @param bytesOf each value's own bytes (shapes at the bindings), by value id; a value placed
     *                in place must fit its buffer's planned size
     */
    public ArenaInterpreter(ActivationPlan plan, long[] bytesOf) {
        this.plan = plan;
        this.schedule = (Schedule) plan.schedule();
        this.graph = schedule.graph();
        this.bytesOf = bytesOf;
        this.arena = new byte[Math.toIntExact(plan.peakBytes())];
        this.stamp = new long[graph.valueCount()];
    }

    /** Runs every node in order; returns null when every read found what it expected, else what went wrong. */
    public String run() {
        for (int v = 0; v < graph.valueCount(); v++) {
            if (graph.value(v).producer() < 0) {
                stamp[v] = mix(v, 0x5EED);
                if (schedule.ownerIndexOf(v) >= 0) {
                    write(v); // an included graph input is filled before the first node
                }
            }
        }
        int[] order = schedule.order();
        for (int p = 0; p < order.length; p++) {
            Node node = graph.node(order[p]);
            long h = node.id();
            for (int i = 0; i < node.inputCount(); i++) {
                int u = node.input(i);
                if (u == Graph.ABSENT) {
                    continue;
                }
                String wrong = check(u, "read by " + node.describe() + " at position " + p);
                if (wrong != null) {
                    return wrong;
                }
                h = mix(h, stamp[schedule.root(u)]);
            }
            for (int i = 0; i < node.outputCount(); i++) {
                int y = node.output(i);
                if (schedule.root(y) != y) {
                    continue; // a view writes nothing: its bytes are its source's
                }
                stamp[y] = mix(h, y);
                String tooBig = write(y);
                if (tooBig != null) {
                    return tooBig;
                }
            }
        }
        for (int out : graph.outputs()) {
            String wrong = check(out, "as a graph output after the last node");
            if (wrong != null) {
                return wrong;
            }
        }
        return null;
    }

    /** Fills y's bytes in its buffer with y's pattern; null, or why y does not fit its buffer. */
    private String write(int y) {
        int b = schedule.bufferOf(y);
        if (schedule.ownerIndexOf(b) < 0) {
            return null;
        }
        long size = bytesOf[y];
        if (size > plan.sizeOf(b)) {
            return graph.value(y).describe() + " (" + size + " bytes) does not fit the buffer of "
                    + graph.value(b).describe() + " (" + plan.sizeOf(b) + " bytes)";
        }
        int from = Math.toIntExact(plan.offsetOf(b));
        for (int i = 0; i < size; i++) {
            arena[from + i] = pattern(stamp[y], i);
        }
        return null;
    }

    /** Null when the bytes of u's data (its root's) hold the root's pattern, else what they hold. */
    private String check(int u, String when) {
        int data = schedule.root(u);
        int b = schedule.bufferOf(u);
        if (schedule.ownerIndexOf(b) < 0) {
            return null; // outside the arena: a graph input that owns nothing, or a weight
        }
        int from = Math.toIntExact(plan.offsetOf(b));
        long size = Math.min(bytesOf[data], plan.sizeOf(b));
        for (int i = 0; i < size; i++) {
            if (arena[from + i] != pattern(stamp[data], i)) {
                return graph.value(u).describe() + " " + when + ": byte " + i + " of its buffer "
                        + graph.value(b).describe() + " at offset " + from + " was overwritten (plan "
                        + plan + ", offsets " + Arrays.toString(offsets()) + ")";
            }
        }
        return null;
    }

    private long[] offsets() {
        long[] out = new long[schedule.numOwners()];
        plan.offsetsByOwner().get(out);
        return out;
    }

    private static byte pattern(long stamp, int i) {
        return (byte) mix(stamp, i);
    }

    private static long mix(long a, long b) {
        long x = a * 0x9E3779B97F4A7C15L + b;
        x ^= x >>> 31;
        x *= 0xBF58476D1CE4E5B9L;
        return x ^ (x >>> 29);
    }
}
