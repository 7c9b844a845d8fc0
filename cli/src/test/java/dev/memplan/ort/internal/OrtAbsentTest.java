// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ONNX Runtime Java is an optional dependency. In a class loader built from the test class
 * path without its jar, the library and the command line must still plan with the memplan runtime,
 * and asking for the ort runtime must fail with the documented message (exit 1 on the command line),
 * nothing guessed. Runs the Java engine there (the native library belongs to the test's own loader),
 * so it is engine-independent.
 */
@EngineIndependent
class OrtAbsentTest {

    /** The test class path (surefire's, else the JVM's) without ONNX Runtime Java. */
    private static URL[] classPathWithoutOrt() throws Exception {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        int dropped = 0;
        for (String entry : cp.split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            if (Path.of(entry).getFileName().toString().startsWith("onnxruntime-")) {
                dropped++;
                continue;
            }
            urls.add(Path.of(entry).toUri().toURL());
        }
        assertEquals(1, dropped, "the test class path should hold ONNX Runtime Java once: " + cp);
        return urls.toArray(URL[]::new);
    }

    @Test
    @SuppressWarnings("unchecked")
    void withoutOrtJavaTheOrtRuntimeIsUnavailableAndEverythingElseWorks() throws Exception {
        Path model = SharedModels.require("ort-ext/pytorch_super_resolution.onnx");
        try (URLClassLoader loader = new URLClassLoader(classPathWithoutOrt(), ClassLoader.getPlatformClassLoader())) {
            Class<?> probe = loader.loadClass(OrtAbsentProbe.class.getName());
            List<String> out = (List<String>) probe.getMethod("run", Path.class).invoke(null, model);
            String all = String.join("\n", out);
            assertTrue(out.contains("ortVisible=false"), all);
            assertTrue(out.contains("present=false"), all);
            assertTrue(out.stream().anyMatch(l -> l.matches("memplanAdmission=(\\d+) peak=\\1")), all);
            assertTrue(out.contains("ort=" + OrtRuntimeProfile.ORT_MISSING), all);
            assertTrue(out.contains("cliExit=1"), all);
            assertTrue(out.contains("cliErr=memplan: " + OrtRuntimeProfile.ORT_MISSING
                    + " (the command line reads it from lib/ beside its jar: mvn package puts it there)"), all);
        }
        assertTrue(OrtRuntimeProfile.ortJavaPresent(), "the test's own loader sees ONNX Runtime Java");
    }
}
