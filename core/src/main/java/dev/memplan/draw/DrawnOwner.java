// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import java.util.List;

/**
 * One owner (a tensor that owns bytes) as the picture shows it. Names come from input files and
 * are raw here: every writer escapes them for its own output.
 *
 * @param valueId    the owner's value id in its graph
 * @param name       the value's name (the ONNX name for models), or {@code %id} when it has none
 * @param opType     the op type of the producing node, or {@code input} for an included graph input
 * @param dataType   the element type's name ({@code float32}, ...)
 * @param shape      the shape as written in the graph, symbols included ({@code [batch, 128]})
 * @param boundShape the shape at the picture's bindings ({@code [4, 128]}); {@code ?} for a dim
 *                   that stays unknown
 * @param bytes      bytes planned for it (after alignment)
 * @param def        the position where it is produced
 * @param useEnd     the last position that reads it (inclusive)
 * @param inPlace    the values that took this buffer in place (docs/design.md §3b), in execution
 *                   order: the buffer's later segments; empty for most owners
 */
record DrawnOwner(int valueId, String name, String opType, String dataType, String shape, String boundShape,
                         long bytes, int def, int useEnd, List<Segment> inPlace) {

    /**
     * A value living in an owner's buffer from the position that produced it in place.
     *
     * @param name   the value's name
     * @param opType the op that produced it
     * @param def    its position
     * @param useEnd its own last read
     */
    public record Segment(String name, String opType, int def, int useEnd) {
    }

    /**
     * An owner that no value took in place.
     *
     * @param valueId    the owner's value id in its graph
     * @param name       the value's name, or {@code %id} when it has none
     * @param opType     the op type of the producing node, or {@code input}
     * @param dataType   the element type's name
     * @param shape      the shape as written in the graph
     * @param boundShape the shape at the picture's bindings
     * @param bytes      bytes planned for it
     * @param def        the position where it is produced
     * @param useEnd     the last position that reads it (inclusive)
     */
    public DrawnOwner(int valueId, String name, String opType, String dataType, String shape, String boundShape,
                      long bytes, int def, int useEnd) {
        this(valueId, name, opType, dataType, shape, boundShape, bytes, def, useEnd, List.of());
    }

    /**
     * Whether two owners are live at one same position (inclusive intervals).
     *
     * @param other another owner of the same picture
     * @return true when their intervals overlap
     */
    public boolean liveWith(DrawnOwner other) {
        return def <= other.useEnd && other.def <= useEnd;
    }
}
