// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.InvalidGraphException;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.testing.EngineIndependent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every way a graph file can be wrong, each with where and what the message says. */
@EngineIndependent
class GraphJsonErrorTest {
    private static final String X = "{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2,3]}";
    private static final String Y = "{\"name\":\"y\",\"dtype\":\"float32\",\"shape\":[2,3]}";
    private static final String RELU = "{\"name\":\"relu\",\"op\":\"Relu\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}";
    private static final String IO = "\"inputs\":[\"x\"],\"outputs\":[\"y\"]";
    /** A valid file: x -> Relu -> y. Cases below break one thing each. */
    private static final String VALID = doc(X + "," + Y, RELU, IO);

    private static String doc(String values, String nodes, String rest) {
        return "{\"values\":[" + values + "],\"nodes\":[" + nodes + "]" + (rest.isEmpty() ? "" : "," + rest) + "}";
    }

    /**
     * Parses a one-line document and checks the location of the error at {@code needle}, which
     * must occur exactly once.
     */
    private static GraphFileException fails(String json, String needle, String path, String... messageParts) {
        assertFalse(json.contains("\n"), "one-line documents only: the column is the needle's offset");
        int at = json.indexOf(needle);
        assertTrue(at >= 0 && at == json.lastIndexOf(needle), "needle '" + needle + "' once in " + json);
        GraphFileException e = assertThrows(GraphFileException.class, () -> GraphJson.parse(json));
        assertEquals(1, e.line(), e.getMessage());
        assertEquals(at + 1, e.column(), e.getMessage());
        assertEquals(path, e.jsonPath(), e.getMessage());
        assertTrue(e.getMessage().startsWith("line 1, column " + (at + 1) + " (" + path + "): "), e.getMessage());
        for (String part : messageParts) {
            assertTrue(e.getMessage().contains(part), "'" + part + "' in: " + e.getMessage());
        }
        return e;
    }

    @Test
    void theBaseCaseIsValid() {
        assertEquals(1, GraphJson.parse(VALID).graph().nodeCount());
    }

    @Test
    void unknownTopLevelField() {
        fails(doc(X + "," + Y, RELU, "\"inptus\":[\"x\"],\"outputs\":[\"y\"]"), "\"inptus\"", "$.inptus",
                "unknown field \"inptus\"", "values, nodes, inputs, outputs, initializers and views");
    }

    @Test
    void unknownValueField() {
        fails(doc(X + ",{\"name\":\"y\",\"dtype\":\"float32\",\"size\":24,\"shape\":[2,3]}", RELU, IO),
                "\"size\"", "$.values[1].size", "unknown field \"size\"", "name, dtype and shape");
    }

    @Test
    void unknownNodeField() {
        fails(doc(X + "," + Y, RELU.replace("\"op\":\"Relu\"", "\"op\":\"Relu\",\"attrs\":{}"), IO),
                "\"attrs\"", "$.nodes[0].attrs", "unknown field \"attrs\"", "name, op, domain, inputs, outputs and inPlace");
    }

    @Test
    void duplicateValueName() {
        fails(doc(X + "," + Y + ",{\"name\":\"x\",\"dtype\":\"int8\",\"shape\":[]}", RELU, IO),
                "\"x\",\"dtype\":\"int8\"", "$.values[2].name",
                "value name 'x' is already declared at $.values[0]; value names must be unique");
    }

    @Test
    void duplicateNodeName() {
        String z = "{\"name\":\"z\",\"dtype\":\"float32\",\"shape\":[2,3]}";
        String second = "{\"name\":\"relu\",\"op\":\"Sigmoid\",\"inputs\":[\"y\"],\"outputs\":[\"z\"]}";
        fails(doc(X + "," + Y + "," + z, RELU + "," + second, IO), "\"relu\",\"op\":\"Sigmoid\"",
                "$.nodes[1].name", "node name 'relu' is already used by $.nodes[0]; node names must be unique");
    }

    @Test
    void unnamedNodesAreNotDuplicates() {
        String z = "{\"name\":\"z\",\"dtype\":\"float32\",\"shape\":[2,3]}";
        String a = "{\"op\":\"Relu\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}";
        String b = "{\"name\":\"\",\"op\":\"Relu\",\"inputs\":[\"y\"],\"outputs\":[\"z\"]}";
        assertEquals(2, GraphJson.parse(doc(X + "," + Y + "," + z, a + "," + b, IO)).graph().nodeCount());
    }

    @Test
    void unknownDtype() {
        fails(doc(X + "," + Y.replace("float32", "float33"), RELU, IO), "\"float33\"", "$.values[1].dtype",
                "unknown data type 'float33'; use one of ", "float32", "bfloat16", "int4");
    }

