// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JNI mapping of ort_arena.h: its constants are the header's, and the C++ side refuses bad
 * handles and sizes with a status and one line, before touching ONNX Runtime.
 */
@EngineIndependent
class OrtArenaNativeTest {

    @BeforeAll
    static void load() {
        OrtCApi.requireLoaded();
    }

    @Test
    void constantsAreTheHeadersMacros() {
        assertEquals(OrtArenaNative.MEMPLAN_ORT_OK(), OrtArenaNative.OK);
        assertEquals(OrtArenaNative.MEMPLAN_ORT_UNAVAILABLE(), OrtArenaNative.UNAVAILABLE);
        assertEquals(OrtArenaNative.MEMPLAN_ORT_NUM_STATS(), OrtArenaNative.NUM_STATS);
        assertEquals(OrtArenaNative.MEMPLAN_ORT_STAT_TOTAL_ALLOCATED(), OrtArenaNative.STAT_TOTAL_ALLOCATED);
        assertEquals(OrtArenaNative.MEMPLAN_ORT_START_EMPTY(), OrtArenaNative.START_EMPTY);
        assertEquals(OrtArenaNative.MEMPLAN_ORT_START_ONE_FREE_CHUNK(), OrtArenaNative.START_ONE_FREE_CHUNK);
        assertEquals(OrtArenaNative.MEMPLAN_ORT_START_LEN(), OrtArenaNative.START_LEN);
    }

    @Test
    void badArgumentsAreRefusedWithOneLine() {
        byte[] err = new byte[128];
        int rc = OrtArenaNative.memplan_ort_register_counting_allocator(0, err, err.length);
        assertTrue(rc != OrtArenaNative.OK);
        assertTrue(text(err).contains("env must be non-zero"), text(err));
        rc = OrtArenaNative.memplan_ort_counting_stats(new long[4], 4, err, err.length);
        assertTrue(rc != OrtArenaNative.OK);
        assertTrue(text(err).contains("5 longs"), text(err));
        rc = OrtArenaNative.memplan_ort_arena_stats(8, new long[2], 2, err, err.length);
        assertTrue(rc != OrtArenaNative.OK);
        assertTrue(text(err).contains("5 longs"), text(err));
        rc = OrtArenaNative.memplan_ort_arena_start(8, new long[2], 2, err, err.length);
        assertTrue(rc != OrtArenaNative.OK);
        assertTrue(text(err).contains("3 longs"), text(err));
        rc = OrtArenaNative.memplan_ort_counting_keep_up_to(-1, err, err.length);
        assertTrue(rc != OrtArenaNative.OK);
        assertTrue(text(err).contains("bytes must be >= 0"), text(err));
    }

    @Test
    void aCountedBufferIsCountedUntilGivenBackOnce() {
        long before = inUse();
        ByteBuffer buffer = OrtCApi.allocateCounted(200_000);
        assertEquals(200_000, buffer.capacity());
        assertEquals(ByteOrder.nativeOrder(), buffer.order());
        assertEquals(before + 200_000, inUse());
        buffer.putLong(199_992, 42L); // the whole block is the caller's
        assertEquals(42L, buffer.getLong(199_992));
        OrtCApi.releaseCounted(buffer);
        assertEquals(before, inUse());
        IllegalStateException twice = assertThrows(IllegalStateException.class, () -> OrtCApi.releaseCounted(buffer));
        assertTrue(twice.getMessage().contains("given back already"), twice.getMessage());
        ByteBuffer notCounted = ByteBuffer.allocateDirect(64);
        assertThrows(IllegalStateException.class, () -> OrtCApi.releaseCounted(notCounted));
        assertThrows(IllegalStateException.class, () -> OrtCApi.allocateCounted(0));
        assertEquals(200_000 + 64 + 4096 - (200_000 + 64) % 4096, OrtCApi.countedBytes(200_000));
        assertEquals(1_000 + 64, OrtCApi.countedBytes(1_000));
    }

    private static long inUse() {
        long[] out = new long[OrtArenaNative.NUM_STATS];
        assertEquals(OrtArenaNative.OK, OrtArenaNative.memplan_ort_counting_stats(out, out.length, new byte[128], 128));
        return out[OrtArenaNative.STAT_IN_USE];
    }

    private static String text(byte[] err) {
        int n = 0;
        while (n < err.length && err[n] != 0) {
            n++;
        }
        return new String(err, 0, n, StandardCharsets.UTF_8);
    }
}
