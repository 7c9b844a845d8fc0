// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import dev.memplan.onnx.imports.OnnxModelAccess;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import dev.memplan.testing.DirectMemory;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.ActivationPlan;
import dev.memplan.server.CompiledModel;
import dev.memplan.validate.PlanValidator;
import dev.memplan.testing.SharedModels;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Weight payloads stay windows on the off-heap copy of the file: never copied into the heap. The
 * copy goes back to the system when a compile is done with it, not at a later collection.
 */
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
        OnnxModelAccess.release(model); // no copy left for a collection to free under the next test
    }

    @Test
    void aReleasedModelGaveItsCopyBackAndRefusesReads() {
        SharedModels.requirePresent();
        Path file = SharedModels.path("minilm/all-minilm-l6-v2-q.onnx");
        OnnxModel model = OnnxModel.read(file);
        long held = DirectMemory.bytes();
        assertTrue(held >= fileSize(file), "the model's copy is off the heap");
        OnnxModelAccess.release(model); // the model stays reachable below: no collection could free its copy
        long after = DirectMemory.bytes();
        assertTrue(after <= held - fileSize(file), "released at once, not at a collection: " + held + " B held, "
                + after + " B after");
        IllegalStateException e = assertThrows(IllegalStateException.class, model::irVersion);
        assertTrue(e.getMessage().contains("read the file again"), e.getMessage());
    }

    @Test
    void aCompileFromAFileKeepsNoCopyOfIt() {
        SharedModels.requirePresent();
        long before = DirectMemory.bytes();
        CompiledModel compiled = CompiledModel.compile(SharedModels.path("minilm/all-minilm-l6-v2-q.onnx"));
        long after = DirectMemory.bytes(); // a collection meanwhile may free others' buffers: at most before
        assertTrue(after <= before, "the compile gave the file's copy back when it returned: " + before
                + " B before, " + after + " B after");
        ActivationPlan plan = compiled.plan(Map.of("batch_size", 2L, "sequence_length", 16L)).plan();
        PlanValidator.validate(plan); // the compile still plans, from what it kept
        assertTrue(plan.peakBytes() > 0);
    }


    private static long fileSize(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
