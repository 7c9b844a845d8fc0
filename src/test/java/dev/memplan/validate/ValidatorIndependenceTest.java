// SPDX-License-Identifier: Apache-2.0
package dev.memplan.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.MemPlan;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The validator's independence, checked on its compiled classes: being in its own package, the
 * compiler already refuses package-private access to {@code dev.memplan}; this refuses engine
 * types and the planning entry points, so the validator never recomputes a plan with the code it
 * checks.
 */
@EngineIndependent
class ValidatorIndependenceTest {
    /** Class names (in the class-file form javac writes into the constant pool) the validator must not use. */
    private static final List<String> FORBIDDEN = List.of("dev/memplan/engine/", "dev/memplan/MemPlan",
            "dev/memplan/EngineSelector");
    private static final List<Class<?>> VALIDATOR = List.of(PlanValidator.class, PlanValidationException.class,
            IndependentLiveness.class, ArenaCheck.class, Problems.class);

    @Test
    void validatorClassesNameNoEngineType() throws IOException {
        List<String> found = new ArrayList<>();
        for (Class<?> c : VALIDATOR) {
            for (String name : forbiddenNames(c)) {
                found.add(c.getSimpleName() + " uses " + name);
            }
        }
        assertEquals(List.of(), found, "the validator must use only the public dev.memplan API, never the engines");
    }

    @Test
    void detectsACallerOfTheEngines() throws IOException {
        assertTrue(forbiddenNames(MemPlan.class).contains("dev/memplan/engine/"),
                "MemPlan calls the engines, so the check must see it");
    }

    private static List<String> forbiddenNames(Class<?> c) throws IOException {
        String resource = c.getName().substring(c.getPackageName().length() + 1) + ".class";
        try (InputStream in = c.getResourceAsStream(resource)) {
            // constant-pool names are modified UTF-8, which is ASCII for these names
            String bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            return FORBIDDEN.stream().filter(bytes::contains).toList();
        }
    }
}
