// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/**
 * What a test does when something it needs is missing: outside CI it skips with a message; in CI
 * (environment variable {@code CI} set, as {@code .ci/run} and hosted CI services do) it fails,
 * so that a CI run never passes by skipping.
 */
public final class Ci {
    private Ci() {
    }

    /** {@return whether this run is CI: the environment variable {@code CI} is set and not "false"} */
    public static boolean active() {
        String ci = System.getenv("CI");
        return ci != null && !ci.equalsIgnoreCase("false");
    }

    /**
     * Passes when {@code present}; otherwise skips the test with {@code message}, or fails it with
     * {@code message} and {@code inCiHint} in CI.
     *
     * @param present  whether what the test needs is there
     * @param message  what is missing and how to provide it
     * @param inCiHint why CI must have it (appended to the failure)
     */
    public static void require(boolean present, String message, String inCiHint) {
        if (present) {
            return;
        }
        if (active()) {
            fail(message + "; " + inCiHint);
        }
        Assumptions.assumeTrue(false, "skipped: " + message);
    }
}
