// SPDX-License-Identifier: Apache-2.0
package dev.memplan.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.MemPlan;
import dev.memplan.SizeOracle;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
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
            "dev/memplan/EngineSelector",
            // the planner's size rule and in-place candidates: the validator derives both again
            "dev/memplan/TensorSizes", "bytesAt", "dev/memplan/SizeOracle", "dev/memplan/InPlaceCandidates",
            "elementCount",
            "evaluate");

    /** Every class file of the validator's package, nested and synthetic classes included. */
    private static List<Class<?>> validatorClasses() throws IOException, URISyntaxException, ClassNotFoundException {
        Path dir = Path.of(PlanValidator.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve(PlanValidator.class.getPackageName().replace('.', '/'));
        List<Class<?>> classes = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.sorted().toList()) {
                String file = f.getFileName().toString();
                if (file.endsWith(".class") && !file.equals("package-info.class")) {
                    classes.add(Class.forName(PlanValidator.class.getPackageName() + "."
                            + file.substring(0, file.length() - ".class".length())));
                }
            }
        }
        return classes;
    }

    @Test
    void validatorClassesNameNoEngineType() throws Exception {
        List<Class<?>> classes = validatorClasses();
        for (Class<?> known : List.of(PlanValidator.class, PlanValidationException.class, IndependentLiveness.class,
                IndependentInPlace.class, IndependentSizes.class, ArenaCheck.class, Problems.class)) {
            assertTrue(classes.contains(known), known + " is found by the listing");
        }
        List<String> found = new ArrayList<>();
        for (Class<?> c : classes) {
            for (String name : forbiddenNames(c)) {
                found.add(c.getName() + " uses " + name);
            }
        }
        assertEquals(List.of(), found, "the validator must use only the public dev.memplan API, never the engines,"
                + " and derive sizes and in-place links with its own code");
    }

    @Test
    void detectsAUserOfTheSizeRule() throws IOException {
        assertTrue(forbiddenNames(SizeOracle.class).contains("bytesAt"),
                "SizeOracle sizes with Value.bytesAt, so the check must see it");
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
