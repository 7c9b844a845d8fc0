// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.onnx.symbols.ElementValues;
import dev.memplan.onnx.symbols.SymCondition;
import dev.memplan.onnx.symbols.SymInt;
import dev.memplan.onnx.symbols.TensorInfo;
import java.util.Map;

/**
 * Carries {@link SymCondition}s through the ops that build an If condition: comparisons of
 * one-element integers of which one is symbolic, {@code Not}, {@code And}/{@code Or}/{@code Xor},
 * and the ops that only move or retype one element (Identity, Squeeze, Reshape, Cast...): each op's
 * {@link ConditionRule} in {@link OpRegistry}. A condition that turns out constant becomes the
 * output's value instead.
 */
public final class ConditionTracking {
    private ConditionTracking() {
    }

    /** Output 0 of {@code c}'s node with its condition, or {@code inferred} unchanged. */
    public static TensorInfo apply(InferenceContext c, TensorInfo inferred) {
        if (inferred == null || !OpRegistry.canonicalDomain(c.domain()).isEmpty() || oneElementKnown(inferred)) {
            return inferred;
        }
        OpRegistry.Entry entry = OpRegistry.DEFAULT.entry(c.domain(), c.opType());
        ConditionRule rule = entry == null ? null : entry.condition();
        TensorInfo a = c.input(0);
        if (a == null || rule == null) {
            return inferred;
        }
        SymCondition cond;
        if (rule instanceof ConditionRule.Compares k) {
            cond = c.input(1) == null ? null : SymCondition.compare(k.comparison(), a.ints, c.input(1).ints);
        } else if (rule instanceof ConditionRule.Negates) {
            SymCondition x = SymCondition.of(a);
            cond = x == null ? null : new SymCondition.Not(x);
        } else if (rule instanceof ConditionRule.Combines l) {
            SymCondition x = SymCondition.of(a);
            SymCondition y = SymCondition.of(c.input(1));
            cond = x == null || y == null ? null : new SymCondition.Logical(l.logic(), x, y);
        } else {
            cond = a.condition; // passes through
        }
        if (cond == null || !oneElement(inferred)) {
            return inferred;
        }
        var decided = cond.evaluate(Map.of());
        if (decided.isPresent() && (inferred.type == DataType.BOOL || ElementValues.isInteger(inferred.type))) {
            return new TensorInfo(inferred.type, inferred.shape, new SymInt[]{SymInt.of(decided.get() ? 1 : 0)},
                    null);
        }
        return inferred.withCondition(cond);
    }

    private static boolean oneElementKnown(TensorInfo t) {
        return t.ints != null && t.ints.length == 1 && t.ints[0].isConst();
    }

    /** Whether {@code t} is statically one element (a scalar, or every extent 1). */
    private static boolean oneElement(TensorInfo t) {
        if (t.shape == null) {
            return false;
        }
        for (var d : t.shape) {
            if (!(d instanceof Dim.Fixed f) || f.extent() != 1) {
                return false;
            }
        }
        return true;
    }
}
