// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.SharedModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compile and plan (direct, cache miss, cache hit) show up in a JFR recording with their figures. */
class FlightRecorderEventsTest {

    @Test
    void compileAndPlanEventsAreRecorded(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("memplan.jfr");
        CompiledModel model;
        OnnxPlan direct;
        OnnxPlan cached;
        try (Recording recording = new Recording()) {
            recording.enable("dev.memplan.Compile").withThreshold(Duration.ZERO);
            recording.enable("dev.memplan.Plan").withThreshold(Duration.ZERO);
            recording.start();
            model = CompiledModel.compile(SharedModels.require(SharedModels.MINILM));
            direct = model.planForInputs(Models.miniLmInputs(2, 64));
            PlanCache cache = PlanCache.of(model, 4, Bucketing.none());
            cached = cache.planForInputs(Models.miniLmInputs(2, 64));
            cache.planForInputs(Models.miniLmInputs(2, 64));
            recording.stop();
            recording.dump(file);
        }
        assertTrue(Files.size(file) > 0);
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        List<RecordedEvent> compiles = events.stream().filter(e -> e.getEventType().getName().equals("dev.memplan.Compile")).toList();
        List<RecordedEvent> plans = events.stream().filter(e -> e.getEventType().getName().equals("dev.memplan.Plan")).toList();

        assertEquals(1, compiles.size(), "one compile: " + compiles);
        RecordedEvent c = compiles.get(0);
        assertEquals(model.engine(), c.getString("engine"));
        assertEquals(model.schedule().numOwners(), c.getInt("owners"));
        assertEquals("batch_size,sequence_length", c.getString("symbols"));
        assertTrue(c.getString("model").endsWith("all-minilm-l6-v2-q.onnx"), c.getString("model"));
        assertTrue(c.getDuration().toNanos() > 0, "compile has a duration");

        assertEquals(3, plans.size(), "direct, miss, hit: " + plans);
        long peak = direct.plan().peakBytes();
        for (RecordedEvent p : plans) {
            assertEquals(peak, p.getLong("peakBytes"));
            assertEquals(direct.plan().lowerBoundBytes(), p.getLong("lowerBoundBytes"));
            assertEquals(direct.admissionBytes().getAsLong(), p.getLong("admissionBytes"));
            assertEquals(model.schedule().numOwners(), p.getInt("owners"));
            assertEquals(model.engine(), p.getString("engine"));
            assertEquals("{batch_size=2, sequence_length=64}", p.getString("bindings"));
        }
        assertEquals(List.of(false, true, true), plans.stream().map(p -> p.getBoolean("cached")).toList());
        assertEquals(List.of(false, false, true), plans.stream().map(p -> p.getBoolean("cacheHit")).toList());
        assertEquals(peak, cached.plan().peakBytes());
    }
}
