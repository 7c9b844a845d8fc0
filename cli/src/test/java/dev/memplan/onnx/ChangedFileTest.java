// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions;
import dev.memplan.cli.OnnxPlanJson;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.server.OnnxPlan;
import dev.memplan.validate.PlanValidator;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model file truncated or rewritten after {@link OnnxModel#read} (what
 * {@code cp new.onnx model.onnx} does to a server reloading it) fails the import with an
 * {@link OnnxFormatException}, never an {@code InternalError}; what an import returned keeps no
 * window on the mapping, so truncating the file later harms nothing.
 */
class ChangedFileTest {
    /** A weight of 64 x 16384 floats (4 MiB) first, the int64 shape constant last. */
    private static Path model(Path dir) throws IOException {
        return Files.write(dir.resolve("m.onnx"), TestOnnxModels.mlp("batch", 16384, "mm"));
    }

    @Test
    void truncatedBetweenReadAndImport(@TempDir Path dir) throws IOException {
        Path file = model(dir);
        OnnxModel model = OnnxModel.read(file);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(4096); // the pages holding the shape constant are gone
        }
        assertImportSaysTheFileChanged(model);
    }

    @Test
    void rewrittenInPlaceBetweenReadAndImport(@TempDir Path dir) throws IOException {
        Path file = model(dir);
        OnnxModel model = OnnxModel.read(file);
        byte[] other = TestOnnxModels.mlp("other", 16384, "zz"); // same length, other content
        assertEquals(Files.size(file), other.length);
        Files.write(file, other);
        Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 2000));
        assertImportSaysTheFileChanged(model);
    }

    private static void assertImportSaysTheFileChanged(OnnxModel model) {
        OnnxFormatException e = assertThrows(OnnxFormatException.class,
                () -> OnnxImporter.importModel(model, ImportOptions.defaults()));
        assertTrue(e.getMessage().contains("changed while it was being read"), e::getMessage);
    }

    @Test
    void anImportedGraphOutlivesItsFile(@TempDir Path dir) throws IOException {
        Path file = model(dir);
        ImportedGraph imported = OnnxImporter.importModel(OnnxModel.read(file), ImportOptions.defaults());
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(0);
        }
        OnnxPlan plan = OnnxPlanner.plan(imported, Map.of("batch", 2L), PlanOptions.defaults().withInPlace(false));
        PlanValidator.validate(plan.plan());
        assertEquals(2 * (2L * 16384 * 4), plan.plan().peakBytes()); // mm and r, both [2, 16384] floats, none in place
        assertTrue(OnnxPlanJson.toJson(plan).toString().contains("\"mm\""));
    }

    @Test
    void specialFilesAreRefused(@TempDir Path dir) throws IOException {
        OnnxFormatException e = assertThrows(OnnxFormatException.class, () -> OnnxModel.read(dir));
        assertTrue(e.getMessage().contains("is a directory"), e::getMessage);
    }
}
