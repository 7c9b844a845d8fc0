// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtLoggingLevel;
import ai.onnxruntime.OrtSession;
import dev.memplan.MemplanException;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The graph ONNX Runtime runs: ORT rewrites a model when a session loads it (fusions, and on x86 at
 * level all the NCHWc layout), and saves the result when asked. The only class of memplan that
 * touches {@code ai.onnxruntime} types, so it is loaded only when the ort runtime is asked for;
 * {@link OrtRuntimeProfile} checks that ONNX Runtime Java is present before calling it.
 */
final class OrtOptimizedGraph {
    /** ORT Java's messages start with its status code: {@code Error code - ORT_FAIL - message: ...}. */
    private static final Pattern STATUS = Pattern.compile("(?s)Error code - (\\w+) - message: (.*)");

    private OrtOptimizedGraph() {
    }

    /**
     * Loads {@code model} into an ONNX Runtime CPU session at {@code level}, one intra-op thread,
     * and saves the graph the session runs to {@code saved}.
     *
     * @throws MemplanException naming the model and ORT's reason when ORT cannot load it
     */
    static void save(Path model, String level, Path saved) {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.valueOf(level));
            options.setIntraOpNumThreads(1);
            // ORT warns on stderr that a level-all graph is machine-specific: it is, and is used only here
            options.setSessionLogLevel(OrtLoggingLevel.ORT_LOGGING_LEVEL_ERROR);
            options.setOptimizedModelFilePath(saved.toString());
            try (OrtSession session = env.createSession(model.toString(), options)) {
                // saved while the session loads; nothing runs
            }
        } catch (OrtException e) {
            throw new MemplanException("ONNX Runtime cannot load the model: " + reason(e.getMessage())
                    + "; check that ONNX Runtime runs this model, or use the memplan runtime", e);
        }
    }

    /** ORT's message on one line, its status code after it rather than before. */
    static String reason(String message) {
        if (message == null || message.isBlank()) {
            return "no reason given";
        }
        Matcher m = STATUS.matcher(message.strip());
        String text = m.matches() ? m.group(2).strip() + " (" + m.group(1) + ")" : message.strip();
        return text.replaceAll("\\s*\\R\\s*", " ");
    }
}
