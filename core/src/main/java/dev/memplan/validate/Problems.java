// SPDX-License-Identifier: Apache-2.0
package dev.memplan.validate;

import java.util.ArrayList;
import java.util.List;

/** The problems {@link PlanValidator} found: all are counted, the first {@link #MAX_LISTED} kept. */
final class Problems {
    static final int MAX_LISTED = 100;

    private final List<String> listed = new ArrayList<>();
    private long total;

    void add(String problem) {
        total++;
        if (listed.size() < MAX_LISTED) {
            listed.add(problem);
        }
    }

    boolean isEmpty() {
        return total == 0;
    }

    void throwIfAny() {
        if (total > 0) {
            throw new PlanValidationException(listed, total);
        }
    }
}
