// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memplan.Admission;
import dev.memplan.InvalidSizeException;
import dev.memplan.onnx.TestOnnxModels;
import dev.memplan.validate.PlanValidator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bindings no plan should be made at are refused on every way into a compiled model, each with one
 * line naming the symbol or what is null: {@link CompiledModel#plan}, {@link PlanCache#plan},
 * {@link CompiledModel#reservationBytes} and {@link Admission} over it.
 */
class BindingChecksTest {
    @TempDir
    static Path dir;
    private static CompiledModel model;

    @BeforeAll
    static void compile() throws IOException {
        Path file = dir.resolve("mlp.onnx");
        Files.write(file, TestOnnxModels.mlp("batch", 16, "mlp"));
        model = CompiledModel.compile(file);
    }

    /** The ways in that take bindings, each made to plan once at {@code bindings}. */
    private static Map<String, Consumer<Map<String, Long>>> waysIn() {
        PlanCache cache = PlanCache.of(model, 10, Bucketing.none());
        return Map.of("CompiledModel.plan", model::plan, "PlanCache.plan", cache::plan,
                "CompiledModel.reservationBytes", model::reservationBytes);
    }

    @Test
    void aGoodBindingPlans() {
        PlanValidator.validate(model.plan(Map.of("batch", 2L)).plan(), Map.of("batch", 2L));
        assertEquals(java.util.List.of("batch"), model.symbols());
    }

    @Test
    void anUnknownSymbolIsRefusedNamingItAndTheModelsSymbols() {
        waysIn().forEach((way, plan) -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> plan.accept(Map.of("batch", 2L, "btach", 3L)), way);
            assertEquals("the model " + model.name() + " has no symbol 'btach'; its symbols are [batch]: correct the"
                    + " name or remove the binding", e.getMessage(), way);
        });
    }

    @Test
    void aNegativeBindingIsAnInvalidSize() {
        waysIn().forEach((way, plan) -> {
            InvalidSizeException e = assertThrows(InvalidSizeException.class, () -> plan.accept(Map.of("batch", -2L)),
                    way);
            assertEquals("symbol 'batch' is bound to -2; bind it to a value >= 0", e.getMessage(), way);
        });
    }

    @Test
    void nullsAreNamed() {
        Map<String, Long> nullValue = new HashMap<>();
        nullValue.put("batch", null);
        Map<String, Long> nullSymbol = new HashMap<>();
        nullSymbol.put(null, 3L);
        waysIn().forEach((way, plan) -> {
            assertEquals("symbol 'batch' is bound to null; bind it to a value >= 0",
                    assertThrows(NullPointerException.class, () -> plan.accept(nullValue), way).getMessage(), way);
            assertEquals("a binding has a null symbol name (bound to 3); name one of the symbols of " + model.name()
                    + ": [batch]", assertThrows(NullPointerException.class, () -> plan.accept(nullSymbol), way)
                    .getMessage(), way);
            assertEquals("the bindings are null; pass a map of symbol name to value (an empty map when binding"
                    + " nothing)", assertThrows(NullPointerException.class, () -> plan.accept(null), way).getMessage(),
                    way);
        });
        assertEquals("the symbol to search over is null; name one of [batch]", assertThrows(NullPointerException.class,
                () -> Admission.largestFitting(model, null, Map.of(), 1L << 30, 64)).getMessage());
        assertEquals("the other symbols' bindings are null; pass a map (an empty map when there are none)",
                assertThrows(NullPointerException.class,
                        () -> Admission.largestFitting(model, "batch", null, 1L << 30, 64)).getMessage());
    }

    /** Searching over a symbol the model does not have would answer the top of the range, as if every value fitted. */
    @Test
    void admissionRefusesASymbolTheModelDoesNotHave() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Admission.largestFitting(model, "sequence", Map.of("batch", 1L), 1L << 30, 1 << 20));
        assertEquals("there is no symbol 'sequence' to search over; the symbols are [batch]: correct the name",
                e.getMessage());
        assertEquals("the model " + model.name() + " has no symbol 'seq'; its symbols are [batch]: correct the name or"
                + " remove the binding", assertThrows(IllegalArgumentException.class,
                        () -> Admission.largestFitting(model, "batch", Map.of("seq", 1L), 1L << 30, 64)).getMessage());
    }
}
