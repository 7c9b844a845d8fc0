// SPDX-License-Identifier: Apache-2.0
package dev.memplan.project;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Optional dependencies stay out of the public API: a server that does not put Jackson, picocli or
 * Caffeine on its class path can still compile against every exported package except
 * {@code dev.memplan.json}, whose whole job is Jackson trees (docs/library.md). Checked on the
 * signatures of every public or protected member of every public class in those packages.
 */
@EngineIndependent
class ApiDependenciesTest {
    /** memplan's own module and memplan-ort, whose exported package is dev.memplan.ort. */
    private static final Path CLASSES = Path.of("core/target/classes");
    private static final Path ORT_CLASSES = Path.of("ort/target/classes");
    private static final String ORT_PACKAGE = "dev.memplan.ort";
    /** A memplan type's package and simple name (a nested type's name follows a $ or a dot). */
    private static final Pattern MEMPLAN_TYPE = Pattern.compile("\\b(dev\\.memplan(?:\\.[a-z][a-z0-9]*)*)\\.([A-Z]\\w*)");
    private static final List<String> OPTIONAL = List.of("com.fasterxml.", "info.picocli.", "com.github.benmanes.",
            "ai.onnxruntime.", "org.apache.commons.");
    private static final String JSON_PACKAGE = "dev.memplan.json";
    /**
     * The classes whose whole job is to wrap ONNX Runtime Java's own session types; a server without
     * ORT Java never names them, and javac reads a class's signatures only when it is used.
     */
    private static final List<String> ORT_FACING = List.of("dev.memplan.ort.BoundedOrtArena",
            "dev.memplan.ort.BudgetedOrtSession"); // BoundedOrtArena.Stats counts as its top-level class

    @Test
    void noExportedPackageButJsonNamesAnOptionalDependency() throws IOException, ClassNotFoundException {
        List<String> exported = exportedPackages();
        assertFalse(exported.isEmpty(), "module-info.java exports nothing?");
        List<String> leaks = new ArrayList<>();
        int checked = 0;
        for (String pkg : exported) {
            if (pkg.equals(JSON_PACKAGE)) {
                continue;
            }
            for (Class<?> c : publicClassesOf(pkg)) {
                checked++;
                for (Type t : signatureTypes(c)) {
                    for (String prefix : OPTIONAL) {
                        boolean wrapsOrt = prefix.equals("ai.onnxruntime.") && ORT_FACING.contains(topLevel(c).getName());
                        if (t.getTypeName().contains(prefix) && !wrapsOrt) {
                            leaks.add(c.getName() + " names " + t.getTypeName());
                        }
                    }
                }
            }
        }
        assertFalse(checked < 20, "found only " + checked + " public classes under " + CLASSES.toAbsolutePath());
        assertEquals(List.of(), leaks);
    }

    /**
     * No exported signature names a type of a package the modules do not export (the importer's
     * {@code ImportedGraph}, {@code ControlFlowNode}, the protobuf {@code ModelProto}, engine or ORT
     * internals): a user could not name it, and it would tie the API to the internals.
     */
    @Test
    void noExportedSignatureNamesAnInternalType() throws IOException, ClassNotFoundException {
        List<String> exported = exportedPackages();
        List<String> leaks = new ArrayList<>();
        int checked = 0;
        for (String pkg : exported) {
            for (Class<?> c : publicClassesOf(pkg)) {
                checked++;
                for (Type t : signatureTypes(c)) {
                    Matcher m = MEMPLAN_TYPE.matcher(t.getTypeName());
                    while (m.find()) {
                        if (!exported.contains(m.group(1))) {
                            leaks.add(c.getName() + " names " + m.group(1) + "." + m.group(2));
                        }
                    }
                }
            }
        }
        assertFalse(checked < 20, "found only " + checked + " public classes");
        assertEquals(List.of(), leaks, "expose a read-only view in an exported package, or reach the internal"
                + " type through an internal package (ServerAccess, OnnxModelAccess)");
    }

    @Test
    void theInternalTypeCheckSeesAnInternalType() {
        // were the pattern blind, the check above would pass vacuously
        Matcher m = MEMPLAN_TYPE.matcher("java.util.List<dev.memplan.onnx.imports.ImportedGraph>");
        assertTrue(m.find());
        assertEquals("dev.memplan.onnx.imports", m.group(1));
        assertEquals("ImportedGraph", m.group(2));
    }

    private static List<String> exportedPackages() throws IOException {
        String module = Files.readString(Path.of("core/src/main/java/module-info.java"));
        Matcher m = Pattern.compile("(?m)^\\s*exports\\s+([\\w.]+)\\s*;").matcher(module);
        List<String> out = new ArrayList<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        out.add(ORT_PACKAGE);
        return out;
    }

    private static List<Class<?>> publicClassesOf(String pkg) throws IOException, ClassNotFoundException {
        Path dir = (pkg.equals(ORT_PACKAGE) ? ORT_CLASSES : CLASSES).resolve(pkg.replace('.', '/'));
        List<Class<?>> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.sorted().toList()) {
                String file = f.getFileName().toString();
                if (!file.endsWith(".class") || file.equals("package-info.class")) {
                    continue;
                }
                Class<?> c = Class.forName(pkg + "." + file.substring(0, file.length() - ".class".length()), false,
                        ApiDependenciesTest.class.getClassLoader());
                if (isVisible(c)) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    /** Public, and every class enclosing it public too. */
    private static boolean isVisible(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
            if (!Modifier.isPublic(k.getModifiers()) || k.isAnonymousClass() || k.isLocalClass()) {
                return false;
            }
        }
        return true;
    }

    private static List<Type> signatureTypes(Class<?> c) {
        List<Type> out = new ArrayList<>();
        if (c.getGenericSuperclass() != null) {
            out.add(c.getGenericSuperclass());
        }
        out.addAll(List.of(c.getGenericInterfaces()));
        List<Executable> members = new ArrayList<>(List.of(c.getDeclaredConstructors()));
        members.addAll(List.of(c.getDeclaredMethods()));
        for (Executable e : members) {
            if (exposed(e.getModifiers()) && !e.isSynthetic()) {
                out.addAll(List.of(e.getGenericParameterTypes()));
                out.addAll(List.of(e.getGenericExceptionTypes()));
                if (e instanceof Method method) {
                    out.add(method.getGenericReturnType());
                }
            }
        }
        for (Field f : c.getDeclaredFields()) {
            if (exposed(f.getModifiers()) && !f.isSynthetic()) {
                out.add(f.getGenericType());
            }
        }
        return out;
    }

    private static boolean exposed(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static Class<?> topLevel(Class<?> c) {
        Class<?> out = c;
        while (out.getEnclosingClass() != null) {
            out = out.getEnclosingClass();
        }
        return out;
    }
}
