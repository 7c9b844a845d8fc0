// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The picture of one graph's plan: x is the execution position, y the address in the arena. It
 * holds the owners with their intervals and sizes, one {@link Layout} per planned strategy (the
 * page toggles between them), the live-bytes curve with its lower bound, and the control-flow
 * nodes with the pictures of their bodies. Immutable by convention: arrays are not copied.
 *
 * @param title         what the picture is of (the model or file name)
 * @param bindings      symbol values the plan was made at, in the graph's order
 * @param engine        the engine that planned ({@code native} or {@code java})
 * @param nodeNames     per position, the name of the node that runs there
 * @param nodeOps       per position, that node's op type
 * @param owners        the owners, in the schedule's owner order
 * @param layouts       one per planned strategy, the first is the one shown first; at least one
 * @param naiveBytes    bytes one buffer per owner would take
 * @param lowerBoundBytes the most bytes live at one position: no plan reserves less
 * @param boundPosition the first position where that many bytes are live
 * @param liveBytes     per position, the bytes of the owners live there
 * @param controlFlow   If/Loop/Scan nodes with their bodies
 */
record PictureData(String title, Map<String, Long> bindings, String engine, String[] nodeNames, String[] nodeOps,
                      List<DrawnOwner> owners, List<Layout> layouts, long naiveBytes, long lowerBoundBytes,
                      int boundPosition, long[] liveBytes, List<ControlFlowPanel> controlFlow) {

    /**
     * Checks there is a layout and copies the lists.
     *
     * @param title           what the picture is of
     * @param bindings        symbol values of the plan
     * @param engine          the engine that planned
     * @param nodeNames       per position, the node's name
     * @param nodeOps         per position, the node's op type
     * @param owners          the owners, in owner order
     * @param layouts         one per planned strategy, at least one
     * @param naiveBytes      bytes one buffer per owner would take
     * @param lowerBoundBytes the most bytes live at one position
     * @param boundPosition   where that is first reached
     * @param liveBytes       per position, the bytes live there
     * @param controlFlow     If/Loop/Scan nodes with their bodies
     * @throws IllegalArgumentException when there is no layout
     */
    public PictureData {
        if (layouts.isEmpty()) {
            throw new IllegalArgumentException("a picture needs at least one planned layout");
        }
        owners = List.copyOf(owners);
        layouts = List.copyOf(layouts);
        controlFlow = List.copyOf(controlFlow);
    }

    /**
     * Execution positions.
     *
     * @return one per node, at least one
     */
    public int positions() {
        return liveBytes.length;
    }

    /**
     * The node that runs where the lower bound is reached.
     *
     * @return its name, or an empty string in an empty graph
     */
    public String boundNode() {
        return nodeNames.length == 0 ? "" : nodeNames[boundPosition];
    }

    /**
     * A layout by name.
     *
     * @param name {@code offsets} or {@code slots}
     * @return the layout, or empty when that strategy was not planned
     */
    public Optional<Layout> layout(String name) {
        return layouts.stream().filter(l -> l.name().equals(name)).findFirst();
    }
}
