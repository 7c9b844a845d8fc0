// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.PrettyPrinter;
import java.io.IOException;

/**
 * Lays a graph file out for people: one top-level field per line and one list entry (a value, a
 * node, a name) per line; everything deeper stays on that entry's line.
 */
final class GraphPrettyPrinter implements PrettyPrinter {
    /** Nesting depth of the container being written: 1 is the graph object. */
    private int depth;

    private String newline() {
        return depth == 1 ? "\n  " : "\n    ";
    }

    private boolean expanded() {
        return depth <= 2;
    }

    @Override
    public void writeRootValueSeparator(JsonGenerator g) {
    }

    @Override
    public void writeStartObject(JsonGenerator g) throws IOException {
        g.writeRaw('{');
        depth++;
    }

    @Override
    public void beforeObjectEntries(JsonGenerator g) throws IOException {
        if (expanded()) {
            g.writeRaw(newline());
        }
    }

    @Override
    public void writeObjectFieldValueSeparator(JsonGenerator g) throws IOException {
        g.writeRaw(depth == 1 ? ": " : ":");
    }

    @Override
    public void writeObjectEntrySeparator(JsonGenerator g) throws IOException {
        g.writeRaw(expanded() ? "," + newline() : ",");
    }

    @Override
    public void writeEndObject(JsonGenerator g, int nrOfEntries) throws IOException {
        if (expanded() && nrOfEntries > 0) {
            g.writeRaw(depth == 1 ? "\n" : "\n  ");
        }
        g.writeRaw('}');
        depth--;
    }

    @Override
    public void writeStartArray(JsonGenerator g) throws IOException {
        g.writeRaw('[');
        depth++;
    }

    @Override
    public void beforeArrayValues(JsonGenerator g) throws IOException {
        if (expanded()) {
            g.writeRaw(newline());
        }
    }

    @Override
    public void writeArrayValueSeparator(JsonGenerator g) throws IOException {
        g.writeRaw(expanded() ? "," + newline() : ",");
    }

    @Override
    public void writeEndArray(JsonGenerator g, int nrOfValues) throws IOException {
        if (expanded() && nrOfValues > 0) {
            g.writeRaw("\n  ");
        }
        g.writeRaw(']');
        depth--;
    }
}
