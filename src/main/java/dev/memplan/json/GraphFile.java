// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import dev.memplan.Graph;
import dev.memplan.ViewMap;
import java.util.Objects;

/**
 * What a graph file holds: the graph and its view map. The view rules are checked when the graph
 * is planned ({@code MemPlan.compile}), as for a graph built in code.
 */
public record GraphFile(Graph graph, ViewMap views) {
    /**
     * Rejects null fields.
     *
     * @param graph the graph read
     * @param views its views
     */
    public GraphFile {
        Objects.requireNonNull(graph, "graph");
        Objects.requireNonNull(views, "views");
    }
}
