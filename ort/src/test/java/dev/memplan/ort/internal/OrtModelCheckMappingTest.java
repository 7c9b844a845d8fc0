// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.MemplanException;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import dev.memplan.shaded.protobuf.ByteString;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The check reads the model through a mapping of the file: what it checked is what the child is
 * told to load, and a file rewritten or cut short meanwhile is refused in one line, never a crash.
 */
@EngineIndependent
class OrtModelCheckMappingTest {
    private static final String CHANGED = " changed while memplan read it; compile the model again once it is completely written";

    @TempDir
    Path dir;

    @Test
    void anUnchangedFileHasTheChecksumOfItsBytes() throws IOException {
        Path model = modelWithWeights(dir, 1 << 20);
        try (OrtModelCheck.Checked checked = OrtModelCheck.beforeOrtReads(model)) {
            long fileCrc = ModelHandOver.crc(ByteBuffer.wrap(Files.readAllBytes(model)));
            assertEquals(fileCrc, checked.crc());
            assertEquals(fileCrc, checked.unchangedCrc(model));
            assertEquals(1 << 20, checked.model().getGraph().getInitializer(0).getRawData().size());
        }
    }

    @Test
    void aFileRewrittenAfterTheCheckIsRefused() throws IOException {
        Path model = modelWithWeights(dir, 1 << 20);
        try (OrtModelCheck.Checked checked = OrtModelCheck.beforeOrtReads(model);
             FileChannel ch = FileChannel.open(model, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), Files.size(model) - 100); // inside the weights
            MemplanException e = assertThrows(MemplanException.class, () -> checked.unchangedCrc(model));
            assertEquals(model + CHANGED, e.getMessage());
        }
    }

    @Test
    void aFileCutShortAfterTheCheckIsRefusedWithoutACrash() throws IOException {
        Path model = modelWithWeights(dir, 4 << 20);
        try (OrtModelCheck.Checked checked = OrtModelCheck.beforeOrtReads(model);
             FileChannel ch = FileChannel.open(model, StandardOpenOption.WRITE)) {
            ch.truncate(4096);
            MemplanException e = assertThrows(MemplanException.class, () -> checked.unchangedCrc(model));
            assertEquals(model + CHANGED, e.getMessage());
        }
    }

    /** {@code y = x + w}, {@code w} an initializer of {@code weightBytes} seeded random bytes. */
    private static Path modelWithWeights(Path dir, int weightBytes) throws IOException {
        byte[] weights = new byte[weightBytes];
        new Random(7).nextBytes(weights);
        GraphProto graph = GraphProto.newBuilder().setName("add")
                .addInput(ValueInfoProto.newBuilder().setName("x"))
                .addInitializer(TensorProto.newBuilder().setName("w").setDataType(2).addDims(weightBytes)
                        .setRawData(ByteString.copyFrom(weights)))
                .addNode(NodeProto.newBuilder().setOpType("Add").addInput("x").addInput("w").addOutput("y"))
                .addOutput(ValueInfoProto.newBuilder().setName("y")).build();
        Path model = dir.resolve("model.onnx");
        Files.write(model, ModelProto.newBuilder().setIrVersion(8).setGraph(graph).build().toByteArray());
        return model;
    }
}
