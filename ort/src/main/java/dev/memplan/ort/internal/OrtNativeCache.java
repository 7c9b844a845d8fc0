// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import ai.onnxruntime.OrtEnvironment;
import java.io.File;
import java.io.IOException;
import java.util.Locale;
import org.bytedeco.javacpp.Loader;

/**
 * Where memplan's child JVMs load ONNX Runtime's native libraries from. ORT Java copies them out of
 * its jar into a new temporary folder in every process that loads it: 22 MB, about 0.13 s of each
 * child's start, on the path of every {@code plan --runtime ort} and {@code OrtModel.compile}. The
 * children load them from JavaCPP's cache instead, which memplan's own native library uses already:
 * extracted once per jar, and again when the jar's entry differs in size or time.
 *
 * <p>Only in memplan's own children: a server's process loads ORT as the server configured it.
 */
final class OrtNativeCache {
    /** ORT Java's system property naming a folder that holds its native libraries. */
    static final String NATIVE_PATH = "onnxruntime.native.path";

    private OrtNativeCache() {
    }

    /**
     * Points ORT Java at JavaCPP's cached copy of its libraries, extracting them there first when
     * needed; call before ORT loads. Leaves ORT Java to copy them itself when a folder is configured
     * already, the platform is not one memplan knows ORT's folder for, or the cache cannot be written.
     */
    static void useForOrtJava() {
        String platform = platform();
        if (System.getProperty(NATIVE_PATH) != null || platform == null) {
            return;
        }
        String folder = "/ai/onnxruntime/native/" + platform + "/";
        try {
            File runtime = Loader.cacheResource(OrtEnvironment.class, folder + System.mapLibraryName("onnxruntime"));
            File jni = Loader.cacheResource(OrtEnvironment.class, folder + System.mapLibraryName("onnxruntime4j_jni"));
            if (runtime != null && jni != null && runtime.getParentFile().equals(jni.getParentFile())) {
                System.setProperty(NATIVE_PATH, runtime.getParent());
            }
        } catch (IOException | RuntimeException e) {
            // ORT Java copies them to a temporary folder, as without this cache
        }
    }

    /** {@return ORT Java's folder name for this platform, or null where memplan does not know it} */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux")) {
            return null;
        }
        return switch (arch) {
            case "amd64", "x86_64" -> "linux-x64";
            case "aarch64" -> "linux-aarch64";
            default -> null;
        };
    }
}
