// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import dev.memplan.Admission.Reservation;
import dev.memplan.Graph.Node;
import dev.memplan.Graph.Value;
import dev.memplan.PlanOptions.InPlace;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.engine.Allocation;
import dev.memplan.engine.OffsetAllocation;
import dev.memplan.engine.CompiledGraph;
import dev.memplan.engine.GraphCycleException;
import dev.memplan.engine.ExactPacking;
import dev.memplan.engine.PlanningEngine;
import dev.memplan.engine.SizeRules;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.ToLongFunction;


/**
 * A graph compiled for planning: its execution order, its owners and their live intervals. Made
 * once by {@code MemPlan.compile}; then {@link #plan} turns one request's sizes into slots without
 * walking the graph again. Immutable and thread-safe.
 *
 * <p>Owners are listed in allocation order (included graph inputs by ascending id, then node
 * outputs in execution order); an index into that list is an <em>owner index</em>.
 */
public final class Schedule implements Reservation, ActivationPlan.Layout {
    private final Graph graph;
    private final ViewMap views;
    private final PlanOptions options;
    private final int[] roots;
    private final CompiledGraph compiled;
    private final int[] ownerIndex;
    private final IntBuffer ownerValues;
    private final IntBuffer ownerDefs;
    private final IntBuffer ownerUseEnds;
    /** The value owning each value's bytes through views and in-place links; {@code roots} when none. */
    private final int[] buffers;
    private final int numInPlace;
    /** This schedule compiled without in-place reuse, made on first use (only reports need it). */
    private volatile Schedule withoutInPlace;
    /** What each plan asks for its bound without in-place reuse; one function for all of them. */
    private final ToLongFunction<LongBuffer> boundWithoutInPlace = this::lowerBoundWithoutInPlace;

    Schedule(Graph graph, ViewMap views, PlanOptions options, int[] roots, CompiledGraph compiled) {
        this.graph = graph;
        this.views = views;
        this.options = options;
        this.roots = roots;
        this.compiled = compiled;
        this.buffers = checkedBuffers(graph, roots, compiled.valueBuffers());
        int links = 0;
        for (int v = 0; v < buffers.length; v++) {
            if (buffers[v] != roots[v]) {
                links++;
            }
        }
        this.numInPlace = links;
        this.ownerValues = compiled.ownerValues();
        this.ownerDefs = compiled.ownerDefs();
        this.ownerUseEnds = compiled.ownerUseEnds();
        this.ownerIndex = new int[graph.valueCount()];
        Arrays.fill(ownerIndex, -1);
        for (int o = 0; o < compiled.numOwners(); o++) {
            ownerIndex[ownerValues.get(o)] = o;
        }
    }

    @Override
    public Graph graph() {
        return graph;
    }

    @Override
    public ViewMap views() {
        return views;
    }

    @Override
    public PlanOptions options() {
        return options;
    }

    @Override
    public String engine() {
        return compiled.engineName();
    }

    @Override
    public int[] order() {
        int[] out = new int[graph.nodeCount()];
        compiled.order().get(out);
        return out;
    }

    @Override
    public int numPositions() {
        return compiled.numPositions();
    }

    @Override
    public int numOwners() {
        return compiled.numOwners();
    }

    @Override
    public int[] owners() {
        int[] out = new int[numOwners()];
        ownerValues.duplicate().get(out);
        return out;
    }

    @Override
    public int ownerValue(int o) {
        return ownerValues.get(o);
    }

    @Override
    public int def(int o) {
        return ownerDefs.get(o);
    }

    @Override
    public int useEnd(int o) {
        return ownerUseEnds.get(o);
    }

    @Override
    public int ownerIndexOf(int valueId) {
        return ownerIndex[valueId];
    }

    @Override
    public int root(int valueId) {
        return roots[valueId];
    }

    @Override
    public int bufferOf(int valueId) {
        return buffers[valueId];
    }

    @Override
    public int inPlaceSource(int valueId) {
        if (buffers[valueId] == roots[valueId] || roots[valueId] != valueId) {
            return -1;
        }
        Node producer = graph.node(graph.value(valueId).producer());
        for (int k : producer.inPlaceInputs()) {
            int in = producer.input(k);
            if (buffers[in] == buffers[valueId]) {
                return in;
            }
        }
        return -1; // unreachable for a checked schedule: a link always follows a hinted input
    }

    @Override
    public int numInPlace() {
        return numInPlace;
    }

    /** What {@link MemPlan#compile} does: views checked, in-place links chosen, the engine's compile. */
    static Schedule compile(Graph graph, ViewMap views, PlanOptions options) {
        int[] roots = views.roots(graph);
        PlanningEngine engine = EngineSelector.engineFor(options.engine());
        CompiledGraph compiled;
        try {
            int[] inPlace = options.inPlaceEnabled() ? InPlaceCandidates.masks(graph, views) : null;
            compiled = engine.compile(graph.flat(), roots, inPlace, options.includeGraphInputs());
        } catch (GraphCycleException e) {
            throw new InvalidGraphException("the graph has a cycle through " + graph.node(e.nodeId()).describe()
                    + ": its inputs depend on its own outputs; remove the back edge", e);
        }
        return new Schedule(graph, views, options, roots, compiled);
    }

