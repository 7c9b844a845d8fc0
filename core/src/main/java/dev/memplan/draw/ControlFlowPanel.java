// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import java.util.List;
import java.util.OptionalLong;

/**
 * An If, Loop or Scan node of the pictured graph, with the pictures of its bodies: what the node
 * needs while it runs, beyond the outer arena.
 *
 * @param nodeName      the node's name
 * @param opType        If, Loop or Scan
 * @param position      the node's execution position in the outer graph, or -1 when it is not there
 * @param transientNeed the largest body need in bytes; empty when a body could not be planned
 * @param bodies        one per body attribute
 */
record ControlFlowPanel(String nodeName, String opType, int position, OptionalLong transientNeed,
                               List<Body> bodies) {

    /**
     * Copies the body list.
     *
     * @param nodeName      the node's name
     * @param opType        If, Loop or Scan
     * @param position      the node's execution position, or -1
     * @param transientNeed the largest body need in bytes, or empty
     * @param bodies        one per body attribute
     */
    public ControlFlowPanel {
        bodies = List.copyOf(bodies);
    }

    /**
     * One body of the node.
     *
     * @param attribute the attribute holding it ({@code then_branch}, {@code body}, ...)
     * @param needBytes the body's admission figure in bytes; empty when deferred
     * @param picture   the body's own picture; null when its plan is deferred (a symbol unbound)
     */
    public record Body(String attribute, OptionalLong needBytes, PictureData picture) {
    }
}
