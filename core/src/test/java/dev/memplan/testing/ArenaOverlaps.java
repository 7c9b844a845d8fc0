// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import dev.memplan.validate.PlanValidator;
import java.util.Optional;

/**
 * A deliberately plain check of an arena, sharing no code with PlanValidator or the engines: every
 * pair of buffers is compared (quadratic, for the few hundred or thousand buffers tests use). Two
 * buffers collide when both have bytes, their inclusive intervals {@code [def, useEnd]} overlap
 * and their byte ranges {@code [offset, offset + size)} intersect.
 */
public final class ArenaOverlaps {
    private ArenaOverlaps() {
    }

    /**
     * The first problem found, or empty when the arena is valid: an offset below 0, a buffer
     * ending past {@code arena}, or two colliding buffers (named by index).
     */
    public static Optional<String> firstProblem(int[] def, int[] useEnd, long[] offset, long[] size, long arena) {
        int n = size.length;
        for (int i = 0; i < n; i++) {
            if (offset[i] < 0) {
                return Optional.of("buffer " + i + " has offset " + offset[i]);
            }
            if (size[i] > 0 && offset[i] > arena - size[i]) {
                return Optional.of("buffer " + i + " at " + offset[i] + " (" + size[i] + " bytes) ends past the arena of "
                        + arena);
            }
        }
        for (int i = 0; i < n; i++) {
            if (size[i] == 0) {
                continue;
            }
            for (int j = i + 1; j < n; j++) {
                boolean liveTogether = def[i] <= useEnd[j] && def[j] <= useEnd[i];
                boolean shareBytes = size[j] > 0 && offset[i] < offset[j] + size[j] && offset[j] < offset[i] + size[i];
                if (liveTogether && shareBytes) {
                    return Optional.of("buffers " + i + " [" + def[i] + ", " + useEnd[i] + "] at [" + offset[i] + ", "
                            + (offset[i] + size[i]) + ") and " + j + " [" + def[j] + ", " + useEnd[j] + "] at ["
                            + offset[j] + ", " + (offset[j] + size[j]) + ") are live together and share bytes");
                }
            }
        }
        return Optional.empty();
    }
}
