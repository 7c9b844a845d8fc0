// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.IntBuffer;

/**
 * What both engines' schedules share: the compile results and their read-only accessors. The
 * Java engine wraps its int arrays, the native engine keeps the direct buffers its C++ code wrote.
 */
abstract class BaseCompiledGraph implements CompiledGraph {
    private final String engineName;
    /** Read directly by the subclasses' hot loops, as the accessors return them. */
    final int numValues;
    final int numOwners;
    final int numPositions;
    private final IntBuffer order;
    private final IntBuffer ownerValue;
    private final IntBuffer ownerDef;
    private final IntBuffer ownerUseEnd;
    private final IntBuffer valueBuffer;

    BaseCompiledGraph(String engineName, int numValues, int numPositions, IntBuffer order, IntBuffer ownerValue,
                      IntBuffer ownerDef, IntBuffer ownerUseEnd, IntBuffer valueBuffer) {
        this.valueBuffer = valueBuffer;
        this.engineName = engineName;
        this.numValues = numValues;
        this.numOwners = ownerValue.limit();
        this.numPositions = numPositions;
        this.order = order;
        this.ownerValue = ownerValue;
        this.ownerDef = ownerDef;
        this.ownerUseEnd = ownerUseEnd;
    }

    @Override
    public final String engineName() {
        return engineName;
    }

    @Override
    public final int numValues() {
        return numValues;
    }

    @Override
    public final int numOwners() {
        return numOwners;
    }

    @Override
    public final int numPositions() {
        return numPositions;
    }

    @Override
    public final IntBuffer order() {
        return order.asReadOnlyBuffer();
    }

    @Override
    public final IntBuffer valueBuffers() {
        return valueBuffer.asReadOnlyBuffer();
    }

    @Override
    public final IntBuffer ownerValues() {
        return ownerValue.asReadOnlyBuffer();
    }

    @Override
    public final IntBuffer ownerDefs() {
        return ownerDef.asReadOnlyBuffer();
    }

    @Override
    public final IntBuffer ownerUseEnds() {
        return ownerUseEnd.asReadOnlyBuffer();
    }
}
