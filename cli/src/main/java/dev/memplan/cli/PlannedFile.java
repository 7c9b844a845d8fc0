// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.server.OnnxPlan;

/**
 * One file's outcome, kept until every file has planned: nothing is printed unless all do.
 *
 * @param label    the file as named on the command line
 * @param schedule the compiled graph
 * @param result   the plan, or the owners whose size is unknown
 * @param onnx     for an ONNX model, its plan with names, shapes and control flow; else null
 */
record PlannedFile(String label, Schedule schedule, PlanResult result, OnnxPlan onnx) {

    static PlannedFile of(String label, OnnxPlan onnx) {
        return new PlannedFile(label, onnx.schedule(), onnx.result(), onnx);
    }
}
