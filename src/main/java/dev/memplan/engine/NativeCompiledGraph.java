package dev.memplan.engine;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The native engine's schedule: the compile results stay in the direct buffers the C++ code wrote,
 * and each allocation runs in C++ on them. Scratch memory is sized once per schedule and reused
 * through a small pool, one buffer per thread planning at the same time.
 */
final class NativeCompiledGraph implements CompiledGraph {
    private final int numValues;
    private final int numOwners;
    private final int numPositions;
    private final IntBuffer order;
    private final IntBuffer ownerValue;
    private final IntBuffer ownerDef;
    private final IntBuffer ownerUseEnd;
    private final IntBuffer defOffsets;
    private final IntBuffer freeOffsets;
    private final IntBuffer freeOwners;
    private final long scratchBytes;
    private final ConcurrentLinkedQueue<ByteBuffer> scratchPool = new ConcurrentLinkedQueue<>();

    private NativeCompiledGraph(int numValues, int numOwners, int numPositions, IntBuffer order,
                                IntBuffer ownerValue, IntBuffer ownerDef, IntBuffer ownerUseEnd,
                                IntBuffer defOffsets, IntBuffer freeOffsets, IntBuffer freeOwners) {
        this.numValues = numValues;
        this.numOwners = numOwners;
        this.numPositions = numPositions;
        this.order = order;
        this.ownerValue = ownerValue;
        this.ownerDef = ownerDef;
        this.ownerUseEnd = ownerUseEnd;
        this.defOffsets = defOffsets;
        this.freeOffsets = freeOffsets;
        this.freeOwners = freeOwners;
        this.scratchBytes = MemplanNative.memplan_allocate_scratch_bytes(numOwners);
    }

    /** Runs the native compile on a graph the caller validated, and checks what comes back. */
    static NativeCompiledGraph compile(FlatGraph g, int[] valueRoot, boolean includeGraphInputs) {
        int v = g.numValues();
        int n = g.numNodes();
        int p = g.numPositions();
        IntBuffer order = DirectBuffers.ints(n);
        IntBuffer ownerValue = DirectBuffers.ints(v);
        IntBuffer ownerDef = DirectBuffers.ints(v);
        IntBuffer ownerUseEnd = DirectBuffers.ints(v);
        IntBuffer defOffsets = DirectBuffers.ints(p + 1);
        IntBuffer freeOffsets = DirectBuffers.ints(p + 1);
        IntBuffer freeOwners = DirectBuffers.ints(v);
        IntBuffer numOwnersOut = DirectBuffers.ints(1);
        IntBuffer errorNode = DirectBuffers.ints(1);
        int rc = MemplanNative.memplan_compile(v, n,
                DirectBuffers.ints(g.inputOffsets()), DirectBuffers.ints(g.inputs()),
                DirectBuffers.ints(g.outputOffsets()), DirectBuffers.ints(g.outputs()),
                DirectBuffers.ints(valueRoot), DirectBuffers.ints(g.valueFlags()), includeGraphInputs ? 1 : 0,
                order, ownerValue, ownerDef, ownerUseEnd, defOffsets, freeOffsets, freeOwners, numOwnersOut,
                errorNode);
        if (rc == MemplanNative.CYCLE) {
            throw new GraphCycleException(errorNode.get(0));
        }
        check(rc, "compile");
        int owners = numOwnersOut.get(0);
        FlatGraph.require(owners >= 0 && owners <= v, "native compile reported " + owners + " owners");
        checkOffsets(defOffsets, p, owners, "def");
        checkOffsets(freeOffsets, p, owners, "free");
        for (int i = 0; i < owners; i++) {
            FlatGraph.require(ownerValue.get(i) >= 0 && ownerValue.get(i) < v, "native owner value out of range");
            FlatGraph.require(freeOwners.get(i) >= 0 && freeOwners.get(i) < owners, "native free owner out of range");
        }
        return new NativeCompiledGraph(v, owners, p, order, slice(ownerValue, owners),
                slice(ownerDef, owners), slice(ownerUseEnd, owners), defOffsets, freeOffsets, freeOwners);
    }

    /** The allocate loop trusts these offsets, so they are checked once here. */
    private static void checkOffsets(IntBuffer offsets, int positions, int owners, String what) {
        FlatGraph.require(offsets.get(0) == 0 && offsets.get(positions) == owners,
                "native " + what + " offsets do not span the owners");
        for (int i = 0; i < positions; i++) {
            FlatGraph.require(offsets.get(i) <= offsets.get(i + 1), "native " + what + " offsets decrease");
        }
    }

    private static IntBuffer slice(IntBuffer b, int n) {
        return b.duplicate().limit(n).slice();
    }

    static void check(int rc, String call) {
        switch (rc) {
            case MemplanNative.OK:
                return;
            case MemplanNative.OVERFLOW:
                throw new ArithmeticException("native " + call + ": the owner sizes overflow a 64-bit byte count");
            case MemplanNative.BAD_ARGUMENT:
                throw new IllegalArgumentException("native " + call + " rejected its arguments");
            default:
                throw new IllegalStateException("native " + call + " failed with code " + rc);
        }
    }

    @Override
    public String engineName() {
        return "native";
    }

    @Override
    public int numValues() {
        return numValues;
    }

    @Override
    public int numOwners() {
        return numOwners;
    }

    @Override
    public int numPositions() {
        return numPositions;
    }

    @Override
    public IntBuffer order() {
        return order.asReadOnlyBuffer();
    }

    @Override
    public IntBuffer ownerValues() {
        return ownerValue.asReadOnlyBuffer();
    }

    @Override
    public IntBuffer ownerDefs() {
        return ownerDef.asReadOnlyBuffer();
    }

    @Override
    public IntBuffer ownerUseEnds() {
        return ownerUseEnd.asReadOnlyBuffer();
    }

    @Override
    public LongBuffer newSizeBuffer() {
        return DirectBuffers.longs(numOwners);
    }

    @Override
    public Allocation allocate(LongBuffer ownerSizes) {
        LongBuffer sizes = ownerSizes;
        if (!DirectBuffers.isNativeReadable(sizes, numOwners)) {
            FlatGraph.require(ownerSizes.remaining() >= numOwners,
                    "expected " + numOwners + " owner sizes, got " + ownerSizes.remaining());
            sizes = DirectBuffers.longs(numOwners);
            sizes.put(ownerSizes.duplicate().limit(ownerSizes.position() + numOwners)).flip();
        }
        // One direct block per plan for all its results: a plan is one native allocation for
        // the garbage collector to free, not four.
        PlanBlock block = new PlanBlock(numOwners, numValues);
        IntBuffer ownerSlot = block.ownerSlot;
        IntBuffer valueSlot = block.valueSlot;
        LongBuffer capacity = block.capacity;
        LongBuffer stats = block.stats;
        ByteBuffer scratch = scratchPool.poll();
        if (scratch == null) {
            scratch = DirectBuffers.aligned(scratchBytes);
        }
        int rc;
        try {
            rc = MemplanNative.memplan_allocate(numValues, numOwners, numPositions, defOffsets, freeOffsets,
                    freeOwners, ownerValue, sizes, ownerSlot, valueSlot, capacity, stats, scratch, scratchBytes);
        } finally {
            scratchPool.offer(scratch);
        }
        check(rc, "allocate");
        int numSlots = (int) stats.get(0);
        return new Allocation(numSlots, stats.get(1), stats.get(2), stats.get(3), ownerSlot.asReadOnlyBuffer(),
                valueSlot.asReadOnlyBuffer(), capacity.limit(numSlots).slice().asReadOnlyBuffer());
    }
}
