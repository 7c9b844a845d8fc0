// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import dev.memplan.DataType;
import dev.memplan.InvalidSizeException;
import dev.memplan.Schedule;
import dev.memplan.Shape;
import dev.memplan.Graph.Value;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The owner sizes of one schedule as a function of the symbol bindings, prepared once: static
 * owners keep the size computed at compile time; symbolic owners are grouped by (shape, type), and
 * each group is evaluated once per request (a transformer has hundreds of owners but a few dozen
 * distinct shapes). Immutable.
 */
final class OwnerSizes {
    /** Group index of an owner whose size is fixed. */
    private static final int FIXED = -1;

    private record Key(Shape shape, DataType type) {
    }

    private final Value[] owners;
    private final long[] fixedBytes;
    private final int[] group;
    private final Value[] groupRepresentative;

    OwnerSizes(Schedule schedule) {
        int n = schedule.numOwners();
        owners = new Value[n];
        fixedBytes = new long[n];
        group = new int[n];
        Map<Key, Integer> groups = new HashMap<>();
        List<Value> reps = new ArrayList<>();
        for (int o = 0; o < n; o++) {
            Value v = schedule.graph().value(schedule.ownerValue(o));
            owners[o] = v;
            if (v.dataType().hasFixedWidth() && v.shape().isStatic()) {
                group[o] = FIXED;
                // overflow of a static size surfaces here, at compile time, naming the value
                fixedBytes[o] = v.bytesAt(Map.of()).getAsLong();
            } else {
                group[o] = groups.computeIfAbsent(new Key(v.shape(), v.dataType()), k -> {
                    reps.add(v);
                    return reps.size() - 1;
                });
            }
        }
        groupRepresentative = reps.toArray(new Value[0]);
    }

    /**
     * Fills {@code out} (one entry per owner index) with the sizes at {@code bindings}.
     *
     * @return value ids of the owners whose size is unknown (ascending), empty when all are known
     * @throws InvalidSizeException naming the first owner (in owner order) whose size overflows or
     *                              has a negative dim
     */
    List<Integer> fill(Map<String, Long> bindings, long[] out) {
        long[] groupBytes = new long[groupRepresentative.length];
        try {
            for (int g = 0; g < groupBytes.length; g++) {
                groupBytes[g] = groupRepresentative[g].bytesAt(bindings).orElse(-1);
            }
        } catch (InvalidSizeException e) {
            // name the first owner at fault, not the group's representative
            for (Value owner : owners) {
                owner.bytesAt(bindings);
            }
            throw e;
        }
        List<Integer> unknown = List.of();
        for (int o = 0; o < owners.length; o++) {
            long b = group[o] == FIXED ? fixedBytes[o] : groupBytes[group[o]];
            if (b < 0) {
                if (unknown.isEmpty()) {
                    unknown = new ArrayList<>();
                }
                unknown.add(owners[o].id());
                continue;
            }
            out[o] = b;
        }
        if (!unknown.isEmpty()) {
            unknown.sort(null);
        }
        return unknown;
    }

    int count() {
        return owners.length;
    }
}
