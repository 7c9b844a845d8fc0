// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.DataType;
import dev.memplan.Graph;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.Schedule;
import dev.memplan.Shape;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.ViewMap;
import dev.memplan.cli.MemplanCli;
import dev.memplan.generate.GeneratedGraph;
import dev.memplan.generate.GraphKind;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.testing.Ci;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.interactions.WheelInput;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Opens timeline pages in a real browser (Debian's chromium, driven by its chromium-driver through
 * Selenium) and checks what a user sees: no console errors, every tensor drawn, hover, pin, search,
 * the slots/offsets toggle, zoom and pan, control-flow bodies, and speed at 10,000 owners.
 * Screenshots go to {@code target/draw-screenshots/}.
 *
 * <p>The page does not depend on the planning engine, so this runs once ({@link EngineIndependent}:
 * in the first surefire run). Without chromium it skips with a message, except in CI (env {@code CI} set),
 * where a missing browser is a failure.
 */
@EngineIndependent
class TimelinePageBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "draw-screenshots");
    private static final String SQUEEZENET = "onnx-light/light_squeezenet.onnx";
    private static final String IF_MODEL = "onnx-node/test_if/model.onnx";
    /** Budget for opening and drawing the 10,000-owner page (it takes well under a second here). */
    private static final long LOAD_BUDGET_MS = 5_000;
    /** Budget for the page whose tensors have 30,000-character names. */
    private static final long LONG_NAMES_BUDGET_MS = 10_000;

    /** Selenium warns that it has no DevTools bindings for this chromium; the test needs none. */
    private static final Logger DEVTOOLS_LOG = Logger.getLogger("org.openqa.selenium.devtools");

    private static ChromeDriver driver;
    private static Path pages;
    private static Path profile;

    @BeforeAll
    static void startBrowser() throws IOException {
        boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        Ci.require(installed, "no browser: install Debian's chromium and chromium-driver (" + CHROMIUM + ", "
                + CHROMEDRIVER + ") to run the timeline page tests", "CI must run them (.ci/run installs both)");
        DEVTOOLS_LOG.setLevel(Level.SEVERE);
        pages = Files.createTempDirectory("memplan-pages");
        Files.createDirectories(SCREENSHOTS);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--user-data-dir=" + (profile = Files.createTempDirectory("memplan-chromium")),
                "--window-size=1400,900");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).build();
        driver = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stopBrowser() throws IOException {
        if (driver != null) {
            driver.quit();
        }
        for (Path dir : new Path[] {pages, profile}) {
            if (dir != null) {
                try (var files = Files.walk(dir)) {
                    for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }

    // ---- a shared model, made by the command line ----

    @Test
    void sharedModelPageShowsEveryTensorAndAnswersTheUser() throws Exception {
        Path model = sharedModel(SQUEEZENET);
        Path page = drawWithCli(model, "squeezenet.html");
        Schedule schedule = MemPlan.compile(importModel(model).graph(), importModel(model).views(),
                PlanOptions.defaults().withStrategy(Strategy.SLOTS).withInPlace(true)); // the page's strategies share offsets' in-place decision
        ActivationPlan plan = schedule.plan(Map.of()).orElseThrow();
        Pictures.validate(plan);

        open(page);
        assertEquals(schedule.numOwners(), num("return memplanView.ownerCount()"));
        assertEquals(schedule.numOwners(), num("return memplanView.drawnCount()"), "every tensor is drawn");
        assertTrue(text("title").startsWith("light_squeezenet.onnx"), text("title"));
        assertTrue(text("figures").contains("peak") && text("figures").contains("lower bound")
                && text("figures").contains("savings") && text("figures").contains("MiB"), text("figures"));

        // hover the largest tensor: the tooltip names it and gives its bytes
        int largest = 0;
        for (int o = 1; o < schedule.numOwners(); o++) {
            if (plan.sizeOf(schedule.ownerValue(o)) > plan.sizeOf(schedule.ownerValue(largest))) {
                largest = o;
            }
        }
        String name = schedule.graph().value(schedule.ownerValue(largest)).name();
        long bytes = plan.sizeOf(schedule.ownerValue(largest));
        hover(name);
        WebElement tooltip = driver.findElement(By.id("tooltip"));
        assertTrue(tooltip.isDisplayed(), "hovering a tensor shows the tooltip");
        assertTrue(tooltip.getText().contains(name), tooltip.getText());
        assertTrue(tooltip.getText().contains(String.format(Locale.US, "%,d B", bytes)), tooltip.getText());
        screenshot("squeezenet-hover");

        // click pins it: the side panel describes it
        clickOn(name);
        assertEquals(name, js("return memplanView.pinned()"));
        assertTrue(text("pinned").contains(name), text("pinned"));

        // search by part of a name finds a tensor
        driver.findElement(By.id("search")).sendKeys("SOFTMAX");
        waitFor("return memplanView.pinned() === 'softmaxout_1'");
        assertTrue(text("search-status").contains("match"), text("search-status"));
        driver.findElement(By.id("search")).clear();
        js("memplanView.search('no such tensor anywhere')");
        assertEquals("no tensor matches", text("search-status"));
        js("memplanView.search('')");

        // the toggle changes the drawing and keeps every tensor
        js("memplanView.reset()");
        long before = num("return memplanView.drawSignature()");
        assertEquals("offsets", js("return memplanView.layout()"));
        driver.findElement(By.id("layout-slots")).click();
        assertEquals("slots", js("return memplanView.layout()"));
        assertNotEquals(before, num("return memplanView.drawSignature()"), "slots are drawn elsewhere than offsets");
        assertEquals(schedule.numOwners(), num("return memplanView.drawnCount()"));
        assertTrue(text("figures").contains("slots"), text("figures"));
        clickOn(name);
        hover(name);
        assertTrue(driver.findElement(By.id("tooltip")).getText().contains("slot "), "slots plans name the slot");
        screenshot("squeezenet-slots");
        driver.findElement(By.id("layout-offsets")).click();

        assertZoomAndPan();
        js("memplanView.reset()");
        hover(name);
        // docs/cli.md's picture (docs/images/timeline-squeezenet.png) is this screenshot
        screenshot("squeezenet");
        assertNoConsoleErrors();
    }

    // ---- control flow ----

    @Test
    void controlFlowBodiesOpenWithTheirTransientNeed() throws Exception {
        Path page = drawWithCli(sharedModel(IF_MODEL), "if.html");
        open(page);
        String panel = text("control-flow");
        assertTrue(panel.contains("If") && panel.contains("transient need"), panel);
        List<WebElement> bodies = driver.findElements(By.className("open-body"));
        assertEquals(2, bodies.size(), "an If has two bodies: " + panel);
        String outerTitle = (String) js("return memplanView.title()");
        bodies.get(0).click();
        assertEquals(1L, num("return memplanView.depth()"));
        String bodyTitle = (String) js("return memplanView.title()");
        assertTrue(bodyTitle.contains("_branch"), bodyTitle);
        assertEquals(num("return memplanView.ownerCount()"), num("return memplanView.drawnCount()"));
        screenshot("if-then-branch");
        driver.findElement(By.cssSelector("#crumbs button")).click();
        assertEquals(0L, num("return memplanView.depth()"));
        assertEquals(outerTitle, js("return memplanView.title()"));
        assertNoConsoleErrors();
    }

    // ---- 10,000 owners ----

    @Test
    void tenThousandOwnersLoadQuicklyAndStayUsable() throws Exception {
        GeneratedGraph generated = GraphKind.RANDOM_DAG.ofOwners(10_000);
        List<ActivationPlan> plans = new ArrayList<>();
        for (Strategy s : List.of(Strategy.OFFSETS, Strategy.SLOTS)) {
            ActivationPlan plan = generated.plan(PlanOptions.defaults().withStrategy(s)).orElseThrow();
            Pictures.validate(plan);
            plans.add(plan);
        }
        int owners = plans.get(0).schedule().numOwners();
        assertEquals(10_000, owners);
        Path page = pages.resolve("dag10k.html");
        Files.writeString(page, HtmlWriter.write(PictureBuilder.of(generated.description(), generated.bindings(), plans)));

        long start = System.nanoTime();
        open(page);
        long loadMs = (System.nanoTime() - start) / 1_000_000;
        double firstDraw = ((Number) js("return memplanView.firstDrawMs()")).doubleValue();
        assertTrue(loadMs < LOAD_BUDGET_MS, "the page took " + loadMs + " ms to open and draw");
        assertTrue(firstDraw < LOAD_BUDGET_MS, "first draw after " + firstDraw + " ms");
        assertEquals(owners, num("return memplanView.drawnCount()"));

        Schedule s = (Schedule) plans.get(0).schedule();
        String name = s.graph().value(s.ownerValue(owners / 2)).name();
        js("memplanView.search(arguments[0])", name);
        assertEquals(name, js("return memplanView.pinned()"));
        hover(name);
        String tip = driver.findElement(By.id("tooltip")).getText();
        assertTrue(tip.contains(name), name + " not in: " + tip);

        js("memplanView.reset()");
        long before = num("return memplanView.drawSignature()");
        driver.findElement(By.id("layout-slots")).click();
        assertNotEquals(before, num("return memplanView.drawSignature()"));
        assertEquals(owners, num("return memplanView.drawnCount()"));
        driver.findElement(By.id("layout-offsets")).click();
        assertZoomAndPan();
        js("memplanView.reset()");
        screenshot("dag10k");
        assertNoConsoleErrors();
    }

    // ---- names from input files ----

    @Test
    void hostileNamesAreShownAsTextAndRunNothing() throws Exception {
        String[] names = {"</script><script>window.pwned=1</script>", "<img src=x onerror=\"window.pwned=2\">",
            "q\"u'o`te\\", "ctl\u0001\u2028\u2029end", "/*MEMPLAN_DATA*/"};
        Graph.Builder b = Graph.builder();
        int prev = b.value("in", DataType.FLOAT32, Shape.fixed(64));
        b.input(prev);
        for (int i = 0; i < names.length; i++) {
            int v = b.value(names[i], DataType.FLOAT32, Shape.fixed(64 * (i + 1)));
            b.node("<b>node" + i + "</b>", "Op<script>", new int[] {prev}, new int[] {v});
            prev = v;
        }
        b.output(prev);
        ActivationPlan plan = MemPlan.compile(b.build(), ViewMap.empty(), PlanOptions.defaults()).plan(Map.of())
                .orElseThrow();
        Pictures.validate(plan);
        Path page = pages.resolve("hostile.html");
        Files.writeString(page, HtmlWriter.write(PictureBuilder.of("</title><script>window.pwned=3</script>",
                Map.of(), List.of(plan))));
        open(page);
        assertNull(js("return window.pwned === undefined ? null : window.pwned"), "a name ran as script");
        assertEquals(names.length, num("return memplanView.drawnCount()"));
        assertEquals("</title><script>window.pwned=3</script>", text("title"));
        for (String name : names) {
            js("memplanView.search(arguments[0])", name);
            assertEquals(name, js("return memplanView.pinned()"), "the name survives unchanged");
        }
        js("memplanView.reset()");
        hover(names[0]);
        assertTrue(driver.findElement(By.id("tooltip")).getText().contains(names[0]));
        assertNoConsoleErrors();
    }

    /**
     * Names of 30,000 characters load within {@link #LONG_NAMES_BUDGET_MS}: the label of each
     * rectangle is cut by a binary search on the cut (before, one character at a time, measuring
     * the whole text each time: over 60 s for such a page).
     */
    @Test
    void thirtyThousandCharacterNamesLoadQuickly() throws Exception {
        Graph.Builder b = Graph.builder();
        int prev = b.value("in", DataType.FLOAT32, Shape.fixed(256));
        b.input(prev);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String prefix = "t" + i + "_";
            String name = prefix + "x".repeat(30_000 - prefix.length() - 3) + "\u00e9\ud83d\ude00";
            names.add(name);
            int v = b.value(name, DataType.FLOAT32, Shape.fixed(256));
            b.node("n" + i, "Relu", new int[] {prev}, new int[] {v});
            prev = v;
        }
        b.output(prev);
        ActivationPlan plan = MemPlan.compile(b.build(), ViewMap.empty(), PlanOptions.defaults()).plan(Map.of())
                .orElseThrow();
        Pictures.validate(plan);
        Path page = pages.resolve("long-names.html");
        Files.writeString(page, HtmlWriter.write(PictureBuilder.of("long names", Map.of(), List.of(plan))));
        long start = System.nanoTime();
        open(page);
        long loadMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(loadMs < LONG_NAMES_BUDGET_MS, "the page took " + loadMs + " ms to open and draw");
        assertEquals(names.size(), num("return memplanView.drawnCount()"));
        js("memplanView.search(arguments[0])", names.get(7));
        assertEquals(names.get(7), js("return memplanView.pinned()"), "the name survives unchanged");
        screenshot("long-names");
        assertNoConsoleErrors();
    }

    // ---- helpers ----

    /** Zoom in time (wheel), in memory (shift+wheel) and pan (drag) each change the visible range. */
    private static void assertZoomAndPan() {
        js("memplanView.reset()");
        Map<?, ?> full = range();
        WebElement arena = driver.findElement(By.id("arena"));
        new Actions(driver).scrollFromOrigin(WheelInput.ScrollOrigin.fromElement(arena), 0, -400).perform();
        waitFor("var r = memplanView.visibleRange(); return r.x1 - r.x0 < " + span(full, "x") + " * 0.9");
        Map<?, ?> zoomedX = range();
        assertEquals(span(full, "y"), span(zoomedX, "y"), 1e-6, "the wheel zooms time only");
        new Actions(driver).keyDown(Keys.SHIFT).scrollFromOrigin(WheelInput.ScrollOrigin.fromElement(arena), 0, -400)
                .keyUp(Keys.SHIFT).perform();
        waitFor("var r = memplanView.visibleRange(); return r.y1 - r.y0 < " + span(full, "y") + " * 0.9");
        Map<?, ?> zoomed = range();
        new Actions(driver).moveToElement(arena, 0, 0).clickAndHold().moveByOffset(120, -60).release().perform();
        Map<?, ?> panned = range();
        assertNotEquals(((Number) zoomed.get("x0")).doubleValue(), ((Number) panned.get("x0")).doubleValue(),
                "dragging pans time");
        assertNotEquals(((Number) zoomed.get("y0")).doubleValue(), ((Number) panned.get("y0")).doubleValue(),
                "dragging pans memory");
        assertTrue(num("return memplanView.drawnCount()") <= num("return memplanView.ownerCount()"));
    }

    private static Map<?, ?> range() {
        return (Map<?, ?>) js("return memplanView.visibleRange()");
    }

    private static double span(Map<?, ?> r, String axis) {
        return ((Number) r.get(axis + "1")).doubleValue() - ((Number) r.get(axis + "0")).doubleValue();
    }

    private static void hover(String name) {
        Map<?, ?> p = (Map<?, ?>) js("return memplanView.pointOf(arguments[0])", name);
        assertNotNull(p, name + " is on screen");
        new Actions(driver).moveToElement(driver.findElement(By.id("arena")), offset(p, "x", "width"),
                offset(p, "y", "height")).perform();
        waitFor("return !document.getElementById('tooltip').hidden");
    }

    private static void clickOn(String name) {
        Map<?, ?> p = (Map<?, ?>) js("return memplanView.pointOf(arguments[0])", name);
        assertNotNull(p, name + " is on screen");
        new Actions(driver).moveToElement(driver.findElement(By.id("arena")), offset(p, "x", "width"),
                offset(p, "y", "height")).click().perform();
    }

    /** Selenium's element offsets count from the element's centre. */
    private static int offset(Map<?, ?> p, String coordinate, String extent) {
        double v = ((Number) p.get(coordinate)).doubleValue();
        double size = ((Number) p.get(extent)).doubleValue();
        return (int) Math.round(v - size / 2);
    }

    private static void open(Path page) {
        driver.get(page.toUri().toString());
        driver.manage().logs().get(LogType.BROWSER); // start each page with an empty log
        waitFor("return window.memplanView !== undefined && memplanView.firstDrawMs() !== null");
    }

    private static void waitFor(String condition) {
        new WebDriverWait(driver, Duration.ofSeconds(10)).until(d -> Boolean.TRUE.equals(js(condition)));
    }

    private static Object js(String script, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(script, args);
    }

    private static long num(String script) {
        return ((Number) js(script)).longValue();
    }

    private static String text(String id) {
        return driver.findElement(By.id(id)).getText();
    }

    private static void assertNoConsoleErrors() {
        List<String> errors = new ArrayList<>();
        for (LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
            if (e.getLevel().intValue() >= Level.WARNING.intValue()) {
                errors.add(e.getLevel() + " " + e.getMessage());
            }
        }
        assertEquals(List.of(), errors, "the page logged errors or warnings");
    }

    private static void screenshot(String name) throws IOException {
        Files.write(SCREENSHOTS.resolve(name + ".png"), driver.getScreenshotAs(OutputType.BYTES));
    }

    private static Path sharedModel(String relative) {
        return SharedModels.require(relative);
    }

    private static ImportedGraph importModel(Path model) {
        return OnnxImporter.importModel(OnnxModel.read(model), ImportOptions.defaults());
    }

    /** {@code memplan draw MODEL -o PAGE}, in process, as a user runs it. */
    private static Path drawWithCli(Path model, String pageName) {
        Path page = pages.resolve(pageName);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = MemplanCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute("draw", model.toString(), "-o", page.toString());
        assertEquals(0, exit, out + "\n" + err);
        assertTrue(Files.exists(page));
        return page;
    }
}
