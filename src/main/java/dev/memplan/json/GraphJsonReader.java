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
import dev.memplan.Shape;
import dev.memplan.ViewMap;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads one graph file with Jackson's streaming parser: no tree of the whole document and no
 * recursion, so a million-node file loads in memory proportional to the graph itself. One
 * instance reads one file.
 */
final class GraphJsonReader {
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
            .build();
    private static final Pattern INTEGER = Pattern.compile("-?[0-9]+");
    private static final String GRAPH_FIELDS = "values, nodes, inputs, outputs, initializers and views";

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
    /** Op types and domains repeat: keep one string of each. */
    private final Map<String, String> interned = new HashMap<>();

    private final NameRefs refs = new NameRefs();
    private int[] graphInputs = {0, 0};
    private int[] graphOutputs = {0, 0};
    private int[] initializers = {0, 0};
    private int[] views = {0, 0};
    private boolean sawValues;
    private boolean sawNodes;

    private GraphJsonReader(JsonParser parser) {
        this.p = parser;
    }

    static GraphFile read(Reader in) throws IOException {
        try (JsonParser parser = FACTORY.createParser(in)) {
            return new GraphJsonReader(parser).readFile();
        }
    }

    private GraphFile readFile() throws IOException {
        try {
            readDocument();
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation() != null ? e.getLocation() : p.currentLocation();
            throw new GraphFileException(at.getLineNr(), at.getColumnNr(), JsonPaths.of(p.getParsingContext()),
                    "malformed JSON: " + e.getOriginalMessage(), e);
        }
        return build();
    }

    private void readDocument() throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw error("a graph file is one JSON object, {\"values\":[...], \"nodes\":[...], ...}, but it starts"
                    + " with " + describe(p.currentToken()));
        }
        while (next() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            switch (field) {
                case "values" -> readValues();
                case "nodes" -> readNodes();
                case "inputs" -> graphInputs = readGraphNames(NameRefs.GRAPH_INPUT);
                case "outputs" -> graphOutputs = readGraphNames(NameRefs.GRAPH_OUTPUT);
                case "initializers" -> initializers = readGraphNames(NameRefs.INITIALIZER);
                case "views" -> readViews();
                default -> throw unknownField(field, "a graph has " + GRAPH_FIELDS);
            }
        }
        if (p.nextToken() != null) {
            throw error("unexpected " + describe(p.currentToken()) + " after the graph object; a file holds one graph");
        }
        if (!sawValues || !sawNodes) {
            throw new GraphFileException(1, 1, "$", "the graph has no \"" + (sawValues ? "nodes" : "values")
                    + "\" field; a graph file needs \"values\" and \"nodes\" (they may be empty lists)", null);
        }
    }

    private void readValues() throws IOException {
        sawValues = true;
        expect(JsonToken.START_ARRAY, "\"values\" is a list of values, e.g. [{\"name\":\"x\",\"dtype\":\"float32\","
                + "\"shape\":[1,\"seq\",768]}]");
        while (next() != JsonToken.END_ARRAY) {
            expectCurrent(JsonToken.START_OBJECT, "a value is an object {\"name\":..., \"dtype\":..., \"shape\":[...]}");
            JsonLocation start = p.currentTokenLocation();
            String startPath = path();
            int id = valueNames.size();
            String name = null;
            DataType type = null;
            Shape shape = null;
            while (next() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                switch (field) {
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
                    default -> throw unknownField(field, "a value has name, dtype and shape");
                }
            }
            String missing = name == null ? "name" : type == null ? "dtype" : shape == null ? "shape" : null;
            if (missing != null) {
                throw errorAt(start, startPath, "the value has no \"" + missing + "\"; a value needs name, dtype and"
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
                dims.add(Dim.symbol(symbol));
            } else {
                throw error("a dim is an extent >= 0 or a symbol name, not " + describe(t));
            }
        }
        return new Shape(dims);
    }

    private void readNodes() throws IOException {
        sawNodes = true;
        expect(JsonToken.START_ARRAY, "\"nodes\" is a list of nodes, e.g. [{\"name\":\"n0\",\"op\":\"MatMul\","
                + "\"inputs\":[\"x\",\"w\"],\"outputs\":[\"h\"]}]");
        while (next() != JsonToken.END_ARRAY) {
            expectCurrent(JsonToken.START_OBJECT, "a node is an object {\"name\":..., \"op\":..., \"inputs\":[...],"
                    + " \"outputs\":[...]}");
            JsonLocation start = p.currentTokenLocation();
            String startPath = path();
            int id = nodeOps.size();
            String name = "";
            String op = null;
            String domain = "";
            int[] ins = {0, 0};
            int[] outs = {0, 0};
            while (next() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                switch (field) {
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
                    default -> throw unknownField(field, "a node has name, op, domain, inputs and outputs");
                }
            }
            if (op == null) {
                throw errorAt(start, startPath, "the node has no \"op\"; add its op type, e.g. \"op\":\"MatMul\"");
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
            int ref = refs.add(name, p.currentTokenLocation(), kind, owner, count++);
            if (first < 0) {
                first = ref;
            }
        }
        return new int[] {first, count};
    }

    private void readViews() throws IOException {
        expect(JsonToken.START_OBJECT, "\"views\" maps each view to its source, e.g. {\"h_view\": \"h\"}");
        int first = -1;
        int count = 0;
        while (next() == JsonToken.FIELD_NAME) {
            String view = p.currentName();
            if (view.isEmpty()) {
                throw error("a view needs a name: use the name of a value declared in \"values\"");
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

    private GraphFile build() {
        Graph.Builder b = Graph.builder();
        for (int v = 0; v < valueNames.size(); v++) {
            b.value(valueNames.get(v), valueTypes.get(v), valueShapes.get(v));
        }
        for (int n = 0; n < nodeOps.size(); n++) {
            b.node(nodeNames.get(n), nodeDomains.get(n), nodeOps.get(n),
                    resolve(inputsFirst.get(n), inputsCount.get(n)), resolve(outputsFirst.get(n), outputsCount.get(n)));
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
        return new GraphFile(graph, vb.build());
    }

    private int[] resolve(int first, int count) {
        int[] ids = new int[count];
        for (int i = 0; i < count; i++) {
            ids[i] = resolve(first + i);
        }
        return ids;
    }

    private int resolve(int ref) {
        String name = refs.name(ref);
        if (name.isEmpty()) {
            return Graph.ABSENT; // only node inputs may be "" (checked when read)
        }
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

    private GraphFileException unknownField(String field, String known) {
        return error("unknown field \"" + field + "\"; " + known);
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
