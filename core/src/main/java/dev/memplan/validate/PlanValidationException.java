// SPDX-License-Identifier: Apache-2.0
package dev.memplan.validate;

import dev.memplan.MemplanException;
import java.util.List;

/**
 * A plan that {@link PlanValidator} rejected. The message lists the problems found (each naming
 * the value or slot at fault); {@link #problems()} holds them one per entry.
 */
public class PlanValidationException extends MemplanException {
    private static final long serialVersionUID = 1L;

    private final transient List<String> problems;
    /** How many problems the validator found (the message lists the first few). */
    private final long totalProblems;

    PlanValidationException(List<String> problems, long totalProblems) {
        super(message(problems, totalProblems));
        this.problems = List.copyOf(problems);
        this.totalProblems = totalProblems;
    }

    /** {@return the problems found, in the order they were found (the first hundred)} */
    public List<String> problems() {
        return problems;
    }

    /** {@return how many problems were found, listed or not} */
    public long totalProblems() {
        return totalProblems;
    }

    private static String message(List<String> problems, long total) {
        StringBuilder sb = new StringBuilder("the plan is invalid (").append(total)
                .append(total == 1 ? " problem" : " problems").append("):");
        for (String p : problems) {
            sb.append("\n  - ").append(p);
        }
        if (total > problems.size()) {
            sb.append("\n  ... and ").append(total - problems.size()).append(" more");
        }
        return sb.toString();
    }
}
