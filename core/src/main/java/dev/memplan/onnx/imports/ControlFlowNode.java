// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import java.util.List;

/**
 * An If, Loop or Scan node of an imported graph, with its bodies. Each body is its own graph,
 * planned on its own; the node's transient need is the largest body peak.
 *
 * @param nodeId         the node's id in the outer graph
 * @param nodeName       the ONNX node name (or op#id)
 * @param opType         If, Loop or Scan
 * @param implicitInputs ONNX names of outer values the bodies read; they are extra inputs of the
 *                       node in the outer graph, so they stay live until it has run
 * @param bodies         the bodies, by attribute name
 */
public record ControlFlowNode(int nodeId, String nodeName, String opType, List<String> implicitInputs,
                              List<Body> bodies) {
    /**
     * How the origin ({@link ImportedGraph#freshSymbols()}) of a Loop's trip-count symbol begins: the
     * symbol its scan outputs' leading dim takes when the trip count is not a constant. It is named
     * after the Loop node (or its first output), {@code <name>_trip_count}, which a request binds.
     */
    public static final String TRIP_COUNT_ORIGIN = "trip count of ";

    /** One body: the attribute that holds it and its import. */
    public record Body(String attribute, ImportedGraph graph) {
    }
}
