// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import java.nio.file.Path;

/**
 * The executor {@code plan --runtime} reports on. memplan's own executor adds nothing (its plan is
 * the figure); a runtime such as ONNX Runtime adds its own figure beside the plan. A new runtime is
 * one more implementation and one more {@link RuntimeOption}.
 */
interface RuntimeFigures {

    /** memplan's own executor: the plan's peak and admission figure are the figures. */
    RuntimeFigures MEMPLAN = (planned, file) -> null;

    /**
     * Why the runtime cannot run here (checked once, before any file), or null when it can.
     *
     * @return one line saying what is missing and what to do, or null
     */
    default String unavailable() {
        return null;
    }

    /**
     * The runtime's figure for the request of a planned file.
     *
     * @param planned the file's plan
     * @param file    the file
     * @return the figure, or null when memplan's plan is the figure
     * @throws dev.memplan.MemplanException naming the file or the model's fault when the runtime
     *                                      cannot give a figure for it
     */
    RuntimeFigure figure(PlannedFile planned, Path file);
}
