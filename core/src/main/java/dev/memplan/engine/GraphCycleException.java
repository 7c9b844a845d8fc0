// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

/** The nodes of a graph cannot be ordered: {@link #nodeId()} is the smallest node left on a cycle path. */
public final class GraphCycleException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int nodeId;

    GraphCycleException(int nodeId) {
        super("cycle through node " + nodeId);
        this.nodeId = nodeId;
    }

    /** The smallest id of a node that could not be ordered. */
    public int nodeId() {
        return nodeId;
    }
}
