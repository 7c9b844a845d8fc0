// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.nio.LongBuffer;
import java.util.function.ToLongFunction;

/** What tests that build plans by hand (corrupted ones, for the validator) need from a plan's layout. */
final class TestPlans {
    private TestPlans() {
    }

    /** The bound-without-in-place function a plan made on {@code layout} by {@link Schedule} has. */
    static ToLongFunction<LongBuffer> boundOf(ActivationPlan.Layout layout) {
        return ((Schedule) layout)::lowerBoundWithoutInPlace;
    }
}
