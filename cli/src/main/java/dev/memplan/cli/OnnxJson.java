// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.JsonGeneratorDelegate;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.io.JsonOutput;
import dev.memplan.json.PlanJson;
import dev.memplan.server.OnnxPlan;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The plan JSON of an ONNX model: the plan object every graph gets, with an {@code "onnx"} field
 * added: per-owner ONNX names, symbolic and bound shapes, weights, symbols, control flow and the
 * admission figure. Written in one pass: the plan's fields, then the report's records, into one object.
 */
final class OnnxJson {
    private static final ObjectMapper MAPPER = JsonOutput.mapper();

    private OnnxJson() {
    }

    /**
     * The {@code "ort"} object.
     *
     * @param predictedBytes null while the plan is deferred
     * @param unmodelledOps  sorted
     */
    record Ort(String level, Long predictedBytes, List<String> unmodelledOps, List<String> measuredOps) {
    }

    /**
     * The plan object of {@code result} with the {@code "onnx"} report of {@code plan}, on one line;
     * with {@code --runtime ort}, an {@code "ort"} object: {@code {"level":"all","predictedBytes":N,
     * "unmodelledOps":[...],"measuredOps":[...]}} ({@code predictedBytes} null while the plan is
     * deferred; {@code measuredOps}: kernels without a rule whose workspace ORT was measured for).
     */
    static String toJson(String file, Schedule schedule, PlanResult result, OnnxPlan plan, RuntimeFigure ort) {
        StringWriter out = new StringWriter();
        List<String> deferred = deferredFigures(plan, ort);
        try (JsonGenerator g = MAPPER.createGenerator(out)) {
            g.writeStartObject();
            PlanJson.writeFields(deferred.isEmpty() ? g : new DeferredStatus(g), file, schedule, result);
            if (!deferred.isEmpty() && result instanceof PlanResult.Complete) {
                g.writeObjectField("deferredFigures", deferred);
            }
            g.writeObjectField("onnx", OnnxPlanJson.report(plan));
            if (ort != null) {
                g.writeObjectField(ort.runtime(), new Ort(ort.level(), ort.predictedBytes().isPresent()
                        ? ort.predictedBytes().getAsLong() : null, ort.unmodelledOps().stream().sorted().toList(),
                        ort.measuredOps().stream().sorted().toList()));
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    /**
     * The figures of a complete outer plan that are still deferred: a control-flow body's need
     * (so admission), ORT's prediction. With any, the status is {@code deferred}: {@code complete}
     * promises every figure the report has.
     */
    static List<String> deferredFigures(OnnxPlan plan, RuntimeFigure ort) {
        if (!(plan.result() instanceof PlanResult.Complete)) {
            return List.of();
        }
        List<String> deferred = new ArrayList<>();
        if (plan.admissionBytes().isEmpty()) {
            deferred.add("admissionBytes");
        }
        if (ort != null && ort.predictedBytes().isEmpty()) {
            deferred.add(ort.runtime() + ".predictedBytes");
        }
        return deferred;
    }

    /** Writes the plan's fields with its {@code "status"} as {@code "deferred"}. */
    private static final class DeferredStatus extends JsonGeneratorDelegate {
        DeferredStatus(JsonGenerator g) {
            super(g, false);
        }

        @Override
        public void writeStringField(String field, String value) throws IOException {
            super.writeStringField(field, "status".equals(field) ? "deferred" : value);
        }
    }
}
