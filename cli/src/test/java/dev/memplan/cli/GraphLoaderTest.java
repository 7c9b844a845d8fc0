// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memplan.MemplanException;
import dev.memplan.json.Examples;
import dev.memplan.json.GraphJson;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@EngineIndependent
class GraphLoaderTest {

    @Test
    void jsonInAnyCaseIsAGraphFile(@TempDir Path dir) throws IOException {
        Path upper = Files.copy(Examples.get("views.json"), dir.resolve("VIEWS.Json"));
        assertEquals(GraphJson.read(Examples.get("views.json")).graph().nodeCount(),
                GraphLoader.load(upper).graph().nodeCount());
    }

    @Test
    void otherTypesAreRejectedByName(@TempDir Path dir) throws IOException {
        Path text = Files.writeString(dir.resolve("model.txt"), "");
        MemplanException e = assertThrows(MemplanException.class, () -> GraphLoader.load(text));
        assertEquals("unsupported file type: memplan cannot read '.txt' files; give it a .json graph file or an"
                + " .onnx model", e.getMessage());
        Path bare = Files.writeString(dir.resolve("graph"), "{}");
        e = assertThrows(MemplanException.class, () -> GraphLoader.load(bare));
        assertEquals("unsupported file type: memplan cannot read a file without an extension; give it a .json"
                + " graph file or an .onnx model", e.getMessage());
    }
}
