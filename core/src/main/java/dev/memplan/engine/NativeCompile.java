// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.IntBuffer;

/**
 * Compiling a schedule in the native engine: one call to {@code memplan_compile_packed}
 * (packed_schedule.h), which reads the graph's Java arrays pinned in place (no copy into native
 * memory), checks them as {@link FlatGraph}'s validations do, and writes the whole schedule packed
 * in pooled native memory; one copy moves it into the Java array the {@link NativeCompiledGraph}
 * keeps. No O(n) Java loop repeats what the C++ code checks: Java reads the graph again only when
 * the C++ code refuses it, to name the fault with the Java engine's message.
 */
final class NativeCompile {
    private NativeCompile() {
    }

    static NativeCompiledGraph run(FlatGraph g, int[] valueRoot, int[] inPlaceMask, boolean includeGraphInputs) {
        int v = g.numValues();
        int n = g.numNodes();
        int p = g.numPositions();
        long capacity = MemplanNative.memplan_compile_packed_capacity(v, n);
        long temporaries = MemplanNative.memplan_compile_scratch_bytes(v, n, g.inputs().length,
                inPlaceMask == null ? 0 : 1);
        if (capacity < 0 || temporaries < 0) {
            validate(g, valueRoot, inPlaceMask); // names a negative count
            throw new IllegalArgumentException("too many values (" + v + ") or nodes (" + n + ") for one native compile");
        }
        int[] counts = new int[MemplanNative.COMPILE_NUM_COUNTS];
        // The packed schedule and the compile's temporaries come from memory the pool keeps mapped
        // (and in cache) between calls; the schedule then moves into a Java array of its exact
        // length. Malloc'd temporaries were handed back to the OS and faulted in again per compile.
        NativeBlock block = NativeBlockPool.SHARED.take(NativeBlock.intBytes((int) capacity)
                + NativeBlock.byteBytes(temporaries));
        int[] schedule;
        try {
            long packed = block.skip(NativeBlock.intBytes((int) capacity));
            long scratchBytes = block.remaining();
            int rc = MemplanNative.memplan_compile_packed(v, n, g.inputOffsets(), g.inputOffsets().length, g.inputs(),
                    g.inputs().length, g.outputOffsets(), g.outputOffsets().length, g.outputs(), g.outputs().length,
                    valueRoot, valueRoot.length, g.valueFlags(), g.valueFlags().length, inPlaceMask,
                    inPlaceMask == null ? 0 : inPlaceMask.length, includeGraphInputs ? 1 : 0, packed, (int) capacity,
                    counts, counts.length, block.rest(), scratchBytes);
            if (rc == MemplanNative.CYCLE) {
                throw new GraphCycleException(counts[MemplanNative.COMPILE_ERROR_NODE]);
            }
            if (rc == MemplanNative.BAD_ARGUMENT) {
                validate(g, valueRoot, inPlaceMask); // names the value or node at fault, as the Java engine does
                // the one check that needs the order (a view made before its root): the Java
                // engine's compile names it; a failure path, so its cost does not matter
                Compile.run(g, valueRoot, inPlaceMask, includeGraphInputs);
            }
            NativeCompiledGraph.check(rc, "compile");
            int owners = counts[MemplanNative.COMPILE_NUM_OWNERS];
            int length = counts[MemplanNative.COMPILE_SCHEDULE_LENGTH];
            if (owners < 0 || owners > v || length != capacity - 4L * (v - owners)) {
                throw new IllegalStateException("native compile reported " + owners + " owners and " + length
                        + " schedule ints for " + v + " values");
            }
            schedule = new int[length];
            NativeCompiledGraph.check(MemplanNative.memplan_copy_schedule(packed, (int) capacity, v, n, owners,
                    schedule, schedule.length), "compile");
        } finally {
            NativeBlockPool.SHARED.give(block);
        }
        int owners = counts[MemplanNative.COMPILE_NUM_OWNERS];
        // The layout of packed_schedule.h: order, def and free offsets, value buffers, then the
        // owner arrays.
        Slicer s = new Slicer(schedule);
        IntBuffer order = s.next(n);
        IntBuffer defOffsets = s.next(p + 1);
        IntBuffer freeOffsets = s.next(p + 1);
        IntBuffer valueBuffer = s.next(v);
        IntBuffer ownerValue = s.next(owners);
        IntBuffer ownerDef = s.next(owners);
        IntBuffer ownerUseEnd = s.next(owners);
        IntBuffer freeOwners = s.next(owners);
        return new NativeCompiledGraph(v, p, schedule, order, ownerValue, ownerDef, ownerUseEnd, defOffsets,
                freeOffsets, freeOwners, valueBuffer);
    }

    /** FlatGraph's validations, which throw naming the first fault; read only when C++ refused. */
    private static void validate(FlatGraph g, int[] valueRoot, int[] inPlaceMask) {
        g.validate();
        g.validateValues(valueRoot);
        g.validateInPlace(inPlaceMask);
    }

    /** Consecutive slices of one array, each a buffer whose array offset is its index. */
    private static final class Slicer {
        private final int[] array;
        private int used;

        Slicer(int[] array) {
            this.array = array;
        }

        IntBuffer next(int n) {
            IntBuffer out = IntBuffer.wrap(array, used, n).slice();
            used += n;
            return out;
        }
    }
}
