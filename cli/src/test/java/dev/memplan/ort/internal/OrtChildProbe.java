// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.cli.MemplanCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;

/**
 * The main class of {@link OrtUntrustedModelTest}'s child JVMs, whose own stderr (file descriptor
 * 2, where ONNX Runtime's native logger writes) and temporary directory the test inspects.
 * <ul>
 * <li>{@code cli FILE}: runs the command line in this process once per line of FILE (its
 * arguments separated by tabs), and prints per run {@code exit=N<TAB>lines=N<TAB>err=TEXT}, TEXT
 * being memplan's stderr with line breaks shown as {@code <LF>}.</li>
 * <li>{@code hold}: makes the ort runtime's scratch file, prints {@code ready}, and waits to be
 * killed.</li>
 * </ul>
 */
public final class OrtChildProbe {
    private OrtChildProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("hold")) {
            Path file = OrtTempFiles.newFile(".onnx");
            Files.writeString(file, "a graph ORT is writing");
            System.out.println("ready " + file);
            System.out.flush();
            Thread.sleep(120_000);
            return;
        }
        List<String> runs = Files.readAllLines(Path.of(args[1]));
        for (String run : runs) {
            StringWriter err = new StringWriter();
            CommandLine cli = MemplanCli.commandLine();
            cli.setOut(new PrintWriter(new StringWriter(), true));
            cli.setErr(new PrintWriter(err, true));
            int exit = cli.execute(run.split("\t"));
            String text = err.toString().strip();
            System.out.println("exit=" + exit + "\tlines=" + text.lines().count() + "\terr=" + text.replace("\n", "<LF>"));
        }
    }
}
