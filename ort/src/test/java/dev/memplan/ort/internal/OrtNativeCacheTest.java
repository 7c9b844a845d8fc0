// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.onnxruntime.OrtEnvironment;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** memplan's children load ONNX Runtime from JavaCPP's cache, not from a fresh copy out of ORT Java's jar. */
@EngineIndependent
class OrtNativeCacheTest {
    @TempDir
    Path dir;

    @Test
    void aChildLoadsOrtFromJavaCppsCacheAndCopiesNothingToItsTemporaryFolder() throws IOException {
        assumeTrue(OrtNativeCache.platform() != null, "a platform whose ORT folder memplan knows");
        Path report = dir.resolve("report.txt");
        List<Path> classPath = new ArrayList<>(IsolatedOrtLoad.withOrtCApi(LoadingChild.class.getName(), List.of())
                .classPath());
        classPath.add(0, IsolatedOrtLoad.location(OrtNativeCacheTest.class));
        new IsolatedOrtLoad(LoadingChild.class.getName(), classPath).run(List.of(report.toString()),
                new OrtLoadSettings(false, 1L << 30, 120), "loading ONNX Runtime");
        List<String> lines = Files.readAllLines(report, StandardCharsets.UTF_8);
        Path folder = Path.of(lines.get(0));
        assertTrue(folder.startsWith(org.bytedeco.javacpp.Loader.getCacheDir().toPath()),
                "ORT's folder " + folder + " is in JavaCPP's cache");
        assertTrue(lines.contains("mapped " + folder.resolve(System.mapLibraryName("onnxruntime"))),
                "ORT's library was loaded from there: " + lines);
        assertEquals(List.of(), lines.stream().filter(l -> l.startsWith("copied ")).toList(),
                "nothing copied out of ORT Java's jar into the child's temporary folder");
    }

    /** Loads ORT as memplan's children do and writes where from: its folder, mapped libraries, ORT Java's copies. */
    static final class LoadingChild {
        public static void main(String[] args) throws IOException {
            OrtNativeCache.useForOrtJava();
            OrtEnvironment.getEnvironment();
            List<String> lines = new ArrayList<>();
            lines.add(System.getProperty(OrtNativeCache.NATIVE_PATH));
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
                int slash = line.indexOf('/');
                if (slash >= 0 && line.contains("onnxruntime") && !lines.contains("mapped " + line.substring(slash))) {
                    lines.add("mapped " + line.substring(slash));
                }
            }
            try (var entries = Files.walk(Path.of(System.getProperty("java.io.tmpdir")))) {
                entries.filter(p -> p.getFileName().toString().contains("onnxruntime") && Files.isRegularFile(p))
                        .forEach(p -> lines.add("copied " + p));
            }
            Files.write(Path.of(args[1]), lines, StandardCharsets.UTF_8);
        }
    }
}
