// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
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

    private static String text(byte[] err) {
        int n = 0;
        while (n < err.length && err[n] != 0) {
            n++;
        }
        return new String(err, 0, n, StandardCharsets.UTF_8);
    }
}
