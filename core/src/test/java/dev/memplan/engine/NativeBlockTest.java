// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.NativeRequirement;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The block the native compile and scratch carve their arrays from: each array 8-byte aligned, at
 * least one element, disjoint from the others and holding what was written to it; a block carved
 * past its size refuses instead of handing out memory it does not own.
 */
@EngineIndependent
class NativeBlockTest {
    @BeforeAll
    static void nativeLibrary() {
        NativeRequirement.requireNativeEngine();
        NativeEngine.instance().orElseThrow();
    }

    @Test
    void carvesAlignedDisjointArraysThatKeepTheirContents() {
        int[] odd = {7, -1, 5};
        long bytes = NativeBlock.intBytes(odd.length) + NativeBlock.intBytes(0) + NativeBlock.longBytes(2)
                + NativeBlock.byteBytes(13);
        try (NativeBlock block = new NativeBlock(bytes)) {
            IntBuffer copied = block.copy(odd);
            IntBuffer empty = block.ints(0);
            LongBuffer longs = block.longs(2);
            longs.put(0, Long.MIN_VALUE).put(1, Long.MAX_VALUE);
            long raw = MemplanNative.memplan_address(block.bytes(13));
            empty.put(0, 42); // an empty array still has one element, so its address is real

            long[] starts = {MemplanNative.memplan_address(copied), MemplanNative.memplan_address(empty),
                    MemplanNative.memplan_address(longs), raw};
            long[] lengths = {NativeBlock.intBytes(3), NativeBlock.intBytes(0), NativeBlock.longBytes(2),
                    NativeBlock.byteBytes(13)};
            for (int i = 0; i < starts.length; i++) {
                assertEquals(0, starts[i] % Long.BYTES, "array " + i + " is not 8-byte aligned");
                if (i > 0) {
                    assertTrue(starts[i] >= starts[i - 1] + lengths[i - 1], "array " + i + " overlaps the one before");
                }
            }
            int[] back = new int[odd.length];
            copied.get(0, back);
            assertArrayEquals(odd, back);
            assertEquals(42, empty.get(0));
            assertEquals(Long.MIN_VALUE, longs.get(0));
            assertEquals(Long.MAX_VALUE, longs.get(1));
        }
    }

    @Test
    void refusesToCarvePastItsEnd() {
        try (NativeBlock block = new NativeBlock(NativeBlock.intBytes(4))) {
            block.ints(4);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> block.ints(1));
            assertTrue(e.getMessage().contains("left"), e.getMessage());
        }
    }
}
