// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.ort.internal.OrtArenaPrediction;
import dev.memplan.ort.internal.OrtRuntimeProfile;
import dev.memplan.ort.internal.OrtTestModels;
import dev.memplan.ort.OrtModel;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.nio.file.Files;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code memplan plan --runtime ort}: the predicted figure beside memplan's own in the text, an
 * {@code "ort"} object in the JSON (absent for the default runtime), and one clear line with exit 1
 * where the ort runtime cannot answer.
 */
class RuntimeOptionTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String SUPER_RESOLUTION = "ort-ext/pytorch_super_resolution.onnx";

    @TempDir
    Path dir;

    /** The library's plan with the ort runtime at level none, batch 2: what the command line must print. */
    private static OrtModel.Plan libraryPlan() {
        OrtModel model = OrtModel.compile(SharedModels.require(SUPER_RESOLUTION), ImportOptions.defaults(),
                PlanOptions.defaults(), OrtModel.Level.NONE);
        OrtModel.Plan plan = model.plan(Map.of("batch_size", 2L));
        PlanValidator.validate(plan.plan().plan());
        return plan;
    }

    @Test
    void textPrintsThePredictionBesideThePeak() {
        SharedModels.requirePresent();
        OrtModel.Plan expected = libraryPlan();
        CliRun run = CliRun.of("plan", "--runtime", "ort", "--ort-level", "none", "--bind", "batch_size=2",
                SharedModels.require(SUPER_RESOLUTION).toString());
        assertEquals(0, run.exit(), run.toString());
        String peak = String.format(Locale.ROOT, "%,d B", expected.plan().plan().peakBytes());
        String ort = String.format(Locale.ROOT, "%,d B", expected.predictedBytes().orElseThrow());
        assertTrue(run.out().lines().anyMatch(l -> l.startsWith("peak ") && l.contains(peak)), run.toString());
        assertTrue(run.out().lines().anyMatch(l -> l.startsWith("ort ") && l.contains(ort)
                && l.contains("level none")), run.toString());
        // the default runtime prints no ort line
        CliRun plain = CliRun.of("plan", "--bind", "batch_size=2", SharedModels.require(SUPER_RESOLUTION).toString());
        assertEquals(0, plain.exit(), plain.toString());
        assertTrue(plain.out().lines().noneMatch(l -> l.startsWith("ort ")), plain.toString());
    }

    private static final String WITHOUT_A_RULE = OrtTestModels.WITHOUT_A_RULE;

    @Test
    void aKernelWithoutARuleIsMeasuredByDefault() throws Exception {
        Path model = OrtTestModels.singleOpModel(dir, WITHOUT_A_RULE);
        CliRun run = CliRun.of("plan", "--runtime", "ort", model.toString());
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("measured in ONNX Runtime when compiled: " + WITHOUT_A_RULE + "\n"),
                run.toString());
    }

    @Test
    void aKernelWithoutARuleThatCannotBeMeasuredIsRefusedNamingIt() throws Exception {
        Path model = OrtTestModels.singleOpModel(dir, WITHOUT_A_RULE);
        CliRun run = inProcess(() -> CliRun.of("plan", "--runtime", "ort", model.toString()));
        assertEquals(1, run.exit(), run.toString());
        assertEquals("", run.out(), run.toString());
        assertEquals(1, run.err().strip().lines().count(), run.toString());
        assertTrue(run.err().contains("could not measure (" + WITHOUT_A_RULE + ": measuring it needs a child JVM")
                && run.err().contains("--ort-unmodelled"), run.toString());
        assertFalse(run.err().contains("OrtModel") || run.err().contains("UnmodelledKernels"),
                "no Java type reaches the command line: " + run);
    }

    @Test
    void anAllowanceIsTakenOnlyWhenAskedForAndTheTextNamesItsKernels() throws Exception {
        Path model = OrtTestModels.singleOpModel(dir, WITHOUT_A_RULE);
        OrtArenaPrediction prediction = inProcess(() -> OrtRuntimeProfile.load(model, OrtModel.Level.ALL.ortName(),
                true)).predict(OnnxImporter.importModel(OnnxModel.read(model), ImportOptions.defaults()), Map.of());
        assertEquals(java.util.Set.of(WITHOUT_A_RULE), prediction.unmodelledOps());
        CliRun run = inProcess(() -> CliRun.of("plan", "--runtime", "ort", "--ort-unmodelled", "allowance",
                model.toString()));
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains(String.format(Locale.ROOT, "%,d B", prediction.activationBytes())), run.toString());
        assertTrue(run.out().contains("           an allowance, not a measured rule, for the kernels of "
                + WITHOUT_A_RULE + "\n"), run.toString());
        CliRun refused = inProcess(() -> CliRun.of("plan", "--runtime", "ort", "--ort-unmodelled", "refuse",
                model.toString()));
        assertEquals(1, refused.exit(), refused.toString());
        CliRun wrong = CliRun.of("plan", "--ort-unmodelled", "allowance", model.toString());
        assertEquals(2, wrong.exit(), wrong.toString());
        assertTrue(wrong.err().contains("--ort-unmodelled applies to --runtime ort only"), wrong.toString());
    }

    @Test
    void aModelWhoseKernelsAllHaveRulesNamesNoAllowance() {
        SharedModels.requirePresent();
        CliRun run = CliRun.of("plan", "--runtime", "ort", SharedModels.require("onnx-light/light_squeezenet.onnx").toString());
        assertEquals(0, run.exit(), run.toString());
        assertFalse(run.out().contains("an allowance"), run.toString());
    }

    @Test
    void jsonCarriesThePrediction() throws Exception {
        SharedModels.requirePresent();
        OrtModel.Plan expected = libraryPlan();
        String model = SharedModels.require(SUPER_RESOLUTION).toString();
        CliRun ort = CliRun.of("plan", "--runtime", "ort", "--ort-level", "none", "--bind", "batch_size=2",
                "--format", "json", model);
        assertEquals(0, ort.exit(), ort.toString());
        JsonNode doc = MAPPER.readTree(ort.out());
        assertEquals("none", doc.get("ort").get("level").asText());
        assertEquals(expected.predictedBytes().orElseThrow(), doc.get("ort").get("predictedBytes").asLong());
        assertTrue(doc.get("ort").get("unmodelledOps").isArray(), ort.toString());
        assertEquals(expected.plan().plan().peakBytes(), doc.get("peakBytes").asLong());

        CliRun plain = CliRun.of("plan", "--bind", "batch_size=2", "--format", "json", model);
        JsonNode own = MAPPER.readTree(plain.out());
        assertFalse(own.has("ort"), plain.toString());
        assertEquals(expected.plan().plan().peakBytes(), own.get("peakBytes").asLong());

        // deferred: the field is there, with no figure yet
        CliRun deferred = CliRun.of("plan", "--runtime", "ort", "--format", "json", model);
        assertEquals(0, deferred.exit(), deferred.toString());
        JsonNode d = MAPPER.readTree(deferred.out()).get("ort");
        assertTrue(d.has("predictedBytes") && d.get("predictedBytes").isNull(), deferred.toString());
    }

    @Test
    void aBranchSizedAtRunTimeDefersTheFigureAsTheMemplanRuntimeDefersItsPlan() throws Exception {
        String model = OrtTestModels.ifWithARunTimeSlice(dir).toString();
        CliRun own = CliRun.of("plan", "--format", "json", model);
        assertEquals(0, own.exit(), own.toString());
        assertFalse(MAPPER.readTree(own.out()).get("onnx").get("complete").asBoolean(), own.toString());
        CliRun ort = CliRun.of("plan", "--runtime", "ort", "--format", "json", model);
        assertEquals(0, ort.exit(), ort.toString());
        JsonNode figure = MAPPER.readTree(ort.out()).get("ort");
        assertTrue(figure.has("predictedBytes") && figure.get("predictedBytes").isNull(), ort.toString());
        CliRun text = CliRun.of("plan", "--runtime", "ort", model);
        assertEquals(0, text.exit(), text.toString());
        assertTrue(text.out().lines().anyMatch(l -> l.startsWith("admission  deferred")), text.toString());
        assertTrue(text.out().lines().anyMatch(l -> l.startsWith("ort        deferred")), text.toString());
    }

    @Test
    void aModelOrtCannotLoadIsOneLineAndExitOne() throws Exception {
        Path model = OrtTestModels.unloadableModel(dir);
        assertEquals(0, CliRun.of("plan", model.toString()).exit(), "memplan plans it");
        CliRun run = CliRun.of("plan", "--runtime", "ort", model.toString());
        assertEquals(1, run.exit(), run.toString());
        assertEquals("", run.out(), run.toString());
        assertEquals(1, run.err().strip().lines().count(), run.toString());
        assertTrue(run.err().startsWith("memplan: " + model + ": ONNX Runtime cannot load the model: "), run.toString());
        for (String leak : new String[] {"Exception", "ai.onnxruntime", "dev.memplan", "\tat "}) {
            assertFalse(run.err().contains(leak), leak + " reached the user: " + run);
        }
    }

    @Test
    void eachFileOfOneCallGetsItsOwnFigureWhileOrtLoadsBesideThePlan() throws Exception {
        SharedModels.requirePresent();
        Path measured = OrtTestModels.singleOpModel(dir, WITHOUT_A_RULE);
        Path superResolution = SharedModels.require(SUPER_RESOLUTION);
        List<String> alone = new ArrayList<>();
        for (Path model : List.of(superResolution, measured)) {
            CliRun run = model == measured ? CliRun.of("plan", "--runtime", "ort", model.toString())
                    : CliRun.of("plan", "--runtime", "ort", "--bind", "batch_size=2", model.toString());
            assertEquals(0, run.exit(), run.toString());
            alone.add(run.out().lines().filter(l -> l.startsWith("ort ")).findFirst().orElseThrow());
        }
        CliRun both = CliRun.of("plan", "--runtime", "ort", "--bind", "batch_size=2", superResolution.toString(),
                measured.toString(), superResolution.toString());
        assertEquals(0, both.exit(), both.toString());
        assertEquals(List.of(alone.get(0), alone.get(1), alone.get(0)),
                both.out().lines().filter(l -> l.startsWith("ort ")).toList(), both.toString());

        Path broken = dir.resolve("broken.onnx");
        Files.write(broken, new byte[] {0x0a, 0x7f, 0x01}); // a truncated protobuf: memplan's plan fails first
        CliRun failing = CliRun.of("plan", "--runtime", "ort", "--bind", "batch_size=2", broken.toString(),
                superResolution.toString());
        assertEquals(1, failing.exit(), failing.toString());
        assertEquals("", failing.out(), failing.toString());
        assertTrue(failing.err().startsWith("memplan: " + broken + " is not a readable ONNX model"), failing.toString());
        assertFalse(failing.err().contains(SUPER_RESOLUTION), "the second file planned: " + failing);
    }

    @Test
    void aGraphFileAndBadOptionsAreRefused() {
        CliRun graph = CliRun.of("plan", "--runtime", "ort", "examples/resnet_block.json");
        assertEquals(1, graph.exit(), graph.toString());
        assertEquals(1, graph.err().strip().lines().count(), graph.toString());
        assertTrue(graph.err().contains("--runtime ort predicts ONNX Runtime's arena for ONNX models"), graph.toString());

        CliRun unknown = CliRun.of("plan", "--runtime", "tensorrt", "examples/resnet_block.json");
        assertEquals(ExitCode.USAGE, unknown.exit(), unknown.toString());
        assertTrue(unknown.err().contains("expected one of [memplan, ort] but was 'tensorrt'"), unknown.toString());

        CliRun level = CliRun.of("plan", "--ort-level", "all", "examples/resnet_block.json");
        assertEquals(ExitCode.USAGE, level.exit(), level.toString());
        assertTrue(level.err().contains("--ort-level applies to --runtime ort only"), level.toString());

        CliRun badLevel = CliRun.of("plan", "--runtime", "ort", "--ort-level", "max", "examples/resnet_block.json");
        assertEquals(ExitCode.USAGE, badLevel.exit(), badLevel.toString());
        assertTrue(badLevel.err().contains("expected one of [none, basic, extended, all] but was 'max'"),
                badLevel.toString());

        CliRun badAllowance = CliRun.of("plan", "--runtime", "ort", "--ort-unmodelled", "guess", "examples/resnet_block.json");
        assertEquals(ExitCode.USAGE, badAllowance.exit(), badAllowance.toString());
        assertTrue(badAllowance.err().contains("expected one of [refuse, allowance] but was 'guess'"),
                badAllowance.toString());
    }

    /** {@code call} with ONNX Runtime loaded in this process, where kernels without a rule cannot be measured. */
    private static <T> T inProcess(java.util.concurrent.Callable<T> call) throws Exception {
        String before = System.setProperty("memplan.ort.load", "in-process");
        try {
            return call.call();
        } finally {
            if (before == null) {
                System.clearProperty("memplan.ort.load");
            } else {
                System.setProperty("memplan.ort.load", before);
            }
        }
    }
}
