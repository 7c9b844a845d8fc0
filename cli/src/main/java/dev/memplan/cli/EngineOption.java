// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.EngineMode;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --engine}, shared by every command that plans: a picocli mixin for the annotated commands,
 * {@link #optionSpec()} for {@code pack}, whose model is built without annotations. picocli parses
 * the value itself, ignoring case ({@link MemplanCli#commandLine()}).
 */
final class EngineOption {
    static final String NAME = "--engine";
    private static final String LABEL = "ENGINE";
    private static final String DESCRIPTION = "auto, native or java (default: the memplan.engine property, else auto).";

    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(names = NAME, paramLabel = LABEL, description = DESCRIPTION)
    private EngineMode engine;

    /** {@return the option as picocli's programmatic model: the mixin's option, for {@code pack}} */
    static OptionSpec optionSpec() {
        return OptionSpec.builder(NAME).paramLabel(LABEL).type(EngineMode.class).description(DESCRIPTION).build();
    }

    /**
     * The engine given, else the one {@code -Dmemplan.engine} names, else auto.
     *
     * @throws CommandLine.ParameterException (a usage error) when the property names no engine
     */
    EngineMode mode() {
        return mode(engine, spec);
    }

    /**
     * {@code given}, else the engine {@code -Dmemplan.engine} names, else auto.
     *
     * @param given the option's value, or null
     * @param spec  the command, for a usage error
     * @throws CommandLine.ParameterException (a usage error) when the property names no engine
     */
    static EngineMode mode(EngineMode given, CommandSpec spec) {
        if (given != null) {
            return given;
        }
        try {
            return EngineMode.fromSystemProperty();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "-D" + EngineMode.PROPERTY + ": "
                    + e.getMessage());
        }
    }
}
