// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import dev.memplan.engine.Allocation;
import dev.memplan.engine.CompiledGraph;
import dev.memplan.engine.JavaEngine;
import dev.memplan.engine.OffsetAllocation;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * A compiled graph that delegates everything to a real one: tests override one method to make a
 * schedule or plan wrong on purpose (and check that the validator or admission notices).
 */
class ForwardingCompiledGraph implements CompiledGraph {
    /** The real compiled graph every call goes to unless overridden. */
    final CompiledGraph inner;

    ForwardingCompiledGraph(CompiledGraph inner) {
        this.inner = inner;
    }

    /** {@return {@code s}'s graph compiled again on the Java engine, with {@code s}'s view roots and options} */
    static CompiledGraph recompileOnJava(Schedule s) {
        return JavaEngine.INSTANCE.compile(s.graph().flat(), rootsOf(s), s.options().includeGraphInputs());
    }

    /** {@return the root of every value id of {@code s}'s graph} */
    static int[] rootsOf(Schedule s) {
        int[] roots = new int[s.graph().valueCount()];
        for (int v = 0; v < roots.length; v++) {
            roots[v] = s.root(v);
        }
        return roots;
    }

    @Override
    public String engineName() {
        return inner.engineName();
    }

    @Override
    public int numValues() {
        return inner.numValues();
    }

    @Override
    public int numOwners() {
        return inner.numOwners();
    }

    @Override
    public int numPositions() {
        return inner.numPositions();
    }

    @Override
    public IntBuffer order() {
        return inner.order();
    }

    @Override
    public IntBuffer valueBuffers() {
        return inner.valueBuffers();
    }

    @Override
    public IntBuffer ownerValues() {
        return inner.ownerValues();
    }

    @Override
    public IntBuffer ownerDefs() {
        return inner.ownerDefs();
    }

    @Override
    public IntBuffer ownerUseEnds() {
        return inner.ownerUseEnds();
    }

    @Override
    public LongBuffer newSizeBuffer() {
        return inner.newSizeBuffer();
    }

    @Override
    public Allocation allocate(LongBuffer ownerSizes) {
        return inner.allocate(ownerSizes);
    }

    @Override
    public OffsetAllocation allocateOffsets(LongBuffer ownerSizes, int effort) {
        return inner.allocateOffsets(ownerSizes, effort);
    }
}