    @Override
    public Schedule withoutInPlace() {
        if (numInPlace == 0) {
            return this;
        }
        Schedule s = withoutInPlace;
        if (s == null) {
            s = compile(graph, views, options.withInPlace(InPlace.OFF));
            withoutInPlace = s;
        }
        return s;
    }

    /**
     * The lower bound these owner sizes would have without in-place reuse: every value placed in
     * place counted as an owner of its own, at its buffer's size (rule (d) makes them equal), over
     * its own interval. Linear in the graph; a report figure, never computed per request.
     */
    long lowerBoundWithoutInPlace(LongBuffer ownerSizes) {
        Schedule plain = withoutInPlace();
        int n = plain.numOwners();
        long[] delta = new long[plain.numPositions() + 1];
        for (int o = 0; o < n; o++) {
            long size = ownerSizes.get(ownerIndex[buffers[plain.ownerValue(o)]]);
            delta[plain.def(o)] += size;
            delta[plain.useEnd(o) + 1] -= size;
        }
        long live = 0;
        long max = 0;
        for (int p = 0; p < plain.numPositions(); p++) {
            live += delta[p];
            max = Math.max(max, live);
        }
        return max;
    }

    /**
     * Copies the engine's buffer of each value after checking what the rest of this class relies
     * on: each entry is its own buffer, and differs from the view root only for a produced value
     * whose root is itself or another linked value.
     */
    private static int[] checkedBuffers(Graph graph, int[] roots, IntBuffer fromEngine) {
        int n = graph.valueCount();
        if (fromEngine.limit() != n) {
            throw new IllegalStateException("the engine returned " + fromEngine.limit() + " value buffers for "
                    + n + " values");
        }
        int[] out = new int[n];
        fromEngine.duplicate().get(out);
        for (int v = 0; v < n; v++) {
            int b = out[v];
            if (b < 0 || b >= n || out[b] != b || (b != roots[v] && graph.value(roots[v]).producer() < 0)) {
                throw new IllegalStateException("the engine returned buffer " + b + " for value " + v
                        + ", which is not a buffer it can have");
            }
        }
        return out;
    }

    /**
     * Plans one request: sizes from {@code oracle}, then slots.
     *
     * @param oracle the size of each owner
     * @return the plan, or deferred with the owners of unknown size
     * @throws InvalidSizeException naming the value when a size is negative or the sizes overflow
     */
    public PlanResult plan(SizeOracle oracle) {
        int n = numOwners();
        long[] sizes = new long[n];
        List<Integer> unknown = null;
        long total = 0;
        for (int o = 0; o < n; o++) {
            Value owner = graph.value(ownerValues.get(o));
            OptionalLong bytes = oracle.bytes(owner);
            if (bytes.isEmpty()) {
                if (unknown == null) {
                    unknown = new ArrayList<>();
                }
                unknown.add(owner.id());
                continue;
            }
            long b = checkedSize(owner, bytes.getAsLong());
            total = addToTotal(total, b, owner);
            sizes[o] = b;
        }
        if (unknown != null) {
            unknown.sort(null);
            return new PlanResult.Deferred(unknown);
        }
        return new PlanResult.Complete(allocate(sizes));
    }

    /**
     * Plans with every symbol replaced by its binding (symbol name to value).
     *
     * @param bindings symbol name to value
     * @return the plan, or deferred with the owners whose size needs an unbound symbol
     * @throws InvalidSizeException naming the symbol when a binding is negative, or the value when
     *                              a size or the total overflows
     */
    public PlanResult plan(Map<String, Long> bindings) {
        return plan(SizeOracle.bounded(bindings));
    }

    /**
     * Plans one request from sizes given by owner index: the hot path of a server that resolved
     * its shapes itself.
     *
     * @param ownerSizes bytes per owner index, each >= 0
     * @return the plan
     * @throws IllegalArgumentException when the array length is not {@link #numOwners()}
     * @throws InvalidSizeException     naming the value when a size is negative or the sizes overflow
     */
    public ActivationPlan plan(long[] ownerSizes) {
        int n = numOwners();
        if (ownerSizes.length != n) {
            throw new IllegalArgumentException("expected " + n + " owner sizes (one per owner index), got "
                    + ownerSizes.length);
        }
        // The hot path: the engine checks, rounds and copies the sizes (the native one in one pass
        // of C++); values are looked up only to name one in an error.
        return allocate(compiled.checkedSizes(ownerSizes, sizeRules));
    }

