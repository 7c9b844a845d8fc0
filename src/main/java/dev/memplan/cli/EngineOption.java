// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.EngineMode;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --engine}, shared by every command that plans, as a picocli mixin. picocli parses the
 * value itself, ignoring case ({@link MemplanCli#commandLine()}).
 */
final class EngineOption {
    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(names = "--engine", paramLabel = "ENGINE",
            description = "auto, native or java (default: the memplan.engine property, else auto).")
    private EngineMode engine;

    /**
     * The engine given, else the one {@code -Dmemplan.engine} names, else auto.
     *
     * @throws CommandLine.ParameterException (a usage error) when the property names no engine
     */
    EngineMode mode() {
        if (engine != null) {
            return engine;
        }
        try {
            return EngineMode.fromSystemProperty();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "-D" + EngineMode.PROPERTY + ": "
                    + e.getMessage());
        }
    }
}
