// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import org.junit.jupiter.api.Test;

/** Weight payloads stay windows on the off-heap copy of the file: never copied into the heap. */
@EngineIndependent
class ReaderMemoryTest {

    @Test
    void rawDataAliasesTheOffHeapCopy() {
        SharedModels.requirePresent();
        OnnxModel model = OnnxModel.read(SharedModels.path("minilm/all-minilm-l6-v2-q.onnx"));
        long payload = 0;
        int checked = 0;
        for (TensorProto t : model.proto().getGraph().getInitializerList()) {
            ByteString raw = t.getRawData();
            if (raw.size() < 1024) {
                continue;
            }
            // a NioByteString wraps the off-heap buffer; a heap copy would be a LiteralByteString over a byte[]
            assertTrue(raw.getClass().getSimpleName().contains("Nio"), t.getName() + " was copied: " + raw.getClass());
            assertFalse(raw.asReadOnlyByteBuffer().hasArray(), t.getName() + " is backed by a heap array");
            payload += raw.size();
            checked++;
        }
        assertTrue(checked > 10 && payload > 10_000_000L, "minilm's weights were checked: " + checked + ", " + payload);
    }
}
