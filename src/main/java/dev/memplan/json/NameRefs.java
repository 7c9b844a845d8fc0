package dev.memplan.json;

import com.fasterxml.jackson.core.JsonLocation;
import java.util.Arrays;

/**
 * The value names a graph file refers to (node inputs and outputs, graph inputs, outputs,
 * initializers, views), kept with where they were read. JSON objects are unordered, so "nodes" may
 * come before "values": names are resolved to ids only once the whole file is read, and an
 * undeclared name is then reported at its own line, column and path. Flat arrays keep a
 * million-node file cheap.
 */
final class NameRefs {
    static final byte NODE_INPUT = 0;
    static final byte NODE_OUTPUT = 1;
    static final byte GRAPH_INPUT = 2;
    static final byte GRAPH_OUTPUT = 3;
    static final byte INITIALIZER = 4;
    static final byte VIEW = 5;
    static final byte VIEW_SOURCE = 6;

    private String[] names = new String[64];
    private int[] lines = new int[64];
    private int[] columns = new int[64];
    private byte[] kinds = new byte[64];
    /** The node index, or for a view source the ref index of its view. */
    private int[] owners = new int[64];
    /** The position in its list. */
    private int[] positions = new int[64];
    private int size;

    /** Records a reference and returns its index. */
    int add(String name, JsonLocation where, byte kind, int owner, int position) {
        if (size == names.length) {
            int n = size * 2;
            names = Arrays.copyOf(names, n);
            lines = Arrays.copyOf(lines, n);
            columns = Arrays.copyOf(columns, n);
            kinds = Arrays.copyOf(kinds, n);
            owners = Arrays.copyOf(owners, n);
            positions = Arrays.copyOf(positions, n);
        }
        names[size] = name;
        lines[size] = where.getLineNr();
        columns[size] = where.getColumnNr();
        kinds[size] = kind;
        owners[size] = owner;
        positions[size] = position;
        return size++;
    }

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
