// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.onnx.ImportOptions.ViewPolicy;
import dev.memplan.onnx.symbols.SymCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The facts each registry entry carries beyond its shape rule, written out: they are the sets the
 * constant folder, the view policy, condition tracking and the fold decision kept for themselves
 * before the registry held them, so a fact dropped or added by accident fails here.
 */
@EngineIndependent
class OpRegistryFactsTest {
    private static final String MS = "com.microsoft";

    private static Set<String> defaultDomainOps(Predicate<OpRegistry.Entry> has) {
        Set<String> ops = new TreeSet<>();
        for (OpRegistry.Entry e : OpRegistry.DEFAULT.entries()) {
            if (has.test(e)) {
                assertEquals("", e.domain(), e.opType() + ": only default-domain ops carry this fact");
                ops.add(e.opType());
            }
        }
        return ops;
    }

    @Test
    void viewsAreOrtsAliasesAndTheStridedThree() {
        assertEquals(Set.of("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"),
                defaultDomainOps(e -> OpRegistry.isView(ViewPolicy.ORT, e.domain(), e.opType())));
        assertEquals(Set.of("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Slice", "Transpose", "Expand"),
                defaultDomainOps(e -> OpRegistry.isView(ViewPolicy.STRIDED, e.domain(), e.opType())));
        assertEquals(Set.of(), defaultDomainOps(e -> OpRegistry.isView(ViewPolicy.NONE, e.domain(), e.opType())));
        assertTrue(OpRegistry.isView(ViewPolicy.ORT, "ai.onnx", "Reshape"));
        assertFalse(OpRegistry.isView(ViewPolicy.STRIDED, MS, "Transpose"), "no other domain's op is a view");
        assertFalse(OpRegistry.isView(ViewPolicy.STRIDED, "", "NoSuchOp"));
    }

    @Test
    void foldsAreTheFoldersOldSets() {
        assertEquals(new TreeSet<>(Set.of("Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Add", "Sub", "Mul",
                        "Div", "Max", "Min", "Mod", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
                        "Transpose", "Slice", "Concat", "Gather", "Cast", "Where", "Expand", "Tile", "ConstantOfShape")),
                defaultDomainOps(e -> e.fold() != null));
        assertEquals(Set.of("Shape", "Size"), defaultDomainOps(OpRegistry.Entry::valueFromShape));
    }

    @Test
    void conditionsAreCarriedByComparisonsLogicAndElementMoves() {
        assertEquals(Set.of("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"),
                defaultDomainOps(e -> e.condition() instanceof ConditionRule.Compares));
        assertEquals(Set.of("And", "Or", "Xor"), defaultDomainOps(e -> e.condition() instanceof ConditionRule.Combines));
        assertEquals(Set.of("Not"), defaultDomainOps(e -> e.condition() instanceof ConditionRule.Negates));
        assertEquals(Set.of("Identity", "Squeeze", "Unsqueeze", "Reshape", "Flatten", "Cast", "Expand"),
                defaultDomainOps(e -> e.condition() instanceof ConditionRule.PassesThrough));
        assertEquals(new ConditionRule.Compares(SymCondition.Comparison.LESS_OR_EQUAL),
                OpRegistry.DEFAULT.entry("", "LessOrEqual").condition());
    }

    @Test
    void theImportersOwnOpsAreEntriesWithoutARule() {
        assertEquals(Set.of("Constant", "If", "Loop", "Scan"),
                new TreeSet<>(OpRegistry.DEFAULT.structural().stream().map(OpRegistry.Entry::opType).toList()));
        assertEquals(OpRegistry.Structure.SCAN, OpRegistry.DEFAULT.structure("ai.onnx", "Scan"));
        assertNull(OpRegistry.DEFAULT.rule("", "If"), "If has no shape rule: its bodies are imported");
        assertNull(OpRegistry.DEFAULT.structure(MS, "If"));
        assertFalse(OpRegistry.Structure.CONSTANT.isControlFlow());
        assertTrue(OpRegistry.Structure.LOOP.isControlFlow());
    }

    @Test
    void opsetRangesAreListingOnly() {
        // Upsample is listed for opsets 1 to 9 and LayerNormalization from 17; lookups ignore both, as
        // ONNX Runtime runs them outside those ranges
        OpRegistry.Entry upsample = OpRegistry.DEFAULT.entry("", "Upsample");
        assertEquals(9, upsample.lastVersion());
        assertNotNull(OpRegistry.DEFAULT.rule("", "Upsample"));
        assertEquals(17, OpRegistry.DEFAULT.entry("", "LayerNormalization").sinceVersion());
        assertNotNull(OpRegistry.DEFAULT.rule("", "LayerNormalization"));
    }

    @Test
    void aRegistryRefusesDuplicatesAndInPlaceOutsideTheDefaultDomain() {
        OpRegistry r = new OpRegistry();
        r.add("", "Relu", 1, (c, out) -> { });
        assertThrows(IllegalStateException.class, () -> r.add("ai.onnx", "Relu", 1, (c, out) -> { }));
        OpRegistry.Registration contrib = r.add(MS, "Relu", 1, (c, out) -> { });
        assertThrows(IllegalStateException.class, () -> contrib.inPlace("a test", 0));
        assertNull(r.entry(MS, "Relu").inPlace());
        r.add("", "Abs", 1, (c, out) -> { }).inPlace("a test", 0).fold((c, inferred) -> null);
        OpRegistry.Entry abs = r.entry("", "Abs");
        assertEquals("a test", abs.inPlace().source());
        assertNotNull(abs.fold(), "a later fact keeps the earlier ones");
    }
}