    @Test
    void undeclaredNodeInput() {
        fails(doc(X + "," + Y, RELU.replace("[\"x\"]", "[\"x\",\"scale\"]"), IO), "\"scale\"",
                "$.nodes[0].inputs[1]", "value 'scale' is not declared in \"values\"; declare it there or fix the name");
    }

    @Test
    void undeclaredNodeOutput() {
        fails(doc(X + "," + Y, RELU.replace("[\"y\"]", "[\"y\",\"mask\"]"), IO), "\"mask\"",
                "$.nodes[0].outputs[1]", "value 'mask' is not declared");
    }

    @Test
    void undeclaredGraphInputOutputAndInitializer() {
        fails(doc(X + "," + Y, RELU, "\"inputs\":[\"x\",\"tokens\"],\"outputs\":[\"y\"]"), "\"tokens\"",
                "$.inputs[1]", "value 'tokens' is not declared");
        fails(doc(X + "," + Y, RELU, IO.replace("[\"y\"]", "[\"y\",\"logits\"]")), "\"logits\"",
                "$.outputs[1]", "value 'logits' is not declared");
        fails(doc(X + "," + Y, RELU, IO + ",\"initializers\":[\"w\"]"), "\"w\"", "$.initializers[0]",
                "value 'w' is not declared");
    }

