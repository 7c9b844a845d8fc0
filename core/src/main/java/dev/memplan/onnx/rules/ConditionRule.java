// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.onnx.symbols.SymCondition;

/**
 * How an op carries a {@link SymCondition} from its inputs to output 0 (see
 * {@link ConditionTracking}); registered with the op in {@link OpRegistry}.
 */
sealed interface ConditionRule {
    /** Compares two one-element integers. */
    record Compares(SymCondition.Comparison comparison) implements ConditionRule {
    }

    /** Negates a condition. */
    record Negates() implements ConditionRule {
    }

    /** Combines two conditions. */
    record Combines(SymCondition.Logic logic) implements ConditionRule {
    }

    /** Moves or retypes one element: the condition passes through unchanged. */
    record PassesThrough() implements ConditionRule {
    }

    /** The shared instance of {@link Negates}. */
    ConditionRule NEGATES = new Negates();
    /** The shared instance of {@link PassesThrough}. */
    ConditionRule PASSES_THROUGH = new PassesThrough();
}
