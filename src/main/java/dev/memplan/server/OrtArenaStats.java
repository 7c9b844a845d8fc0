// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import ai.onnxruntime.OrtSession;
import dev.memplan.ort.OrtCApi;

/**
 * ONNX Runtime's own figures for a session's CPU arena, read through its C API
 * ({@code AllocatorGetStats}, ONNX Runtime 1.23 or newer), which ONNX Runtime Java does not expose.
 * A figure the arena does not report is -1.
 *
 * @param inUseBytes          bytes handed out now
 * @param maxInUseBytes       the most bytes ever handed out at once
 * @param totalAllocatedBytes bytes the arena holds from the system now (its regions): what the
 *                            process pays for
 * @param allocations         allocations served so far
 * @param reserves            regions reserved so far
 */
public record OrtArenaStats(long inUseBytes, long maxInUseBytes, long totalAllocatedBytes, long allocations,
                            long reserves) {

    /**
     * Reads the CPU arena statistics of {@code session}: its own arena, or the shared one when its
     * options set {@code session.use_env_allocators=1}.
     *
     * @param session an open session
     * @return the figures now
     * @throws IllegalStateException naming the cause when ONNX Runtime's C API is not reachable or
     *                               the session has no CPU arena
     */
    public static OrtArenaStats of(OrtSession session) {
        long[] s = OrtCApi.arenaStats(session);
        return new OrtArenaStats(s[0], s[1], s[2], s[3], s[4]);
    }
}