    @Test
    void undeclaredViewOrViewSource() {
        fails(doc(X + "," + Y, RELU, IO + ",\"views\":{\"y_view\":\"y\"}"), "\"y_view\"", "$.views.y_view",
                "value 'y_view' is not declared");
        fails(doc(X + "," + Y, RELU, IO + ",\"views\":{\"y\":\"x2\"}"), "\"x2\"", "$.views.y",
                "value 'x2' is not declared");
        fails(doc(X + "," + Y, RELU, IO + ",\"views\":{\"odd name\":\"x\"}"), "\"odd name\"",
                "$.views['odd name']", "value 'odd name' is not declared");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "-1        | dim -1 is negative; a dim is an extent >= 0 or a symbol name",
            "2.5       | dim 2.5 is not an integer",
            "1e3       | dim 1e3 is not an integer",
            "99999999999999999999 | dim 99999999999999999999 is too large",
            "\"\"      | a symbol dim needs a name",
            "\"768\"   | dim \"768\" is a string; write the number 768 without quotes",
            "true      | a dim is an extent >= 0 or a symbol name, not a boolean",
            "null      | a dim is an extent >= 0 or a symbol name, not null",
            "[1]       | a dim is an extent >= 0 or a symbol name, not a list"})
    void badDim(String dim, String message) {
        String y = "{\"name\":\"y\",\"dtype\":\"float32\",\"shape\":[2," + dim + "]}";
        fails(doc(X + "," + y, RELU, IO), dim + "]", "$.values[1].shape[1]", message);
    }

    @Test
    void malformedJsonHasLineAndColumn() {
        String json = "{\n  \"values\": [\n    {\"name\": \"x\", \"dtype\": \"float32\" \"shape\": [1]}\n  ],\n"
                + "  \"nodes\": []\n}\n";
        GraphFileException e = assertThrows(GraphFileException.class, () -> GraphJson.parse(json));
        assertEquals(3, e.line(), e.getMessage());
        int column = json.split("\n")[2].indexOf("\"shape\"") + 1;
        assertEquals(column, e.column(), e.getMessage());
        assertEquals("$.values[0].dtype", e.jsonPath());
        assertTrue(e.getMessage().startsWith("line 3, column " + column + " ($.values[0].dtype): malformed JSON:"
                + " Unexpected character ('\"' (code 34)): was expecting comma to separate Object entries"), e.getMessage());
    }

    @Test
    void truncatedFile() {
        String json = VALID.substring(0, VALID.indexOf(",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}]") + 4);
        GraphFileException e = assertThrows(GraphFileException.class, () -> GraphJson.parse(json));
        assertEquals(1, e.line());
        assertEquals(json.length() + 1, e.column(), e.getMessage());
        assertTrue(e.getMessage().contains("malformed JSON: Unexpected end-of-input"), e.getMessage());
    }

    @Test
    void duplicateKey() {
        fails(doc(X + "," + Y, RELU.replace("\"op\":\"Relu\"", "\"op\":\"Relu\",\"op\":\"Sigmoid\""), IO),
                "\"op\":\"Sigmoid\"", "$.nodes[0].op", "field \"op\" appears twice in this object; keep one");
        fails(doc(X + "," + Y, RELU, IO + ",\"nodes\":[]"), "\"nodes\":[]}", "$.nodes",
                "field \"nodes\" appears twice");
        fails(doc(X + "," + Y, RELU, IO + ",\"views\":{\"y\":\"x\",\"y\":\"x\"}"), "\"y\":\"x\"}", "$.views.y",
                "view 'y' appears twice; a view has one source");
    }

    @Test
    void trailingContent() {
        fails(VALID + " {}", "{}", "$", "found an object after the graph object; a file holds one graph");
    }

    @Test
    void notAnObject() {
        fails("[1,2]", "[", "$", "a graph file is one JSON object", "starts with a list");
    }

    @Test
    void missingValuesOrNodes() {
        GraphFileException e = assertThrows(GraphFileException.class,
                () -> GraphJson.parse("{\"values\":[" + X + "]}"));
        assertEquals("$", e.jsonPath());
        assertTrue(e.getMessage().contains("the graph has no \"nodes\" field"), e.getMessage());
        e = assertThrows(GraphFileException.class, () -> GraphJson.parse("{\"nodes\":[]}"));
        assertTrue(e.getMessage().contains("the graph has no \"values\" field"), e.getMessage());
    }

    @Test
    void missingRequiredFieldsAreReportedAtTheirObject() {
        fails(doc(X + ",{\"name\":\"y\",\"shape\":[2,3]}", RELU, IO), "{\"name\":\"y\"", "$.values[1]",
                "the value has no \"dtype\"");
        fails(doc(X + ",{\"dtype\":\"int8\",\"shape\":[2,3]}", RELU, IO), "{\"dtype\":\"int8\"", "$.values[1]",
                "the value has no \"name\"");
        fails(doc(X + ",{\"name\":\"y\",\"dtype\":\"int8\"}", RELU, IO), "{\"name\":\"y\"", "$.values[1]",
                "the value has no \"shape\"", "shape [] for a scalar");
        fails(doc(X + "," + Y, RELU.replace("\"op\":\"Relu\",", ""), IO), "{\"name\":\"relu\"", "$.nodes[0]",
                "the node has no \"op\"");
    }

    @Test
    void wrongTypes() {
        fails(doc(X.replace("\"x\"", "7") + "," + Y, RELU, IO), "7", "$.values[0].name",
                "expected a value name (a string), not a number");
        fails(doc(X + "," + Y, RELU, "\"inputs\":\"x\",\"outputs\":[\"y\"]"), "\"x\",\"outputs\"", "$.inputs",
                "\"inputs\" are a list of value names");
        fails(doc(X + "," + Y, RELU.replace("[\"x\"]", "[0]"), IO), "0]", "$.nodes[0].inputs[0]",
                "expected a value name (a string), not a number");
        fails(doc(X + "," + Y, "[]", IO), "[]", "$.nodes[0]", "a node is an object");
        fails("{\"values\":{},\"nodes\":[]}", "{}", "$.values", "\"values\" is a list of values");
    }

    @Test
    void emptyNames() {
        fails(doc(X.replace("\"x\"", "\"\"") + "," + Y, RELU, IO), "\"\"", "$.values[0].name",
                "a value name must not be empty");
        fails(doc(X + "," + Y, RELU.replace("[\"y\"]", "[\"\"]"), IO), "\"\"", "$.nodes[0].outputs[0]",
                "a node output cannot be absent");
        fails(doc(X + "," + Y, RELU, IO.replace("[\"y\"]", "[\"\"]")), "\"\"", "$.outputs[0]",
                "\"\" names no value");
    }

    /** Errors of the graph itself come from {@code Graph.Builder.build()} unchanged. */
    @Test
    void graphErrorsPassThrough() {
        String again = "{\"name\":\"again\",\"op\":\"Relu\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}";
        InvalidGraphException e = assertThrows(InvalidGraphException.class,
                () -> GraphJson.parse(doc(X + "," + Y, RELU + "," + again, IO)));
        assertFalse(e instanceof GraphFileException);
        assertEquals("'y' (value 1) is produced twice, by 'relu' (Relu, node 0) and by 'again' (Relu, node 1);"
                + " every value has at most one producer", e.getMessage());

        e = assertThrows(InvalidGraphException.class,
                () -> GraphJson.parse(doc(X + "," + Y, RELU, "\"outputs\":[\"y\"]")));
        assertTrue(e.getMessage().startsWith("'x' (value 0) is consumed but no node produces it"), e.getMessage());
    }

    /** View rules are checked when planning, as for a graph built in code, with the core's message. */
    @Test
    void viewRuleViolationPassesThrough() {
        GraphJson.GraphFile gf = GraphJson.parse(doc(X + "," + Y, RELU, IO + ",\"views\":{\"x\":\"y\"}"));
        InvalidGraphException e = assertThrows(InvalidGraphException.class,
                () -> MemPlan.compile(gf.graph(), gf.views(), PlanOptions.defaults()));
        assertEquals("view 'x' (value 0) is a graph input; only node outputs can be views", e.getMessage());
    }
}
