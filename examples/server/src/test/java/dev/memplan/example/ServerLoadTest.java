// SPDX-License-Identifier: Apache-2.0
package dev.memplan.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The example server under bounded load: every request answered, leases never above the budget,
 * none leaked, no deadlock. Prints the report (resident memory growth included) for the CI log.
 */
class ServerLoadTest {

    @Test
    void everyRequestIsAnsweredWithinTheBudget() throws Exception {
        String given = System.getProperty("load.model", "");
        Path model = !given.isBlank() ? Path.of(given) : Path.of(System.getProperty("memplan.shared.dir",
                "../../../shared"), "models", "minilm", "all-minilm-l6-v2-q.onnx");
        if (System.getenv("CI") == null) {
            assumeTrue(Files.isRegularFile(model), "no shared model at " + model);
        }
        OrtSettings settings = OrtSettings.parse(System.getProperty("load.settings", "bounded"));
        long budgetBytes = Long.getLong("load.budget.bytes", 0L);
        int[] longest = LoadTest.Config.longest(System.getProperty("load.longest"));
        LoadTest.Config c = new LoadTest.Config(model, Integer.getInteger("load.requests", 120),
                Integer.getInteger("load.threads", 8), settings, Integer.getInteger("load.intraop", 1),
                budgetBytes > 0 ? budgetBytes : Long.getLong("load.budget.mib", 256) << 20, Duration.ofSeconds(60), 1,
                Duration.ofMinutes(5), longest, Integer.getInteger("load.maxbatch", 8),
                Integer.getInteger("load.rowsperrun", 0), !"none".equals(System.getProperty("load.reserve", "threads")));
        LoadTest.Report r = LoadTest.run(c);
        System.out.println(r);
        assertTrue(r.finished(), "the load did not end within " + c.deadline() + ": a deadlock?");
        assertEquals(List.of(), r.failures());
        assertEquals(c.requests(), r.answered(), "every request answered");
        assertTrue(r.ok() > 0, "some requests embedded");
        assertEquals(0, r.tooLarge(), "<= 512 tokens always fit the model, and rows that fit the budget one by one are split");
        assertTrue(r.maxHeld() <= r.budget().leasableBytes(), "leases held " + r.maxHeld() + " bytes at once");
        assertTrue(r.budget().peakInUseBytes() <= r.budget().leasableBytes());
        assertEquals(0, r.heldAtEnd(), "no lease left open");
        assertEquals(0, r.budget().inUseBytes(), "the budget got every byte back");
        assertEquals(0, r.budget().leaked());
        assertEquals(0, r.budget().waiting());
        assertEquals(settings.admits() ? r.ok() + 1 : 0, r.budget().admitted(),
                "one lease per embedded request, and the warm-up's");
        if (settings.leasesOrtPrediction() && longest == null) { // with a longest request the growth counts ORT's start
            assertTrue(r.arenaPeak() >= 0, "ORT's arena statistics were read");
            assertTrue(r.arenaPeak() <= r.budget().capacityBytes(), "ORT's arena reserved " + r.arenaPeak()
                    + " bytes over its baseline, more than the budget's " + r.budget().capacityBytes());
            assertTrue(r.rssGrowth() <= r.budget().capacityBytes() * 105 / 100, "resident memory grew by "
                    + r.rssGrowth() + " bytes, past 1.05x the budget's " + r.budget().capacityBytes());
        }
    }
}
