// SPDX-License-Identifier: Apache-2.0
package dev.memplan.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.ImportOptions.ViewPolicy;
import dev.memplan.ort.OrtModel;
import dev.memplan.ort.OrtUnavailableException;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.validate.PlanValidator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Coverage-guided fuzzing of the ort runtime: any bytes are written as a model file, compiled for
 * ONNX Runtime (which loads and optimizes it in a child JVM), every symbol bound, planned and
 * predicted. The promises: a refusal is memplan's own exception with one clean line, never ORT's,
 * and a crash of ORT or a load past its memory limit is such a refusal, not this JVM's end (an
 * {@link OrtUnavailableException} fails the target: ORT is on the test class path), a plan
 * passes the validator with a prediction of at least zero bytes, and no file is left in this
 * process's ort folder of the temporary directory. That ORT itself prints nothing is checked by
 * {@code OrtUntrustedModelTest} in a child JVM: its logger writes to file descriptor 2, which no
 * Java stream of this process can hold apart. Regression inputs are in
 * {@code src/test/resources/dev/memplan/fuzz/OrtModelFuzzTestInputs/}.
 */
@EngineIndependent
class OrtModelFuzzTest {
    private static final Path DIR = folder();

    private static Path folder() {
        try {
            return Files.createTempDirectory("memplan-fuzz-ort-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest(maxDuration = "20s")
    void ortModel(byte[] bytes) throws IOException {
        // The last byte picks the level, folding and the bound value, so mutations reach them too.
        int knob = bytes.length == 0 ? 0 : bytes[bytes.length - 1] & 0xff;
        OrtModel.Level level = OrtModel.Level.values()[knob % OrtModel.Level.values().length];
        ImportOptions options = new ImportOptions((knob & 0x04) == 0, ViewPolicy.values()[0]);
        Path model = DIR.resolve("fuzzed.onnx");
        Files.write(model, bytes);
        try {
            Promises.Outcome<OrtModel> compiled = Promises.attempt(
                    () -> OrtModel.compile(model, options, PlanOptions.defaults(), level));
            if (compiled.refused()) {
                assertTrue(!(compiled.refusal() instanceof OrtUnavailableException),
                        () -> "ONNX Runtime did not start: " + compiled.refusal().getMessage());
                return;
            }
            Map<String, Long> bindings = new TreeMap<>();
            long value = 1 + (knob >> 4);
            for (String symbol : compiled.value().symbolNames()) {
                bindings.put(symbol, value);
            }
            Promises.Outcome<OrtModel.Plan> planned = Promises.attempt(() -> compiled.value().plan(bindings));
            if (!planned.refused()) {
                OrtModel.Plan plan = planned.value();
                if (plan.plan().isComplete()) {
                    PlanValidator.validate(plan.plan().plan());
                }
                plan.predictedBytes().ifPresent(bytesPredicted -> assertTrue(bytesPredicted >= 0,
                        () -> "a negative prediction " + bytesPredicted + " at " + bindings));
            }
        } finally {
            assertEquals(List.of(), leftInOrtFolders(), "files left in the ort runtime's temporary folders");
        }
    }

    /** The files in this process's {@code memplan-ort-<pid>-*} folders: each is deleted once read. */
    private static List<Path> leftInOrtFolders() throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        String mine = "memplan-ort-" + ProcessHandle.current().pid() + "-";
        try (Stream<Path> folders = Files.list(tmp)) {
            return folders.filter(p -> p.getFileName().toString().startsWith(mine)).flatMap(p -> {
                try (Stream<Path> files = Files.list(p)) {
                    return files.toList().stream();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).toList();
        }
    }
}
