// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.lang.ref.Reference;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The native engine's schedule: the compile results stay in the direct buffers the C++ code wrote,
 * and each allocation runs in C++ on them. Scratch memory is sized once per schedule and reused
 * through a small pool, one per thread planning at the same time; a plan allocates only its own
 * results (slot per owner, capacity per slot), carved from {@link DirectSlabs}.
 */
final class NativeCompiledGraph extends BaseCompiledGraph {
    private final IntBuffer defOffsets;
    private final IntBuffer freeOffsets;
    private final IntBuffer freeOwners;
    private final long scratchBytes;
    /** The offsets planner's scratch: its sweep's, and with its search phases' (fit, canonical). */
    private final long offsetsSweepBytes;
    private final long offsetsFullBytes;
    /**
     * Set once a request of this schedule needed a search phase past the sweep: from then on the
     * pooled scratch grows to hold them too, so they stop allocating per request. Schedules whose
     * sweep always reaches the bound never pay for that memory.
     */
    private volatile boolean offsetsNeedSearch;
    /** Addresses of the bucket arrays above, taken once: the buffers are fields, so they stay valid. */
    private final long defOffsetsAddress;
    private final long freeOffsetsAddress;
    private final long freeOwnersAddress;
    private final long ownerValueAddress;
    private final long ownerDefAddress;
    private final long ownerUseEndAddress;
    /** Scratch of finished allocations, reused: one per thread planning at the same time. */
    private final ConcurrentLinkedQueue<NativeScratch> scratchPool = new ConcurrentLinkedQueue<>();

    private NativeCompiledGraph(int numValues, int numPositions, IntBuffer order,
                                IntBuffer ownerValue, IntBuffer ownerDef, IntBuffer ownerUseEnd,
                                IntBuffer defOffsets, IntBuffer freeOffsets, IntBuffer freeOwners,
                                IntBuffer valueBuffer) {
        super("native", numValues, numPositions, order, ownerValue, ownerDef, ownerUseEnd, valueBuffer);
        this.defOffsets = defOffsets;
        this.freeOffsets = freeOffsets;
        this.freeOwners = freeOwners;
        this.scratchBytes = MemplanNative.memplan_allocate_scratch_bytes(numOwners);
        this.offsetsSweepBytes = NativeEngine.offsetsScratchBytes(numOwners, Math.max(numPositions, 1), false);
        this.offsetsFullBytes = NativeEngine.offsetsScratchBytes(numOwners, Math.max(numPositions, 1), true);
        this.defOffsetsAddress = MemplanNative.memplan_address(defOffsets);
        this.freeOffsetsAddress = MemplanNative.memplan_address(freeOffsets);
        this.freeOwnersAddress = MemplanNative.memplan_address(freeOwners);
        this.ownerValueAddress = MemplanNative.memplan_address(ownerValue);
        this.ownerDefAddress = MemplanNative.memplan_address(ownerDef);
        this.ownerUseEndAddress = MemplanNative.memplan_address(ownerUseEnd);
    }

