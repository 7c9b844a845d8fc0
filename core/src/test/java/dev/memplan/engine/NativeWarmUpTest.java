// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.NativeRequirement;
import java.nio.LongBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The tiny plan the native engine makes when its library loads (NativeWarmUp). */
@EngineIndependent
class NativeWarmUpTest {

    @Test
    void theLibraryLoadsWithItsWarmUpAndTheWarmUpRunsAgain() {
        NativeRequirement.requireNativeEngine();
        assertTrue(NativeEngine.loadFailure().isEmpty(), NativeEngine.unavailableReason());
        assertDoesNotThrow(NativeWarmUp::run);
    }

    @Test
    void theWarmUpChainPlansAsTheJavaEngineDoes() {
        NativeRequirement.requireNativeEngine();
        FlatGraph chain = NativeWarmUp.chain();
        CompiledGraph nativeGraph = NativeEngine.instance().orElseThrow().compile(chain, NativeWarmUp.ROOTS, false);
        CompiledGraph javaGraph = JavaEngine.INSTANCE.compile(chain, NativeWarmUp.ROOTS, false);
        assertEquals(javaGraph.numOwners(), nativeGraph.numOwners());
        long[] sizes = new long[nativeGraph.numOwners()];
        Arrays.fill(sizes, 64);
        Allocation n = nativeGraph.allocate(LongBuffer.wrap(sizes));
        Allocation j = javaGraph.allocate(LongBuffer.wrap(sizes));
        assertEquals(j.numSlots(), n.numSlots());
        assertEquals(j.peakBytes(), n.peakBytes());
        assertEquals(j.ownerSlots(), n.ownerSlots());
    }
}
