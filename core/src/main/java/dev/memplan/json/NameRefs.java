// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import com.fasterxml.jackson.core.JsonLocation;
import java.util.Arrays;

/**
 * The value names a graph file refers to (node inputs and outputs, graph inputs, outputs,
 * initializers, views), kept with where they were read. JSON objects are unordered, so "nodes" may
 * come before "values": names are resolved to ids only once the whole file is read, and an
 * undeclared name is then reported at its own line, column and path. A name already declared
 * when it is read is stored as its id only. Flat arrays keep a million-node file cheap.
 */
final class NameRefs {
    static final byte NODE_INPUT = 0;
    static final byte NODE_OUTPUT = 1;
    static final byte GRAPH_INPUT = 2;
    static final byte GRAPH_OUTPUT = 3;
    static final byte INITIALIZER = 4;
    static final byte VIEW = 5;
    static final byte VIEW_SOURCE = 6;
    /** The id of a reference whose name is resolved only once the whole file is read. */
    static final int UNRESOLVED = Integer.MIN_VALUE;

    private String[] names = new String[64];
    private int[] ids = new int[64];
    private int[] lines = new int[64];
    private int[] columns = new int[64];
    private byte[] kinds = new byte[64];
    /** The node index, or for a view source the ref index of its view. */
    private int[] owners = new int[64];
    /** The position in its list. */
    private int[] positions = new int[64];
    private int size;

    /** Records a reference by name, resolved later, and returns its index. */
    int add(String name, JsonLocation where, byte kind, int owner, int position) {
        return add(name, UNRESOLVED, where, kind, owner, position);
    }

    /** Records a reference to a value already known by id (or Graph.ABSENT) and returns its index. */
    int addResolved(int id, JsonLocation where, byte kind, int owner, int position) {
        return add(null, id, where, kind, owner, position);
    }

    private int add(String name, int id, JsonLocation where, byte kind, int owner, int position) {
        if (size == names.length) {
            int n = size * 2;
            names = Arrays.copyOf(names, n);
            ids = Arrays.copyOf(ids, n);
            lines = Arrays.copyOf(lines, n);
            columns = Arrays.copyOf(columns, n);
            kinds = Arrays.copyOf(kinds, n);
            owners = Arrays.copyOf(owners, n);
            positions = Arrays.copyOf(positions, n);
        }
        names[size] = name;
        ids[size] = id;
        lines[size] = where.getLineNr();
        columns[size] = where.getColumnNr();
        kinds[size] = kind;
        owners[size] = owner;
        positions[size] = position;
        return size++;
    }

    /** The value id, or {@link #UNRESOLVED} when only the name is known yet. */
    int id(int ref) {
        return ids[ref];
    }

    /** The name of an unresolved reference. */
    String name(int ref) {
        return names[ref];
    }

    int line(int ref) {
        return lines[ref];
    }

    int column(int ref) {
        return columns[ref];
    }

    /** The JSON path of reference {@code ref}, e.g. {@code $.nodes[3].inputs[1]}. */
    String path(int ref) {
        int owner = owners[ref];
        int pos = positions[ref];
        return switch (kinds[ref]) {
            case NODE_INPUT -> "$.nodes[" + owner + "].inputs[" + pos + "]";
            case NODE_OUTPUT -> "$.nodes[" + owner + "].outputs[" + pos + "]";
            case GRAPH_INPUT -> "$.inputs[" + pos + "]";
            case GRAPH_OUTPUT -> "$.outputs[" + pos + "]";
            case INITIALIZER -> "$.initializers[" + pos + "]";
            case VIEW -> "$.views" + JsonPaths.field(names[ref]);
            case VIEW_SOURCE -> "$.views" + JsonPaths.field(names[owner]);
            default -> throw new IllegalStateException("unknown reference kind " + kinds[ref]);
        };
    }
}