    /** Runs the native compile on a graph the caller validated, and checks what comes back. */
    static NativeCompiledGraph compile(FlatGraph g, int[] valueRoot, int[] inPlaceMask, boolean includeGraphInputs) {
        int v = g.numValues();
        int n = g.numNodes();
        int p = g.numPositions();
        // The graph and the owner-sized outputs live in one malloc'd block, freed as soon as the
        // compile returns: fresh direct buffers would be zeroed and held until a GC.
        long bytes = NativeBlock.intBytes(g.inputOffsets().length) + NativeBlock.intBytes(g.inputs().length)
                + NativeBlock.intBytes(g.outputOffsets().length) + NativeBlock.intBytes(g.outputs().length)
                + NativeBlock.intBytes(valueRoot.length) + NativeBlock.intBytes(g.valueFlags().length)
                + NativeBlock.intBytes(n) + 5 * NativeBlock.intBytes(v) + 2 * NativeBlock.intBytes(p + 1)
                + NativeBlock.intBytes(2) + (inPlaceMask == null ? 0 : NativeBlock.intBytes(v));
        try (NativeBlock block = new NativeBlock(bytes)) {
            IntBuffer inputOffsets = block.copy(g.inputOffsets());
            IntBuffer inputs = block.copy(g.inputs());
            IntBuffer outputOffsets = block.copy(g.outputOffsets());
            IntBuffer outputs = block.copy(g.outputs());
            IntBuffer roots = block.copy(valueRoot);
            IntBuffer flags = block.copy(g.valueFlags());
            long mask = inPlaceMask == null ? 0 : address(block.copy(inPlaceMask)); // 0: no in-place reuse
            IntBuffer valueBuffer = block.ints(v);
            IntBuffer order = block.ints(n);
            IntBuffer ownerValue = block.ints(v);
            IntBuffer ownerDef = block.ints(v);
            IntBuffer ownerUseEnd = block.ints(v);
            IntBuffer defOffsets = block.ints(p + 1);
            IntBuffer freeOffsets = block.ints(p + 1);
            IntBuffer freeOwners = block.ints(v);
            IntBuffer counts = block.ints(2);
            int rc = MemplanNative.memplan_compile(v, n, address(inputOffsets), address(inputs),
                    address(outputOffsets), address(outputs), address(roots), address(flags), mask,
                    includeGraphInputs ? 1 : 0, address(order), address(ownerValue), address(ownerDef),
                    address(ownerUseEnd), address(defOffsets), address(freeOffsets), address(freeOwners),
                    address(valueBuffer), address(counts), address(counts) + Integer.BYTES);
            if (rc == MemplanNative.CYCLE) {
                throw new GraphCycleException(counts.get(1));
            }
            check(rc, "compile");
            int owners = counts.get(0);
            if (owners < 0 || owners > v) {
                throw new IllegalStateException("native compile reported " + owners + " owners for " + v + " values");
            }
            // What the schedule keeps moves to right-sized direct buffers, checked once here.
            Kept kept = new Kept(n + 2 * (p + 1) + 4 * owners + v);
            IntBuffer defs = kept.copy(defOffsets, p + 1);
            IntBuffer frees = kept.copy(freeOffsets, p + 1);
            checkOffsets(defs, p, owners, "def");
            checkOffsets(frees, p, owners, "free");
            IntBuffer values = kept.copy(ownerValue, owners);
            IntBuffer freed = kept.copy(freeOwners, owners);
            for (int i = 0; i < owners; i++) {
                int value = values.get(i);
                int f = freed.get(i);
                if (value < 0 || value >= v || f < 0 || f >= owners) {
                    throw new IllegalStateException("native compile returned an owner id out of range at " + i);
                }
            }
            IntBuffer buffers = kept.copy(valueBuffer, v);
            for (int i = 0; i < v; i++) {
                int b = buffers.get(i);
                if (b < 0 || b >= v || buffers.get(b) != b) {
                    throw new IllegalStateException("native compile returned value buffer " + b + " for value " + i);
                }
            }
            return new NativeCompiledGraph(v, p, kept.copy(order, n), values, kept.copy(ownerDef, owners),
                    kept.copy(ownerUseEnd, owners), defs, frees, freed, buffers);
        }
    }

    private static long address(IntBuffer buffer) {
        return MemplanNative.memplan_address(buffer);
    }

    /**
     * The direct memory a schedule keeps, one allocation sliced into its arrays: each
     * {@code allocateDirect} zeroes its memory and registers a cleaner.
     */
    private static final class Kept {
        private final IntBuffer memory;
        private int used;

        Kept(int ints) {
            memory = DirectBuffers.ints(ints);
        }

        /** The first {@code n} ints of {@code from}, in the next {@code n} ints of this memory. */
        IntBuffer copy(IntBuffer from, int n) {
            IntBuffer out = memory.slice(used, n);
            used += n;
            out.put(from.duplicate().clear().limit(n)).clear();
            return out;
        }
    }

    /** The allocate loop trusts these offsets, so they are checked once here. */
    private static void checkOffsets(IntBuffer offsets, int positions, int owners, String what) {
        if (offsets.get(0) != 0 || offsets.get(positions) != owners) {
            throw new IllegalStateException("native " + what + " offsets do not span the owners");
        }
        for (int i = 0; i < positions; i++) {
            if (offsets.get(i) > offsets.get(i + 1)) {
                throw new IllegalStateException("native " + what + " offsets decrease at position " + i);
            }
        }
    }

    static void check(int rc, String call) {
        switch (rc) {
            case MemplanNative.OK:
                return;
            case MemplanNative.OVERFLOW:
                throw new ArithmeticException("native " + call + ": the owner sizes overflow a 64-bit byte count");
            case MemplanNative.BAD_ARGUMENT:
                throw new IllegalArgumentException("native " + call + " rejected its arguments");
            case MemplanNative.OUT_OF_MEMORY:
                throw new OutOfMemoryError("native " + call + ": its temporary arrays could not be allocated");
            case MemplanNative.CYCLE: // only compile reports one, with the node it names
                throw new IllegalStateException("native " + call + " reported a cycle where none can occur");
            default: // memplan_core.h has no other code
                throw new IllegalStateException("native " + call + " returned " + rc
                        + ", which memplan_core.h does not define");
        }
    }

