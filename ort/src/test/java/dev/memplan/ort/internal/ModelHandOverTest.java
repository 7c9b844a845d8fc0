// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

@EngineIndependent
class ModelHandOverTest {
    @Test
    void bytesSentAreTheBytesReceivedInADirectBuffer() throws IOException {
        byte[] model = {8, 7, 0, '\n', 10, 5};
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        ModelHandOver.sendBytes(sent, new ModelHandOver.ModelBytes(model.length, out -> out.write(model)));
        ModelHandOver.Model received = receive(sent.toByteArray());
        assertTrue(received.bytes().isDirect(), "ORT reads a direct buffer without a copy");
        byte[] got = new byte[received.bytes().remaining()];
        received.bytes().get(got);
        assertArrayEquals(model, got);
        assertNull(received.file());
    }

    @Test
    void aFileSentIsAnAbsolutePathReceived() throws IOException {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        ModelHandOver.sendFile(sent, Path.of("models", "with data.onnx"));
        ModelHandOver.Model received = receive(sent.toByteArray());
        assertEquals(Path.of("models", "with data.onnx").toAbsolutePath(), received.file());
        assertNull(received.bytes());
    }

    @Test
    void nothingSentIsNoModel() throws IOException {
        assertNull(receive(new byte[0]));
        assertNull(receive("\n".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aModelEndingEarlyOrALineOfAnotherKindIsRefusedSayingWhat() {
        IOException early = assertThrows(IOException.class, () -> receive("bytes 10\nabc".getBytes(StandardCharsets.UTF_8)));
        assertEquals("the parent's model ended after 3 of 10 bytes", early.getMessage());
        IOException other = assertThrows(IOException.class, () -> receive("model.onnx\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals("the parent sent no model, but: model.onnx", other.getMessage());
        IOException size = assertThrows(IOException.class, () -> receive("bytes -1\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals("the parent sent a size that is no count of bytes: bytes -1", size.getMessage());
    }

    @Test
    void whatIsAppendedFollowsThePreReadFileIfItsChecksumIsTheCheckedOnes(@org.junit.jupiter.api.io.TempDir Path dir)
            throws IOException {
        Path file = java.nio.file.Files.writeString(dir.resolve("model.onnx"), "checked");
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        ModelHandOver.sendAppended(sent, ModelHandOver.crc(java.nio.ByteBuffer.wrap("checked".getBytes(StandardCharsets.UTF_8))),
                new ModelHandOver.ModelBytes(3, out -> out.write(new byte[] {'+', '1', '2'})));
        InputStream in = new ByteArrayInputStream(sent.toByteArray());
        ModelHandOver.Model received = ModelHandOver.receive(in, Channels.newChannel(in), ModelHandOver.preRead(file));
        byte[] got = new byte[received.bytes().remaining()];
        received.bytes().get(got);
        assertEquals("checked+12", new String(got, StandardCharsets.UTF_8));
    }

    @Test
    void roomForWhatIsAppendedGrowsWithTheFile() {
        assertTrue(ModelHandOver.fitsAfterPreRead(0, 1 << 20));
        assertTrue(!ModelHandOver.fitsAfterPreRead(0, (1 << 20) + 1));
        assertTrue(ModelHandOver.fitsAfterPreRead(160 << 20, 11 << 20));
        assertTrue(!ModelHandOver.fitsAfterPreRead(2_100_000_000L, 1), "a file near 2 GiB leaves no room a buffer holds");
    }

    private static ModelHandOver.Model receive(byte[] sent) throws IOException {
        InputStream in = new ByteArrayInputStream(sent);
        return ModelHandOver.receive(in, Channels.newChannel(in), ModelHandOver.PreRead.NONE);
    }
}
