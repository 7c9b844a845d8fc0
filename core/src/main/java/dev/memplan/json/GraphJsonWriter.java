// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import dev.memplan.Dim.Symbol;
import dev.memplan.Graph.Value;
import dev.memplan.ViewMap;
import dev.memplan.io.JsonOutput;
import java.io.IOException;
import java.io.Writer;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Writes a graph in the graph file format, one value or node per line. Streams, so a million-node
 * graph is written without building a document tree.
 */
final class GraphJsonWriter {
    private static final JsonFactory FACTORY = JsonOutput.FACTORY;

    private GraphJsonWriter() {
    }

    static void write(Graph graph, ViewMap views, Writer out) throws IOException {
        String[] names = valueNames(graph);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.setPrettyPrinter(new GraphPrettyPrinter());
            g.writeStartObject();
            g.writeArrayFieldStart("values");
            for (Value v : graph.values()) {
                g.writeStartObject();
                g.writeStringField("name", names[v.id()]);
                g.writeStringField("dtype", v.dataType().jsonName());
                g.writeArrayFieldStart("shape");
                for (Dim d : v.shape().dims()) {
                    if (d instanceof Dim.Fixed f) {
                        g.writeNumber(f.extent());
                    } else if (d instanceof Symbol s) {
                        g.writeString(s.name());
                    } else {
                        throw new IllegalArgumentException(v.describe() + " has the derived dim " + d
                                + "; the graph file format holds only static dims and named symbols");
                    }
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            writeNames(g, "inputs", graph.inputs(), names);
            writeNames(g, "outputs", graph.outputs(), names);
            writeNames(g, "initializers", graph.initializers(), names);
            g.writeArrayFieldStart("nodes");
            for (Node n : graph.nodes()) {
                g.writeStartObject();
                if (!n.name().isEmpty()) {
                    g.writeStringField("name", n.name());
                }
                g.writeStringField("op", n.opType());
                if (!n.domain().isEmpty()) {
                    g.writeStringField("domain", n.domain());
                }
                g.writeArrayFieldStart("inputs");
                for (int i = 0; i < n.inputCount(); i++) {
                    g.writeString(n.input(i) == Graph.ABSENT ? "" : names[n.input(i)]);
                }
                g.writeEndArray();
                g.writeArrayFieldStart("outputs");
                for (int i = 0; i < n.outputCount(); i++) {
                    g.writeString(names[n.output(i)]);
                }
                g.writeEndArray();
                if (n.hasInPlaceHint()) {
                    g.writeArrayFieldStart("inPlace");
                    for (int k : n.inPlaceInputs()) {
                        g.writeNumber(k);
                    }
                    g.writeEndArray();
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeObjectFieldStart("views");
            for (Map.Entry<Integer, Integer> e : views.edges().entrySet()) {
                g.writeStringField(names[e.getKey()], names[e.getValue()]);
            }
            g.writeEndObject();
            g.writeEndObject();
        }
        out.write('\n');
    }

    private static void writeNames(JsonGenerator g, String field, int[] ids, String[] names) throws IOException {
        g.writeArrayFieldStart(field);
        for (int id : ids) {
            g.writeString(names[id]);
        }
        g.writeEndArray();
    }

    /** References are by name, so an unnamed value is written as {@code %id}, which must not clash. */
    private static String[] valueNames(Graph graph) {
        String[] names = new String[graph.valueCount()];
        Set<String> seen = new HashSet<>();
        for (Value v : graph.values()) {
            names[v.id()] = v.displayName();
            if (!seen.add(names[v.id()])) {
                throw new IllegalArgumentException(v.describe() + " would be written as '" + names[v.id()]
                        + "', a name another value already has; name the value");
            }
        }
        return names;
    }
}