    @Override
    public LongBuffer newSizeBuffer() {
        return DirectBuffers.longs(numOwners);
    }

    /** Scratch of a finished request, or a new one; give it back to {@code scratchPool} when done. */
    private NativeScratch takeScratch() {
        NativeScratch scratch = scratchPool.poll();
        return scratch != null ? scratch : new NativeScratch(numOwners, scratchBytes);
    }

    /**
     * Only memplan's own memory reaches C++: the caller's buffer (perhaps a mapping of a file that
     * can shrink) is copied into scratch, and the copy checked, so no other thread can change it
     * after. Returns the copy's address.
     */
    private long checkedCopy(NativeScratch scratch, LongBuffer ownerSizes) {
        long address = scratch.copySizes(ownerSizes, numOwners);
        SizeChecks.check(scratch.sizes(numOwners), numOwners);
        return address;
    }

    @Override
    public Allocation allocate(LongBuffer ownerSizes) {
        SizeChecks.requireCount(ownerSizes, numOwners);
        NativeScratch scratch = takeScratch();
        IntBuffer ownerSlot = null;
        try {
            long sizesAddress = checkedCopy(scratch, ownerSizes);
            // The plan keeps the slot of each owner where the C++ code writes it: no copy.
            ownerSlot = DirectSlabs.allocate(Math.multiplyExact(numOwners, Integer.BYTES)).asIntBuffer();
            int rc = MemplanNative.memplan_allocate(numValues, numOwners, numPositions, defOffsetsAddress,
                    freeOffsetsAddress, freeOwnersAddress, ownerValueAddress, sizesAddress,
                    MemplanNative.memplan_address(ownerSlot), 0L, scratch.capacityAddress(), scratch.statsAddress(),
                    scratch.treapAddress(), scratch.treapBytes);
            check(rc, "allocate");
            int numSlots = (int) scratch.stat(MemplanNative.STAT_NUM_SLOTS);
            // Capacities are one per slot, usually few: copied out of the scratch sized for the worst case.
            LongBuffer capacity = DirectSlabs.allocate(numSlots * Long.BYTES).asLongBuffer();
            capacity.put(scratch.capacities(numSlots)).flip();
            return new Allocation(numSlots, scratch.stat(MemplanNative.STAT_PEAK_BYTES),
                    scratch.stat(MemplanNative.STAT_NAIVE_BYTES), scratch.stat(MemplanNative.STAT_LOWER_BOUND_BYTES),
                    ownerSlot.asReadOnlyBuffer(), capacity.asReadOnlyBuffer());
        } finally {
            // The native call read these through raw addresses: keep them alive until it returned.
            Reference.reachabilityFence(ownerSizes);
            Reference.reachabilityFence(ownerSlot);
            Reference.reachabilityFence(this);
            scratchPool.offer(scratch);
        }
    }

    @Override
    public OffsetAllocation allocateOffsets(LongBuffer ownerSizes, int effort) {
        SizeChecks.requireCount(ownerSizes, numOwners);
        IntervalChecks.requireEffort(effort);
        NativeScratch scratch = takeScratch();
        LongBuffer ownerOffset = null;
        try {
            long sizesAddress = checkedCopy(scratch, ownerSizes);
            // The plan keeps each owner's offset where the C++ code writes it: no copy.
            ownerOffset = DirectSlabs.allocate(Math.multiplyExact(numOwners, Long.BYTES)).asLongBuffer();
            int rc = MemplanNative.memplan_offsets_plan(numOwners, numPositions, ownerDefAddress, ownerUseEndAddress,
                    sizesAddress, effort, MemplanNative.memplan_address(ownerOffset), scratch.statsAddress(),
                    scratch.offsetsScratchAddress(offsetsNeedSearch ? offsetsFullBytes : offsetsSweepBytes),
                    scratch.offsetsScratchBytes());
            check(rc, "offsets plan");
            if (scratch.stat(MemplanNative.OFFSETS_STAT_RAN_SEARCH) == 1) {
                offsetsNeedSearch = true;
            }
            return new OffsetAllocation(scratch.stat(MemplanNative.OFFSETS_STAT_PEAK_BYTES),
                    scratch.stat(MemplanNative.OFFSETS_STAT_NAIVE_BYTES),
                    scratch.stat(MemplanNative.OFFSETS_STAT_LOWER_BOUND_BYTES),
                    ownerOffset.asReadOnlyBuffer());
        } finally {
            Reference.reachabilityFence(ownerSizes);
            Reference.reachabilityFence(ownerOffset);
            Reference.reachabilityFence(this);
            scratchPool.offer(scratch);
        }
    }
}
