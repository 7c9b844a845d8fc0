// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.onnx.imports.OnnxImporter;
import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.type;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Malformed files give an OnnxFormatException that names the file or element at fault. */
@EngineIndependent
class MalformedInputTest {

    private static byte[] small() {
        return OnnxWriter.graph()
                .input("x", type(FLOAT, 2, 3))
                .node("Relu", in("x"), out("y"))
                .node("Neg", in("y"), out("z"))
                .outputNoShape("z")
                .bytes(13);
    }

    @Test
    void notProtobuf() {
        OnnxFormatException e = assertThrows(OnnxFormatException.class,
                () -> OnnxModel.read("notes.txt", "this is plain text, not a model\n".getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains("notes.txt"), e.getMessage());
    }

    @Test
    void emptyAndMissingFiles(@TempDir Path dir) throws Exception {
        Path empty = Files.write(dir.resolve("empty.onnx"), new byte[0]);
        assertTrue(assertThrows(OnnxFormatException.class, () -> OnnxModel.read(empty)).getMessage().contains("empty"));
        Path missing = dir.resolve("missing.onnx");
        assertTrue(assertThrows(OnnxFormatException.class, () -> OnnxModel.read(missing)).getMessage()
                .contains("does not exist"));
    }

    @Test
    void truncatedFileNamesTheElementItStopsIn() {
        byte[] b = small();
        byte[] cut = Arrays.copyOf(b, b.length / 2);
        OnnxFormatException e = assertThrows(OnnxFormatException.class, () -> OnnxModel.read("cut.onnx", cut));
        assertTrue(e.getMessage().contains("model.graph"), e.getMessage());
    }

    @Test
    void absurdDeclaredLength() {
        // field 7 (graph), wire type 2, declared length 2^31 - 1, then nothing
        byte[] b = {0x3a, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 0x00};
        OnnxFormatException e = assertThrows(OnnxFormatException.class, () -> OnnxModel.read("huge.onnx", b));
        assertTrue(e.getMessage().contains("model.graph declares 2147483647 bytes"), e.getMessage());
    }

    @Test
    void danglingName() {
        OnnxModel m = OnnxWriter.graph()
                .input("x", type(FLOAT, 2))
                .node("Add", in("x", "ghost"), out("y"))
                .outputNoShape("y")
                .model(13);
        OnnxFormatException e = assertThrows(OnnxFormatException.class,
                () -> OnnxImporter.importModel(m, ImportOptions.defaults()));
        assertTrue(e.getMessage().contains("'ghost'") && e.getMessage().contains("y_node"), e.getMessage());
    }

    @Test
    void duplicateProducer() {
        OnnxModel m = OnnxWriter.graph()
                .input("x", type(FLOAT, 2))
                .node("Relu", in("x"), out("y"))
                .node("Neg", in("x"), out("y"))
                .outputNoShape("y")
                .model(13);
        OnnxFormatException e = assertThrows(OnnxFormatException.class,
                () -> OnnxImporter.importModel(m, ImportOptions.defaults()));
        assertTrue(e.getMessage().contains("'y' is produced twice"), e.getMessage());
    }

    @Test
    void cycle() {
        OnnxModel m = OnnxWriter.graph()
                .input("x", type(FLOAT, 2))
                .node("Add", in("x", "b"), out("a"))
                .node("Neg", in("a"), out("b"))
                .outputNoShape("b")
                .model(13);
        OnnxFormatException e = assertThrows(OnnxFormatException.class,
                () -> OnnxImporter.importModel(m, ImportOptions.defaults()));
        assertTrue(e.getMessage().contains("cycle"), e.getMessage());
    }

    @Test
    void negativeInitializerDim() {
        OnnxModel m = OnnxWriter.graph()
                .input("x", type(FLOAT, 2))
                .initializer(OnnxWriter.floats("w", 2).toBuilder().setDims(0, -3).build())
                .node("Add", in("x", "w"), out("y"))
                .outputNoShape("y")
                .model(13);
        OnnxFormatException e = assertThrows(OnnxFormatException.class,
                () -> OnnxImporter.importModel(m, ImportOptions.defaults()));
        assertTrue(e.getMessage().contains("'w'") && e.getMessage().contains("-3"), e.getMessage());
    }
}
