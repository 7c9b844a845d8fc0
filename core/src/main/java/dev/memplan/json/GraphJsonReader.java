// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import dev.memplan.Shape;
import dev.memplan.ViewMap;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads one graph file with Jackson's streaming parser: no tree of the whole document and no
 * recursion, so a million-node file loads in memory proportional to the graph itself. One
 * instance reads one file.
 */
final class GraphJsonReader {
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
            .build();
    private static final Pattern INTEGER = Pattern.compile("-?[0-9]+");
    private static final List<String> GRAPH_FIELDS =
            List.of("values", "nodes", "inputs", "outputs", "initializers", "views");
    private static final List<String> VALUE_FIELDS = List.of("name", "dtype", "shape");
    private static final List<String> NODE_FIELDS = List.of("name", "op", "domain", "inputs", "outputs", "inPlace");

    private final JsonParser p;

    private final List<String> valueNames = new ArrayList<>();
    private final List<DataType> valueTypes = new ArrayList<>();
    private final List<Shape> valueShapes = new ArrayList<>();
    private final Map<String, Integer> valueIds = new HashMap<>();

    private final List<String> nodeNames = new ArrayList<>();
    private final List<String> nodeOps = new ArrayList<>();
    private final List<String> nodeDomains = new ArrayList<>();
    private final Map<String, Integer> nodeIds = new HashMap<>();
    /** Per node: the first reference and the count of its inputs, then of its outputs. */
    private final IntList inputsFirst = new IntList();
    private final IntList inputsCount = new IntList();
    private final IntList outputsFirst = new IntList();
    private final IntList outputsCount = new IntList();
    /** In-place hints: node id to the input positions its first output may overwrite. */
    private final Map<Integer, InPlaceHint> inPlaceHints = new HashMap<>();

    /** A node's in-place hint and where the file gives it. */
    private record InPlaceHint(int[] positions, JsonLocation at) {
    }
    /** Op types and domains repeat: keep one string of each. */
    private final Map<String, String> interned = new HashMap<>();
    /** Shapes repeat too (immutable, so safe to share): keep one of each. */
    private final Map<List<Dim>, Shape> shapes = new HashMap<>();
    private final Map<String, Dim> symbols = new HashMap<>();

    private final NameRefs refs = new NameRefs();
    private int[] graphInputs = {0, 0};
    private int[] graphOutputs = {0, 0};
    private int[] initializers = {0, 0};
    private int[] views = {0, 0};

    private GraphJsonReader(JsonParser parser) {
        this.p = parser;
    }

    /**
     * Reads a graph file's bytes, which must be UTF-8 (a UTF-8 byte order mark is skipped); UTF-16
     * and UTF-32 are refused at line 1, invalid UTF-8 is reported where it is.
     */
    static GraphJson.GraphFile read(InputStream in) throws IOException {
        BufferedInputStream buffered = in instanceof BufferedInputStream b ? b : new BufferedInputStream(in);
        buffered.mark(4);
        byte[] head = buffered.readNBytes(4);
        buffered.reset();
        String wide = wideEncoding(head);
        if (wide != null) {
            throw new GraphFileException(1, 1, "$", "the file " + wide + "; memplan reads graph files in UTF-8:"
                    + " save it as UTF-8", null);
        }
        try (JsonParser parser = FACTORY.createParser(buffered)) {
            return new GraphJsonReader(parser).readFile();
        }
    }

    /** What the first bytes say about an encoding other than UTF-8, or null when they say nothing. */
    private static String wideEncoding(byte[] head) {
        int b0 = head.length > 0 ? head[0] & 0xff : -1;
        int b1 = head.length > 1 ? head[1] & 0xff : -1;
        if ((b0 == 0xfe && b1 == 0xff) || (b0 == 0xff && b1 == 0xfe)) {
            return "is UTF-16 or UTF-32 (it starts with a byte order mark)";
        }
        for (byte b : head) {
            if (b == 0) {
                return "holds NUL bytes at its start: it is UTF-16 or UTF-32 text, or not text at all";
            }
        }
        return null;
    }

    static GraphJson.GraphFile read(Reader in) throws IOException {
        try (JsonParser parser = FACTORY.createParser(in)) {
            return new GraphJsonReader(parser).readFile();
        }
    }

