// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

/**
 * What a request needs from a {@link MemoryBudget}, in bytes. The budget asks; it never knows what
 * the request is (as a cache asks a weigher for a weight). memplan's own plans ({@link OnnxPlan})
 * and a runtime's prediction (ONNX Runtime's, in the {@code memplan-ort} module) both answer.
 */
@FunctionalInterface
public interface MemoryNeed {

    /**
     * The bytes to lease for the request.
     *
     * @return bytes, >= 0
     * @throws IllegalArgumentException naming what to bind when the need is not known yet (a
     *                                  deferred plan)
     */
    long neededBytes();
}
