// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import dev.memplan.Schedule;
import dev.memplan.TensorSizes;
import dev.memplan.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The owner sizes of one schedule as a function of the symbol bindings, prepared once: static
 * owners keep their size, only symbolic owners are evaluated per request. Immutable.
 */
final class OwnerSizes {
    /** Marks an owner whose size is evaluated per request. */
    private static final long SYMBOLIC = -1;

    private final Value[] owners;
    private final long[] fixedBytes;

    OwnerSizes(Schedule schedule) {
        int n = schedule.numOwners();
        owners = new Value[n];
        fixedBytes = new long[n];
        for (int o = 0; o < n; o++) {
            Value v = schedule.graph().value(schedule.ownerValue(o));
            owners[o] = v;
            boolean fixed = v.dataType().hasFixedWidth() && v.shape().isStatic();
            // a static size is computed once; overflow then surfaces at every request, as it should
            fixedBytes[o] = fixed ? TensorSizes.bytes(v, Map.of()).orElse(SYMBOLIC) : SYMBOLIC;
        }
    }

    /**
     * Fills {@code out} (one entry per owner index) with the sizes at {@code bindings}.
     *
     * @return value ids of the owners whose size is unknown (ascending), empty when all are known
     */
    List<Integer> fill(Map<String, Long> bindings, long[] out) {
        List<Integer> unknown = List.of();
        for (int o = 0; o < owners.length; o++) {
            long b = fixedBytes[o];
            if (b == SYMBOLIC) {
                OptionalLong bytes = TensorSizes.bytes(owners[o], bindings);
                if (bytes.isEmpty()) {
                    if (unknown.isEmpty()) {
                        unknown = new ArrayList<>();
                    }
                    unknown.add(owners[o].id());
                    continue;
                }
                b = bytes.getAsLong();
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
