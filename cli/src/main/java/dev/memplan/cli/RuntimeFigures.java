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
     * Starts the runtime's own work on {@code file} beside memplan's planning of it, where the runtime
     * has work that does not need the plan (ONNX Runtime loads the model in a child JVM); {@link
     * #figure} waits for it. At most one file's work runs at a time.
     *
     * @param file the file about to be planned
     */
    default void start(Path file) {
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
