// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.MemplanException;
import dev.memplan.testing.EngineIndependent;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The ort runtime reads the graph ONNX Runtime saved only when this JVM can hold it. The ort fuzz
 * target found a 79 KB model that ORT's constant folding at level basic saved as 921 MB (36 s and
 * 3.4 GB of ORT's own memory), which then filled a 2 GB heap: an OutOfMemoryError instead of a
 * refusal. That input is too heavy to replay in every build; this checks the rule at its edges.
 */
@EngineIndependent
class SavedGraphSizeTest {
    private static final Path MODEL = Path.of("models", "folded.onnx");

    @Test
    void aGraphOfAQuarterOfTheHeapIsRead() {
        assertDoesNotThrow(() -> OrtRuntimeProfile.checkSavedSize(MODEL, "BASIC_OPT", 1L << 30, 4L << 30));
    }

    @Test
    void aLargerGraphIsRefusedNamingTheModelTheSizeAndWhatToDo() {
        MemplanException e = assertThrows(MemplanException.class,
                () -> OrtRuntimeProfile.checkSavedSize(MODEL, "BASIC_OPT", 921_035_591, 2L << 30));
        assertTrue(e.getMessage().contains("folded.onnx at level BASIC_OPT is 921035591 bytes")
                && e.getMessage().contains("-Xmx") && !e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void aGraphPastProtobufsLimitIsRefusedWhateverTheHeap() {
        MemplanException e = assertThrows(MemplanException.class,
                () -> OrtRuntimeProfile.checkSavedSize(MODEL, "ALL_OPT", 3L << 30, 64L << 30));
        assertTrue(e.getMessage().contains("protobuf reads (2 GiB)"), e.getMessage());
    }
}
