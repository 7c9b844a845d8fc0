package dev.memplan.cli;

import dev.memplan.PlanResult;
import dev.memplan.Schedule;

/**
 * One file's outcome, kept until every file has planned: nothing is printed unless all do.
 *
 * @param label    the file as named on the command line
 * @param schedule the compiled graph
 * @param result   the plan, or the owners whose size is unknown
 */
record PlannedFile(String label, Schedule schedule, PlanResult result) {
}
