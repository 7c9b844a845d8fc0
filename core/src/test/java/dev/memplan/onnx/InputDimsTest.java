// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.out;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.Shape;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.onnx.proto.OnnxProto.TypeProto;
import dev.memplan.testing.EngineIndependent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Input dims given in place of the declared ones ({@link ImportOptions#withInputDims}): what the
 * import makes of them, and the one-line refusals of dims that do not fit the model.
 */
@EngineIndependent
class InputDimsTest {
    private static ImportedGraph importWith(OnnxModel model, Map<String, List<String>> dims) {
        return OnnxImporter.importModel(model, ImportOptions.defaults().withInputDims(dims));
    }

    private static Shape shapeOf(ImportedGraph imported, String name) {
        Graph g = imported.graph();
        return g.values().stream().filter(v -> v.name().equals(name)).findFirst().orElseThrow().shape();
    }

    private static Shape shape(Object... dims) {
        List<Dim> out = new ArrayList<>();
        for (Object d : dims) {
            out.add(d instanceof String s ? new Dim.Symbol(s) : Dim.of((Integer) d));
        }
        return new Shape(out);
    }

    @Test
    void givenDimsReplaceTheDeclaredOnesAndTheDeclarationsThatRepeatTheMistake() {
        ImportedGraph imported = importWith(SplitModels.masked("m", "batch", "batch"),
                Map.of("ids", List.of("batch", "seq"), "mask", List.of("batch", "seq")));
        assertEquals(shape("batch", "seq"), shapeOf(imported, "ids"));
        assertEquals(shape("batch", "seq"), imported.declaredShape("ids").orElseThrow());
        // r and m declare [batch, batch] too: dropped, so inference says what they are
        assertEquals(shape("batch", "seq"), shapeOf(imported, "r"));
        assertEquals(shape("batch", "seq"), shapeOf(imported, "m"));
        assertEquals(List.of("batch", "seq"), List.copyOf(imported.symbols().keySet()));
    }

    @Test
    void fixedAndUnnamedDims() {
        ImportedGraph imported = importWith(SplitModels.masked("m", "batch", "batch"),
                Map.of("ids", List.of("4", "?"), "mask", List.of("4", "?")));
        Shape ids = shapeOf(imported, "ids");
        assertEquals(Dim.of(4), ids.dims().get(0));
        String fresh = ((Dim.Symbol) ids.dims().get(1)).name();
        assertTrue(imported.freshSymbols().containsKey(fresh), fresh + " is fresh: " + imported.freshSymbols());
    }

    @Test
    void anInputWithoutADeclaredShapeTakesAnyRank() {
        byte[] bytes = OnnxWriter.graph()
                .input("x", TypeProto.newBuilder().setTensorType(TypeProto.Tensor.newBuilder().setElemType(FLOAT))
                        .build())
                .node("Relu", in("x"), out("y")).outputNoShape("y").bytes(17);
        ImportedGraph imported = importWith(OnnxModel.read("noshape", bytes), Map.of("x", List.of("n", "3", "k")));
        assertEquals(shape("n", 3, "k"), shapeOf(imported, "y"));
    }

    @Test
    void anInputTheModelDoesNotHaveIsRefusedNamingIt() {
        InputDimsException e = assertThrows(InputDimsException.class,
                () -> importWith(SplitModels.masked("m", "batch", "batch"), Map.of("input_ids", List.of("b", "s"))));
        assertOneLine(e.getMessage(), "input dims for 'input_ids': m has no input 'input_ids'; its inputs are ids,"
                + " mask: correct the name");
    }

    @Test
    void aWrongRankIsRefusedNamingTheInputAndItsRank() {
        InputDimsException e = assertThrows(InputDimsException.class,
                () -> importWith(SplitModels.masked("m", "batch", "batch"), Map.of("ids", List.of("b", "s", "h"))));
        assertOneLine(e.getMessage(), "input dims for 'ids' give 3 dims but m declares it with rank 2"
                + " [batch, batch]: give 2 dims, comma-separated");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "", " ", "99999999999999999999", "null"})
    void aBadDimIsRefusedNamingTheInput(String dim) {
        List<String> dims = Arrays.asList("batch", dim.equals("null") ? null : dim);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ImportOptions.defaults().withInputDims(Map.of("ids", dims)));
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().startsWith("input 'ids' "), e.getMessage());
    }

    @Test
    void optionsKeepTheDimsThroughEveryCopy() {
        Map<String, List<String>> dims = Map.of("ids", List.of("batch", "seq"));
        ImportOptions o = ImportOptions.defaults().withInputDims(dims).withFoldConstants(false)
                .withViewPolicy(ImportOptions.ViewPolicy.NONE).withNchwcBlockSize(8);
        assertEquals(dims, o.inputDims());
        assertEquals(Map.of(), ImportOptions.defaults().inputDims());
    }

    private static void assertOneLine(String message, String expected) {
        assertEquals(expected, message);
        assertFalse(message.contains("\n"));
    }
}
