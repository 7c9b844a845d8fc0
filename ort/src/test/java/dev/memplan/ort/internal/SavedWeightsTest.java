// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.MemplanException;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.StringStringEntryProto;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import dev.memplan.shaded.protobuf.ByteString;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@EngineIndependent
class SavedWeightsTest {
    @TempDir
    Path dir;

    @Test
    void aWeightOrtMovedBesideItsGraphIsReadBackInline() throws IOException {
        Path saved = dir.resolve("saved.onnx");
        Files.write(SavedWeights.of(saved), new byte[] {0, 0, 1, 2, 3, 4, 9});
        ModelProto probe = model(external("w", SavedWeights.fileName(saved), 2, 4),
                TensorProto.newBuilder().setName("small").setDataType(7).addDims(1).setRawData(ByteString.copyFrom(new byte[] {5, 0, 0, 0, 0, 0, 0, 0})).build());
        ModelProto inlined = SavedWeights.inline(List.of(probe), saved).get(0);
        TensorProto w = inlined.getGraph().getInitializer(0);
        assertArrayEquals(new byte[] {1, 2, 3, 4}, w.getRawData().toByteArray());
        assertEquals(0, w.getDataLocation());
        assertEquals(0, w.getExternalDataCount());
        assertEquals(probe.getGraph().getInitializer(1), inlined.getGraph().getInitializer(1), "inline ones stay");
    }

    @Test
    void modelsWithoutExternalWeightsPassAsTheyAreWithoutAWeightFile() {
        ModelProto probe = model(TensorProto.newBuilder().setName("small").setDataType(7).addDims(1).setRawData(ByteString.copyFrom(new byte[] {5, 0, 0, 0, 0, 0, 0, 0})).build());
        assertSame(probe, SavedWeights.inline(List.of(probe), dir.resolve("saved.onnx")).get(0));
    }

    @Test
    void aWeightOutsideTheFileOrInAnotherFileIsRefusedNamingIt() throws IOException {
        Path saved = dir.resolve("saved.onnx");
        Files.write(SavedWeights.of(saved), new byte[8]);
        for (TensorProto bad : List.of(external("past the end", SavedWeights.fileName(saved), 6, 4),
                external("elsewhere", "../other.data", 0, 4))) {
            MemplanException e = assertThrows(MemplanException.class,
                    () -> SavedWeights.inline(List.of(model(bad)), saved));
            assertTrue(e.getMessage().contains("tensor '" + bad.getName() + "' outside its weight file"), e.getMessage());
        }
    }

    private static TensorProto external(String name, String location, long offset, long length) {
        return TensorProto.newBuilder().setName(name).setDataType(2).addDims(length).setDataLocation(1) // EXTERNAL
                .addExternalData(StringStringEntryProto.newBuilder().setKey("location").setValue(location))
                .addExternalData(StringStringEntryProto.newBuilder().setKey("offset").setValue(Long.toString(offset)))
                .addExternalData(StringStringEntryProto.newBuilder().setKey("length").setValue(Long.toString(length)))
                .build();
    }

    private static ModelProto model(TensorProto... initializers) {
        return ModelProto.newBuilder().setGraph(GraphProto.newBuilder().setName("probe")
                .addAllInitializer(List.of(initializers))).build();
    }
}
