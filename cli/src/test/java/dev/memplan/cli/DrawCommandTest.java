// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code memplan draw} and {@code memplan plan --timeline} as a user runs them. */
@EngineIndependent
class DrawCommandTest {
    private static final String BLOCK = "examples/transformer_block.json";

    @TempDir
    Path dir;

    @Test
    void drawsASelfContainedPageWithBothPlans() throws IOException {
        Path page = dir.resolve("block.html");
        CliRun run = CliRun.of("draw", BLOCK, "--bind", "batch=2", "--bind", "seq=64", "-o", page.toString());
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("offsets and slots plans"), run.out());
        String html = Files.readString(page);
        assertTrue(html.startsWith("<!DOCTYPE html>"));
        assertTrue(html.contains("\"name\":\"offsets\"") && html.contains("\"name\":\"slots\""), "both plans are in");
        assertTrue(html.contains("\"bindings\":{\"batch\":2,\"seq\":64}"));
        for (String remote : new String[] {"http://", "https://", "<link rel=\"stylesheet\"", "<script src"}) {
            assertFalse(html.contains(remote), "the page must not reach out: " + remote);
        }
        assertFalse(html.contains("MEMPLAN_"), "every placeholder is filled");
    }

    @Test
    void drawsAnSvgOfOnePlan() throws IOException {
        Path svg = dir.resolve("block.svg");
        CliRun run = CliRun.of("draw", BLOCK, "--bind", "batch=1", "--bind", "seq=16", "--strategy", "slots",
                "-o", svg.toString());
        assertEquals(0, run.exit(), run.toString());
        String text = Files.readString(svg);
        assertTrue(text.contains("<svg") && text.contains("data-layout=\"slots\""), text.substring(0, 300));
        assertTrue(text.contains("class=\"owner\""));
    }

    @Test
    void aDeferredPlanSaysWhatToBind() {
        CliRun run = CliRun.of("draw", BLOCK, "-o", dir.resolve("x.html").toString());
        assertEquals(ExitCode.DEFERRED, run.exit(), run.toString()); // the table's code, as plan --require-complete
        assertTrue(run.err().contains("deferred") && run.err().contains("--bind batch=N"), run.err());
        assertEquals(1, run.err().lines().count(), "one line: " + run.err());
        assertFalse(Files.exists(dir.resolve("x.html")));
    }

    @Test
    void usageAndInputErrorsAreOneLine() {
        CliRun wrongKind = CliRun.of("draw", BLOCK, "-o", dir.resolve("x.png").toString());
        assertEquals(2, wrongKind.exit(), wrongKind.toString());
        assertTrue(wrongKind.err().contains(".html") && wrongKind.err().contains(".svg"), wrongKind.err());

        CliRun missing = CliRun.of("draw", dir.resolve("none.json").toString(), "-o", dir.resolve("x.svg").toString());
        assertEquals(1, missing.exit(), missing.toString());
        assertTrue(missing.err().contains("no such file"), missing.err());
        assertEquals(1, missing.err().lines().count());

        CliRun badStrategy = CliRun.of("draw", BLOCK, "--strategy", "best", "-o", dir.resolve("x.svg").toString());
        assertEquals(2, badStrategy.exit(), badStrategy.toString());
        assertEquals("memplan draw: Invalid value for option '--strategy': expected one of [offsets, slots] but was"
                + " 'best'; see 'memplan draw --help'\n", badStrategy.err());
    }

    /** draw and plan share their plan options (one mixin): same names, same checks, same messages. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--effort 1001     | --effort must be in [0, 1000], got 1001",
            "--alignment 0     | --alignment must be >= 1, got 0",
            "--engine fast     | Invalid value for option '--engine': expected one of [auto, native, java] but was 'fast'",
            "--views sideways  | Invalid value for option '--views': expected one of [ort, strided, none] but was 'sideways'",
            "--bind seq=1 --bind seq=2 | --bind seq is given twice, as 1 and 2; bind each symbol once"})
    void sharesPlanOptionsWithPlan(String options, String message) {
        for (String command : List.of("draw", "plan")) {
            List<String> args = new ArrayList<>(List.of(command, BLOCK));
            args.addAll(List.of(options.trim().split(" +")));
            args.addAll(List.of("-o", dir.resolve("x.svg").toString()).subList(0, command.equals("draw") ? 2 : 0));
            CliRun run = CliRun.of(args.toArray(String[]::new));
            assertEquals(ExitCode.USAGE, run.exit(), run.toString());
            assertEquals("memplan " + command + ": " + message + "; see 'memplan " + command + " --help'\n", run.err());
        }
        assertFalse(Files.exists(dir.resolve("x.svg")));
    }

    @Test
    void strategyIgnoresCaseAndHelpListsThePlanOptions() throws IOException {
        Path svg = dir.resolve("slots.svg");
        CliRun run = CliRun.of("draw", BLOCK, "--bind", "batch=1", "--bind", "seq=8", "--strategy", "SLOTS",
                "-o", svg.toString());
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("(slots plan)"), run.out());
        CliRun help = CliRun.of("draw", "--help");
        assertEquals(0, help.exit(), help.toString());
        for (String option : List.of("--bind=SYM=N", "--strategy=STRATEGY", "--effort=N", "--alignment=N",
                "--include-graph-inputs", "--engine=ENGINE", "--views=POLICY", "--no-fold-constants",
                "3 deferred")) {
            assertTrue(help.out().contains(option), option + " in\n" + help.out());
        }
    }

    @Test
    void planTimelineAddsTheArenaPicture() {
        CliRun run = CliRun.of("plan", BLOCK, "--bind", "batch=1", "--bind", "seq=8", "--timeline");
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("arena timeline ("), run.out());
        long rows = run.out().lines().filter(l -> l.matches("\\s+\\d+(-\\d+)? \\|.*\\| .* live")).count();
        assertTrue(rows > 3, run.out());
        CliRun without = CliRun.of("plan", BLOCK, "--bind", "batch=1", "--bind", "seq=8");
        assertFalse(without.out().contains("arena timeline"));
    }

    @Test
    void drawsAControlFlowModelWithItsBodies() throws IOException {
        Path model = SharedModels.require(SharedModels.ONNX_IF);
        Path page = dir.resolve("if.html");
        CliRun run = CliRun.of("draw", model.toString(), "-o", page.toString());
        assertEquals(0, run.exit(), run.toString());
        String html = Files.readString(page);
        assertTrue(html.contains("\"controlFlow\":[{\"node\""), "the If node is listed");
        assertTrue(html.contains("\"attribute\":\"then_branch\"") && html.contains("\"attribute\":\"else_branch\""));
        assertTrue(html.contains("\"transientNeed\":"));
    }
}
