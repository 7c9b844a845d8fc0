// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.PlanOptions;
import dev.memplan.PlanOptions.Strategy;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --strategy} and {@code --effort}, shared by {@code plan}, {@code draw} and {@code demo}
 * as a picocli mixin. The strategy is parsed by picocli's own enum conversion, case-insensitive
 * (enabled in {@link MemplanCli#commandLine()}). Not giving {@code --strategy} means offsets, except
 * for {@code draw}'s page, which then plans both ({@link #given()}).
 */
final class StrategyOptions {
    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(names = "--strategy", paramLabel = "STRATEGY",
            description = "offsets (one arena, a byte offset per tensor) or slots (reusable buffers)"
                    + " (default: offsets; draw's page plans both).")
    private Strategy strategy;

    @Option(names = "--effort", paramLabel = "N",
            description = "How hard the offsets planner searches, 0 to " + PlanOptions.MAX_EFFORT
                    + ", counted in iterations so plans stay deterministic (default: "
                    + PlanOptions.DEFAULT_EFFORT + "); slots ignore it.")
    private int effort = PlanOptions.DEFAULT_EFFORT;

    /** The chosen strategy: offsets when none was given. */
    Strategy strategy() {
        return given().orElse(Strategy.OFFSETS);
    }

    /** The strategy given on the command line, empty when {@code --strategy} was not given. */
    Optional<Strategy> given() {
        return Optional.ofNullable(strategy);
    }

    /**
     * The chosen effort.
     *
     * @throws CommandLine.ParameterException (a usage error) when it is out of range
     */
    int effort() {
        if (effort < 0 || effort > PlanOptions.MAX_EFFORT) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--effort must be in [0, "
                    + PlanOptions.MAX_EFFORT + "], got " + effort);
        }
        return effort;
    }
}
