// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The real ONNX models of {@code ../shared/models} (or {@code -Dmemplan.shared.dir}/models): where
 * they are, and what a test does without them. Outside CI a test that needs them skips with a
 * message; in CI ({@link Ci#active()}) it fails, so a CI machine without the models cannot pass.
 */
public final class SharedModels {
    /** all-MiniLM-L6-v2, int8 quantized: three {@code [batch, seq]} inputs. */
    public static final String MINILM = "minilm/all-minilm-l6-v2-q.onnx";
    /** Silero VAD, opset 18, one If with two sub-graphs. */
    public static final String SILERO = "silero/silero_vad_op18_ifless.onnx";
    /** tiny GPT-2 with a KV cache and com.microsoft contrib ops. */
    public static final String GPT2 = "ort-genai/tiny-random-gpt2-fp32_past.onnx";
    /** One If node with two branches (ONNX backend node test). */
    public static final String ONNX_IF = "onnx-node/test_if/model.onnx";

    private static final String CI_HINT = "CI must run the shared-model tests: provide ../shared/models "
            + "(see its README) or point -Dmemplan.shared.dir at the folder holding it";

    private SharedModels() {
    }

    /** {@return the models folder: {@code memplan.shared.dir} (default {@code ../shared}) + {@code /models}} */
    public static Path dir() {
        return Path.of(System.getProperty("memplan.shared.dir", "../shared"), "models");
    }

    /** {@return whether the models folder exists} */
    public static boolean present() {
        return Files.isDirectory(dir());
    }

    /** Skips the test when the models folder is missing, or fails it in CI. */
    public static void requirePresent() {
        Ci.require(present(), "no shared models at " + dir().toAbsolutePath()
                + " (set -Dmemplan.shared.dir to the folder holding models/)", CI_HINT);
    }

    /**
     * The model at {@code relative} (a path inside the models folder); skips the test when the
     * file is missing, or fails it in CI.
     *
     * @param relative e.g. {@link #MINILM}
     * @return the model's path
     */
    public static Path require(String relative) {
        Path p = dir().resolve(relative);
        Ci.require(Files.isRegularFile(p), "no shared model at " + p.toAbsolutePath()
                + " (set -Dmemplan.shared.dir to the folder holding models/)", CI_HINT);
        return p;
    }

    /**
     * The models as test parameters: when the folder is absent, one placeholder, so a
     * parameterized test runs once and skips (or fails in CI) through {@link #requirePresent()}
     * instead of failing for want of arguments.
     *
     * @return {@link #all()}, or one placeholder when the folder is absent
     */
    public static List<String> forParameters() {
        return present() ? all() : List.of("(no shared models)");
    }

    /**
     * @param relative a path inside the models folder
     * @return that path under {@link #dir()}, whether or not the file exists
     */
    public static Path path(String relative) {
        return dir().resolve(relative);
    }

    /** {@return every .onnx file, as a path relative to the models folder, sorted; empty when absent} */
    public static List<String> all() {
        if (!present()) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(dir())) {
            return s.filter(p -> p.toString().endsWith(".onnx")).map(p -> dir().relativize(p).toString())
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
