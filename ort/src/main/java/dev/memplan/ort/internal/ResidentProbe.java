// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.MemplanException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Measures, in a child JVM ({@link ResidentProbeMain}), the resident bytes a server process adds
 * for one model run by ONNX Runtime with memplan's counting allocator: what {@code memplan size}
 * cannot derive. Only sizing pays for it; {@code OrtModel.compile} never starts this child.
 */
public final class ResidentProbe {
    /** The child's heap: fixed and touched at start, so that its growth is never resident growth. */
    static final List<String> HEAP = List.of("-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch");

    /**
     * The child's resident bytes at each step (docs/design.md, section 13b).
     *
     * @param jvm             the JVM alone, heap pre-touched
     * @param memplan         after memplan compiled and planned the model
     * @param runtime         after ORT's environment and memplan's allocator library
     * @param session         after the session was created
     * @param warmup          after a warm-up run with every symbol at 1
     * @param longest         the peak of the longest request's run
     * @param allocatorGrowth the most the counting allocator held from the system during the
     *                       longest run, over what it held before it (blocks, headers, page
     *                       tails, blocks kept for reuse)
     * @param freshThread     the peak of the same run again on a fresh thread
     */
    public record Figures(long jvm, long memplan, long runtime, long session, long warmup, long longest,
                          long allocatorGrowth, long freshThread) {
    }

    private ResidentProbe() {
    }

    /**
     * Runs the probe.
     *
     * @param model     the model's file
     * @param level     ORT Java's {@code OptLevel} name
     * @param intraOp   intra-op threads of the session
     * @param keepBytes the bytes the counting allocator may keep for reuse (one request's lease)
     * @param longest   the longest request's bindings
     * @return the figures
     * @throws MemplanException naming the cause when ORT cannot run the model, or the child fails
     * @throws OrtUnavailable   when ORT Java cannot start in the child
     */
    public static Figures measure(Path model, String level, int intraOp, long keepBytes, Map<String, Long> longest) {
        Path folder = OrtTempFiles.newFolder("size-");
        try {
            Path figures = folder.resolve("figures.txt");
            List<String> args = new ArrayList<>(List.of(model.toAbsolutePath().toString(),
                    figures.toAbsolutePath().toString(), level, Integer.toString(intraOp), Long.toString(keepBytes)));
            longest.forEach((symbol, value) -> args.add(symbol + "=" + value));
            OrtLoadSettings load = OrtLoadSettings.fromSystemProperties(Files.size(model));
            OrtLoadSettings limits = new OrtLoadSettings(false, Math.addExact(load.memoryBytes(),
                    Math.multiplyExact(3, keepBytes)), load.timeoutSeconds());
            child().run(args, limits, "running the model");
            return parse(Files.readString(figures, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new MemplanException("cannot measure " + model.getFileName() + " in ONNX Runtime: " + e.getMessage(), e);
        } finally {
            OrtTempFiles.deleteTree(folder);
        }
    }

    private static IsolatedOrtLoad child() {
        return IsolatedOrtLoad.withOrtCApi(ResidentProbeMain.class.getName(), HEAP);
    }

    static Figures parse(String text) {
        Map<String, Long> f = new HashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                f.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1).strip()));
            }
        }
        return new Figures(f.get("jvm"), f.get("memplan"), f.get("runtime"), f.get("session"), f.get("warmup"),
                f.get("longest"), f.get("allocatorGrowth"), f.get("freshThread"));
    }
}
