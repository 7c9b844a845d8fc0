// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.EngineMode;
import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.server.CompiledModel;
import dev.memplan.ort.OrtModel;
import dev.memplan.ort.OrtUnavailableException;
import dev.memplan.validate.PlanValidator;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Run by {@link OrtAbsentTest} inside a class loader that cannot see ONNX Runtime Java: reports, as
 * plain strings (the only type both loaders share), what the library and the command line do there.
 */
public final class OrtAbsentProbe {
    private OrtAbsentProbe() {
    }

    /**
     * Plans {@code model} with the memplan runtime, then asks for the ort runtime through the
     * library and the command line.
     *
     * @return the lines {@code key=value} the test checks
     */
    public static List<String> run(Path model) throws Exception {
        List<String> out = new ArrayList<>();
        // the Java engine: the native library is already loaded by the test's own class loader
        PlanOptions options = new PlanOptions(false, 1, EngineMode.JAVA, dev.memplan.PlanOptions.Strategy.OFFSETS,
                PlanOptions.DEFAULT_EFFORT);
        out.add("ortVisible=" + canSee("ai.onnxruntime.OrtSession"));
        out.add("present=" + OrtRuntimeProfile.ortJavaPresent());
        CompiledModel memplan = CompiledModel.compile(model, ImportOptions.defaults(), options);
        var plan = memplan.plan(Map.of("batch_size", 1L)).plan();
        PlanValidator.validate(plan);
        out.add("memplanAdmission=" + memplan.reservationBytes(Map.of("batch_size", 1L)).orElseThrow()
                + " peak=" + plan.peakBytes());
        try {
            OrtModel.compile(model, ImportOptions.defaults(), options, OrtModel.Level.ALL);
            out.add("ort=compiled");
        } catch (OrtUnavailableException e) {
            out.add("ort=" + e.getMessage());
        }
        StringWriter err = new StringWriter();
        StringWriter stdout = new StringWriter();
        Class<?> cli = Class.forName("dev.memplan.cli.MemplanCli");
        Object commandLine = cli.getDeclaredMethod("commandLine").invoke(null);
        Class<?> cl = commandLine.getClass();
        cl.getMethod("setOut", PrintWriter.class).invoke(commandLine, new PrintWriter(stdout, true));
        cl.getMethod("setErr", PrintWriter.class).invoke(commandLine, new PrintWriter(err, true));
        Object exit = cl.getMethod("execute", String[].class).invoke(commandLine, (Object) new String[] {
            "plan", "--engine", "java", "--runtime", "ort", "--bind", "batch_size=1", model.toString()});
        out.add("cliExit=" + exit);
        out.add("cliErr=" + err.toString().strip());
        return out;
    }

    private static boolean canSee(String name) {
        try {
            Class.forName(name, false, OrtAbsentProbe.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