    private GraphJson.GraphFile readFile() throws IOException {
        try {
            readDocument();
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation() != null ? e.getLocation() : p.currentLocation();
            String reason = ParserMessages.plain(e.getOriginalMessage());
            String problem = reason.startsWith("Invalid UTF-8")
                    ? "the file is not UTF-8 (" + reason + "); save it as UTF-8"
                    : "malformed JSON: " + reason;
            throw new GraphFileException(at.getLineNr(), at.getColumnNr(), JsonPaths.of(p.getParsingContext()),
                    problem, e);
        }
        return build();
    }

    private void readDocument() throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw error("a graph file is one JSON object, {\"values\":[...], \"nodes\":[...], ...}, but it starts"
                    + " with " + describe(p.currentToken()));
        }
        int seen = 0;
        while (next() == JsonToken.FIELD_NAME) {
            seen = markField(seen, GRAPH_FIELDS, "a graph has");
            switch (p.currentName()) {
                case "values" -> readValues();
                case "nodes" -> readNodes();
                case "inputs" -> graphInputs = readGraphNames(NameRefs.GRAPH_INPUT);
                case "outputs" -> graphOutputs = readGraphNames(NameRefs.GRAPH_OUTPUT);
                case "initializers" -> initializers = readGraphNames(NameRefs.INITIALIZER);
                case "views" -> readViews();
                default -> throw new IllegalStateException("markField accepts only known fields");
            }
        }
        if (p.nextToken() != null) {
            throw error("found " + describe(p.currentToken()) + " after the graph object; a file holds one graph");
        }
        for (String required : List.of("values", "nodes")) {
            if ((seen & (1 << GRAPH_FIELDS.indexOf(required))) == 0) {
                throw new GraphFileException(1, 1, "$", "the graph has no \"" + required + "\" field; a graph file"
                        + " needs \"values\" and \"nodes\" (they may be empty lists)", null);
            }
        }
    }

    private void readValues() throws IOException {
        expect(JsonToken.START_ARRAY, "\"values\" is a list of values, e.g. [{\"name\":\"x\",\"dtype\":\"float32\","
                + "\"shape\":[1,\"seq\",768]}]");
        while (next() != JsonToken.END_ARRAY) {
            expectCurrent(JsonToken.START_OBJECT, "a value is an object {\"name\":..., \"dtype\":..., \"shape\":[...]}");
            JsonLocation start = p.currentTokenLocation();
            int id = valueNames.size();
            String name = null;
            DataType type = null;
            Shape shape = null;
            int seen = 0;
            while (next() == JsonToken.FIELD_NAME) {
                seen = markField(seen, VALUE_FIELDS, "a value has");
                switch (p.currentName()) {
                    case "name" -> {
                        name = readString("a value name");
                        if (name.isEmpty()) {
                            throw error("a value name must not be empty (\"\" stands for an absent node input)");
                        }
                        Integer previous = valueIds.putIfAbsent(name, id);
                        if (previous != null) {
                            throw error("value name '" + name + "' is already declared at $.values[" + previous
                                    + "]; value names must be unique");
                        }
                    }
                    case "dtype" -> {
                        String text = readString("a dtype");
                        try {
                            type = DataType.fromName(text);
                        } catch (IllegalArgumentException e) {
                            throw error(e.getMessage());
                        }
                    }
                    case "shape" -> shape = readShape();
                    default -> throw new IllegalStateException("markField accepts only known fields");
                }
            }
            String missing = name == null ? "name" : type == null ? "dtype" : shape == null ? "shape" : null;
            if (missing != null) {
                throw errorAt(start, "$.values[" + id + "]", "the value has no \"" + missing + "\"; a value needs name, dtype and"
                        + " shape (shape [] for a scalar)");
            }
            valueNames.add(name);
            valueTypes.add(type);
            valueShapes.add(shape);
        }
    }

    private Shape readShape() throws IOException {
        expect(JsonToken.START_ARRAY, "a shape is a list of dims, e.g. [1, \"seq\", 768]");
        List<Dim> dims = new ArrayList<>();
        while (next() != JsonToken.END_ARRAY) {
            JsonToken t = p.currentToken();
            if (t == JsonToken.VALUE_NUMBER_INT) {
                if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    throw error("dim " + p.getText() + " is too large; a dim fits in a signed 64-bit integer");
                }
                long extent = p.getLongValue();
                if (extent < 0) {
                    throw error("dim " + extent + " is negative; a dim is an extent >= 0 or a symbol name");
                }
                dims.add(Dim.of(extent));
            } else if (t == JsonToken.VALUE_NUMBER_FLOAT) {
                throw error("dim " + p.getText() + " is not an integer; a dim is an extent >= 0 or a symbol name");
            } else if (t == JsonToken.VALUE_STRING) {
                String symbol = p.getText();
                if (symbol.isEmpty()) {
                    throw error("a symbol dim needs a name, e.g. \"seq\"");
                }
                if (INTEGER.matcher(symbol).matches()) {
                    throw error("dim \"" + symbol + "\" is a string; write the number " + symbol
                            + " without quotes, or give the symbol a name that is not a number");
                }
                dims.add(symbols.computeIfAbsent(symbol, Dim::symbol));
            } else {
                throw error("a dim is an extent >= 0 or a symbol name, not " + describe(t));
            }
        }
        return shapes.computeIfAbsent(dims, Shape::new);
    }

    private void readNodes() throws IOException {
        expect(JsonToken.START_ARRAY, "\"nodes\" is a list of nodes, e.g. [{\"name\":\"n0\",\"op\":\"MatMul\","
                + "\"inputs\":[\"x\",\"w\"],\"outputs\":[\"h\"]}]");
        while (next() != JsonToken.END_ARRAY) {
            expectCurrent(JsonToken.START_OBJECT, "a node is an object {\"name\":..., \"op\":..., \"inputs\":[...],"
                    + " \"outputs\":[...]}");
            JsonLocation start = p.currentTokenLocation();
            int id = nodeOps.size();
            String name = "";
            String op = null;
            String domain = "";
            int[] ins = {0, 0};
            int[] outs = {0, 0};
            int[] inPlace = null;
            JsonLocation inPlaceAt = null;
            int seen = 0;
            while (next() == JsonToken.FIELD_NAME) {
                seen = markField(seen, NODE_FIELDS, "a node has");
                switch (p.currentName()) {
                    case "name" -> {
                        name = readString("a node name");
                        if (!name.isEmpty()) {
                            Integer previous = nodeIds.putIfAbsent(name, id);
                            if (previous != null) {
                                throw error("node name '" + name + "' is already used by $.nodes[" + previous
                                        + "]; node names must be unique");
                            }
                        }
                    }
                    case "op" -> {
                        op = intern(readString("an op type"));
                        if (op.isEmpty()) {
                            throw error("a node's op type must not be empty, e.g. \"MatMul\"");
                        }
                    }
                    case "domain" -> domain = intern(readString("an op domain"));
                    case "inputs" -> ins = readNames(NameRefs.NODE_INPUT, id, "node inputs");
                    case "outputs" -> outs = readNames(NameRefs.NODE_OUTPUT, id, "node outputs");
                    case "inPlace" -> {
                        inPlaceAt = p.currentTokenLocation();
                        inPlace = readInputPositions();
                    }
                    default -> throw new IllegalStateException("markField accepts only known fields");
                }
            }
            if (inPlace != null) {
                checkInPlace(inPlaceAt, id, inPlace, ins[1], outs[1]);
                inPlaceHints.put(id, new InPlaceHint(inPlace, inPlaceAt));
            }
            if (op == null) {
                throw errorAt(start, "$.nodes[" + id + "]", "the node has no \"op\"; add its op type, e.g. \"op\":\"MatMul\"");
            }
            nodeNames.add(name);
            nodeOps.add(op);
            nodeDomains.add(domain);
            inputsFirst.add(ins[0]);
            inputsCount.add(ins[1]);
            outputsFirst.add(outs[0]);
            outputsCount.add(outs[1]);
        }
    }

    /** An in-place hint: a list of input positions, e.g. [0]. */
    private int[] readInputPositions() throws IOException {
        expect(JsonToken.START_ARRAY, "\"inPlace\" lists the input positions the node's first output may"
                + " overwrite, e.g. [0]");
        IntList positions = new IntList();
        while (next() != JsonToken.END_ARRAY) {
            if (p.currentToken() != JsonToken.VALUE_NUMBER_INT) {
                throw error("an in-place hint names an input by its position (0 for the first input), not "
                        + describe(p.currentToken()));
            }
            long k = p.getLongValue();
            if (k < 0 || k > Node.MAX_IN_PLACE_INPUT) {
                throw error("in-place input position " + k + " is out of range; use 0 to "
                        + Node.MAX_IN_PLACE_INPUT);
            }
            positions.add((int) k);
        }
        int[] out = new int[positions.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = positions.get(i);
        }
        return out;
    }

    private static void checkInPlace(JsonLocation at, int node, int[] positions, int numInputs, int numOutputs) {
        if (numOutputs == 0) {
            throw errorAt(at, "$.nodes[" + node + "].inPlace", "the node has no output to place in place;"
                    + " drop \"inPlace\" or add an output");
        }
        for (int k : positions) {
            if (k >= numInputs) {
                throw errorAt(at, "$.nodes[" + node + "].inPlace", "in-place input position " + k
                        + " names no input: the node has " + numInputs + " (positions 0 to " + (numInputs - 1) + ")");
            }
        }
    }

    private int[] readGraphNames(byte kind) throws IOException {
        return readNames(kind, -1, "\"" + p.currentName() + "\"");
    }

    /** Reads a list of value names; returns {first reference, count}. */
    private int[] readNames(byte kind, int owner, String what) throws IOException {
        expect(JsonToken.START_ARRAY, what + " are a list of value names, e.g. [\"x\", \"w\"]");
        int first = -1;
        int count = 0;
        while (next() != JsonToken.END_ARRAY) {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                throw error("expected a value name (a string), not " + describe(p.currentToken()));
            }
            String name = p.getText();
            if (name.isEmpty() && kind != NameRefs.NODE_INPUT) {
                throw error(kind == NameRefs.NODE_OUTPUT
                        ? "a node output cannot be absent (\"\"); name it and declare it in \"values\""
                        : "\"\" names no value; use a name declared in \"values\"");
            }
            int ref = addNodeOrGraphRef(name, kind, owner, count++);
            if (first < 0) {
                first = ref;
            }
        }
        return new int[] {first, count};
    }

    /** Node references, the bulk of a file, are stored as ids when their value is already declared. */
    private int addNodeOrGraphRef(String name, byte kind, int owner, int position) {
        JsonLocation at = p.currentTokenLocation();
        if (name.isEmpty()) {
            return refs.addResolved(Graph.ABSENT, at, kind, owner, position); // only node inputs get here
        }
        Integer id = valueIds.get(name);
        return id != null ? refs.addResolved(id, at, kind, owner, position) : refs.add(name, at, kind, owner, position);
    }

    private void readViews() throws IOException {
        expect(JsonToken.START_OBJECT, "\"views\" maps each view to its source, e.g. {\"h_view\": \"h\"}");
        int first = -1;
        int count = 0;
        Set<String> seen = new HashSet<>();
        while (next() == JsonToken.FIELD_NAME) {
            String view = p.currentName();
            if (view.isEmpty()) {
                throw error("a view needs a name: use the name of a value declared in \"values\"");
            }
            if (!seen.add(view)) {
                throw error("view '" + view + "' appears twice; a view has one source");
            }
            int ref = refs.add(view, p.currentTokenLocation(), NameRefs.VIEW, -1, count);
            if (first < 0) {
                first = ref;
            }
            String source = readString("the source of view '" + view + "'");
            if (source.isEmpty()) {
                throw error("view '" + view + "' needs a source: the name of one of its producer's inputs");
            }
            refs.add(source, p.currentTokenLocation(), NameRefs.VIEW_SOURCE, ref, count);
            count++;
        }
        views = new int[] {first, count};
    }

    private GraphJson.GraphFile build() {
        Graph.Builder b = Graph.builder();
        for (int v = 0; v < valueNames.size(); v++) {
            b.value(valueNames.get(v), valueTypes.get(v), valueShapes.get(v));
        }
        for (int n = 0; n < nodeOps.size(); n++) {
            b.node(nodeNames.get(n), nodeDomains.get(n), nodeOps.get(n),
                    resolve(inputsFirst.get(n), inputsCount.get(n)), resolve(outputsFirst.get(n), outputsCount.get(n)));
        }
        for (Map.Entry<Integer, InPlaceHint> hint : inPlaceHints.entrySet()) {
            int node = hint.getKey();
            int[] ins = resolve(inputsFirst.get(node), inputsCount.get(node));
            for (int k : hint.getValue().positions()) {
                if (ins[k] == Graph.ABSENT) {
                    throw errorAt(hint.getValue().at(), "$.nodes[" + node + "].inPlace", "in-place input position " + k
                            + " names an absent input (\"\"); name a present input");
                }
            }
            b.inPlace(node, hint.getValue().positions());
        }
        b.input(resolve(graphInputs[0], graphInputs[1]));
        b.output(resolve(graphOutputs[0], graphOutputs[1]));
        b.initializer(resolve(initializers[0], initializers[1]));
        Graph graph = b.build();
        ViewMap.Builder vb = ViewMap.builder();
        for (int i = 0; i < views[1]; i++) {
            int viewRef = views[0] + 2 * i;
            vb.put(resolve(viewRef), resolve(viewRef + 1));
        }
        return new GraphJson.GraphFile(graph, vb.build());
    }

    private int[] resolve(int first, int count) {
        int[] ids = new int[count];
        for (int i = 0; i < count; i++) {
            ids[i] = resolve(first + i);
        }
        return ids;
    }

    private int resolve(int ref) {
        if (refs.id(ref) != NameRefs.UNRESOLVED) {
            return refs.id(ref);
        }
        String name = refs.name(ref);
        Integer id = valueIds.get(name);
        if (id == null) {
            throw new GraphFileException(refs.line(ref), refs.column(ref), refs.path(ref), "value '" + name
                    + "' is not declared in \"values\"; declare it there or fix the name", null);
        }
        return id;
    }

    private String intern(String s) {
        String previous = interned.putIfAbsent(s, s);
        return previous == null ? s : previous;
    }

    private JsonToken next() throws IOException {
        JsonToken t = p.nextToken();
        if (t == null) {
            throw error("the file ends before the graph object is closed");
        }
        return t;
    }

    private void expect(JsonToken expected, String what) throws IOException {
        next();
        expectCurrent(expected, what);
    }

    private void expectCurrent(JsonToken expected, String what) {
        if (p.currentToken() != expected) {
            throw error(what + ", not " + describe(p.currentToken()));
        }
    }

    private String readString(String what) throws IOException {
        if (next() != JsonToken.VALUE_STRING) {
            throw error("expected " + what + " (a string), not " + describe(p.currentToken()));
        }
        return p.getText();
    }

    /**
     * Marks the current field name as seen in its object (a bit per known field) and returns the
     * new mask; an unknown field or one seen before is an error at the field name.
     */
    private int markField(int seen, List<String> known, String owner) throws IOException {
        String field = p.currentName();
        int i = known.indexOf(field);
        if (i < 0) {
            throw error("unknown field \"" + field + "\"; " + owner + " " + String.join(", ", known.subList(0, known.size() - 1))
                    + " and " + known.get(known.size() - 1));
        }
        if ((seen & (1 << i)) != 0) {
            throw error("field \"" + field + "\" appears twice in this object; keep one");
        }
        return seen | (1 << i);
    }

    private String path() {
        return JsonPaths.of(p.getParsingContext());
    }

    private GraphFileException error(String problem) {
        return errorAt(p.currentTokenLocation(), path(), problem);
    }

    private static GraphFileException errorAt(JsonLocation at, String path, String problem) {
        return new GraphFileException(at.getLineNr(), at.getColumnNr(), path, problem, null);
    }

    private static String describe(JsonToken t) {
        if (t == null) {
            return "the end of the file";
        }
        return switch (t) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "a list";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            case END_OBJECT -> "'}'";
            case END_ARRAY -> "']'";
            default -> t.asString() == null ? t.name() : "'" + t.asString() + "'";
        };
    }
}