    /** The options' alignment and this schedule's words for a size at fault, for the engine's check. */
    private final SizeRules sizeRules = new SizeRules() {
        @Override
        public long alignment() {
            return options.alignment();
        }

        @Override
        public long checkedSize(int owner, long bytes) {
            return Schedule.this.checkedSize(graph.value(ownerValues.get(owner)), bytes);
        }

        @Override
        public RuntimeException totalOverflow(int owner) {
            return Schedule.totalOverflow(graph.value(ownerValues.get(owner)));
        }
    };

    /**
     * The bytes to reserve for a request whose symbols are at most {@code bounds}, or empty when a
     * symbol has no bound. Never zero for an unplannable model.
     *
     * @param bounds upper bound of each symbol (symbol name to value)
     * @return the peak in bytes, or empty when a symbol is unbound
     */
    public OptionalLong peakAtBounds(Map<String, Long> bounds) {
        PlanResult r = plan(SizeOracle.bounded(bounds));
        return r instanceof PlanResult.Complete c ? OptionalLong.of(c.plan().peakBytes()) : OptionalLong.empty();
    }

    /** Same as {@link #peakAtBounds}: the plan's peak at the bounds, or empty when deferred. */
    @Override
    public OptionalLong reservationBytes(Map<String, Long> bounds) {
        return peakAtBounds(bounds);
    }

    /** The graph's symbol names. */
    @Override
    public Set<String> symbolNames() {
        return graph.symbols().keySet();
    }

    /** Plans on checked sizes this call alone holds (the engine may read them in place), then keeps them. */
    private ActivationPlan allocate(long[] sizes) {
        LongBuffer buffer = LongBuffer.wrap(sizes).asReadOnlyBuffer();
        if (options.exactEnabled()) {
            return allocateExact(sizes, buffer);
        }
        if (options.strategy() == Strategy.OFFSETS) {
            OffsetAllocation a = compiled.allocateOffsetsOwned(sizes, options.effort());
            return new ActivationPlan(this, boundWithoutInPlace, buffer, a);
        }
        Allocation a = compiled.allocateOwned(sizes);
        return new ActivationPlan(this, boundWithoutInPlace, buffer, a);
    }

    /**
     * An offsets plan by the exact search (docs/design.md §5c) on the engine that compiled this
     * schedule: the heuristic plan at the options' effort seeds it; each owner is a buffer alive
     * over {@code [def, useEnd + 1)}. Sizes are multiples of the alignment, and the search puts
     * every buffer at 0 or on top of another, so the offsets stay aligned.
     */
    private ActivationPlan allocateExact(long[] sizes, LongBuffer buffer) {
        OffsetAllocation seed = compiled.allocateOffsetsOwned(sizes, options.effort());
        int n = sizes.length;
        long[] lower = new long[n];
        long[] upper = new long[n];
        for (int o = 0; o < n; o++) {
            lower[o] = ownerDefs.get(o);
            upper[o] = ownerUseEnds.get(o) + 1L;
        }
        long[] seedOffsets = new long[n];
        seed.ownerOffsets().duplicate().get(seedOffsets);
        Packing.ExactLimits limits = options.exact();
        ExactPacking.Result r = planner().packExact(lower, upper, sizes.clone(), seedOffsets, limits.nodes(),
                limits.timeLimitMillis(), limits.capacityBytes());
        OffsetAllocation a = new OffsetAllocation(r.heightBytes(), seed.naiveBytes(), seed.lowerBoundBytes(),
                LongBuffer.wrap(r.offsets()).asReadOnlyBuffer());
        return new ActivationPlan(this, boundWithoutInPlace, buffer, a, r.lowerBoundBytes(),
                Packing.ExactStatus.values()[r.status()]);
    }

    /** The engine that compiled this schedule, which also runs its exact searches. */
    private PlanningEngine planner() {
        return "java".equals(compiled.engineName()) ? EngineSelector.engineFor(EngineMode.JAVA)
                : EngineSelector.engineFor(EngineMode.NATIVE);
    }

    private long checkedSize(Value owner, long bytes) {
        if (bytes < 0) {
            throw new InvalidSizeException("the size oracle gave " + owner.describe() + " a negative size ("
                    + bytes + " bytes); sizes must be >= 0");
        }
        try {
            return TensorSizes.align(bytes, options.alignment());
        } catch (TensorSizes.Overflow e) {
            throw TensorSizes.overflow(owner.describe(), owner.shape(), e);
        }
    }

    private long addToTotal(long total, long bytes, Value owner) {
        long sum = total + bytes; // both >= 0: a negative sum is an overflow
        if (sum < 0) {
            throw totalOverflow(owner);
        }
        return sum;
    }

    private static InvalidSizeException totalOverflow(Value owner) {
        return new InvalidSizeException("the total of the owner sizes overflows a 64-bit byte count at "
                + owner.describe() + "; no plan can hold it");
    }
}
