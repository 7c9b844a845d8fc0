// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ort runtime treats a model as untrusted input, through the command line in a child JVM whose
 * stderr and temporary directory are its own: ONNX Runtime prints nothing (its native logger writes
 * to file descriptor 2, which no Java stream captures), memplan's one line is escaped and names the
 * tensor, external data outside the model's folder is refused before ORT reads it, If nesting is
 * bounded, and no file is left in the temporary directory, also after SIGTERM, and after SIGKILL
 * once the next process uses the ort runtime.
 */
@EngineIndependent
class OrtUntrustedModelTest {
    @TempDir
    static Path dir;
    /** Case name to the command line's answer: exit=N, lines=N, err=TEXT. */
    private static final Map<String, String> ANSWERS = new LinkedHashMap<>();
    private static Result childOfCli;

    /** A location holding an OSC title change, a screen clear, a forged line and a bidi override. */
    static final String HOSTILE = "\u001b]0;pwned\u0007\u001b[2J\nmemplan: forged line\u202egpj.bin";

    /** A child's exit status and output. */
    private record Result(int exit, String stdout, String stderr) {
    }

    private static Path tmp() throws Exception {
        return Files.createDirectories(dir.resolve("tmp"));
    }

    private static Result child(String... args) throws Exception {
        java.lang.Process p = start(args);
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the child did not end");
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8),
                new String(err, StandardCharsets.UTF_8));
    }

    private static java.lang.Process start(String... args) throws Exception {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + tmp(), "-cp", cp, OrtChildProbe.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).start();
    }

    @BeforeAll
    static void runTheCommandLineOnHostileModels() throws Exception {
        Path models = Files.createDirectories(dir.resolve("models"));
        Files.write(models.resolve("weights.bin"), new byte[16]);
        Files.createSymbolicLink(models.resolve("passwd.bin"), Path.of("/etc/passwd"));
        Map<String, Path> cases = new LinkedHashMap<>();
        cases.put("missing", OrtTestModels.externalDataModel(models, "missing.onnx", "absent.bin", -1, -1));
        cases.put("dev-zero", OrtTestModels.externalDataModel(models, "dev-zero.onnx", "/dev/zero", 0, 16));
        cases.put("proc-environ", OrtTestModels.externalDataModel(models, "proc.onnx", "/proc/self/environ", 0, 16));
        cases.put("offset-2^62", OrtTestModels.externalDataModel(models, "offset.onnx", "weights.bin", 1L << 62, 16));
        cases.put("hostile-name", OrtTestModels.externalDataModel(models, "hostile.onnx", HOSTILE, 0, 16));
        cases.put("etc-passwd", OrtTestModels.externalDataModel(models, "passwd.onnx", "/etc/passwd", 0, 16));
        cases.put("dot-dot", OrtTestModels.externalDataModel(models, "dotdot.onnx", "../../../../etc/passwd", 0, 16));
        cases.put("link-out", OrtTestModels.externalDataModel(models, "link.onnx", "passwd.bin", 0, 16));
        cases.put("inside", OrtTestModels.externalDataModel(models, "inside.onnx", "weights.bin", 0, 16));
        cases.put("ort-refuses", OrtTestModels.unloadableModel(models));
        // inside the folder and long enough for memplan's check, shorter than the tensor for ORT, whose
        // logger printed a coloured "Exception during initialization" line with its source path for it
        cases.put("ort-refuses-data", OrtTestModels.externalDataModel(models, "short.onnx", "weights.bin", 0, 8));
        cases.put("nested-12", OrtTestModels.nestedIfModel(models, OrtModelCheck.MAX_NESTING));
        cases.put("nested-13", OrtTestModels.nestedIfModel(models, OrtModelCheck.MAX_NESTING + 1));
        List<String> runs = new ArrayList<>();
        for (Path model : cases.values()) {
            runs.add(String.join("\t", "plan", "--runtime", "ort", model.toString()));
        }
        Path runsFile = Files.write(dir.resolve("runs.txt"), runs);
        childOfCli = child("cli", runsFile.toString());
        List<String> lines = childOfCli.stdout().lines().toList();
        assertEquals(cases.size(), lines.size(), "child output: " + childOfCli.stdout() + childOfCli.stderr());
        int i = 0;
        for (String name : cases.keySet()) {
            ANSWERS.put(name, lines.get(i++));
        }
    }

    private static String err(String answer) {
        return answer.substring(answer.indexOf("err=") + 4);
    }

    /** One line, exit 1, escaped, naming the tensor, with memplan's refusal and no word of ORT's. */
    private static void refused(String name, String why) {
        String answer = ANSWERS.get(name);
        assertTrue(answer.startsWith("exit=1\tlines=1\terr=memplan: "), name + ": " + answer);
        assertTrue(answer.contains(": the external data of tensor 'w'"), name + ": " + answer);
        assertTrue(answer.contains("the ort runtime refuses it before ONNX Runtime reads it"), name + ": " + answer);
        assertTrue(answer.contains(why), name + ": " + answer);
        assertFalse(answer.contains("Exception"), name + ": " + answer);
        assertTrue(answer.chars().allMatch(c -> c >= 0x20 && c < 0x7f || c == '\t'), name + ": not escaped: " + answer);
    }

    @Test
    void ortPrintsNothingOfItsOwn() {
        assertEquals("", childOfCli.stderr(), "ONNX Runtime (or the JVM) wrote to the process's stderr");
        for (String name : new String[] {"ort-refuses", "ort-refuses-data"}) {
            String answer = ANSWERS.get(name);
            assertTrue(answer.startsWith("exit=1\tlines=1\terr=memplan: "), answer);
            assertTrue(answer.contains(": ONNX Runtime cannot load the model: "), answer);
            assertFalse(answer.contains("Exception"), answer);
        }
    }

    @Test
    void externalDataThatOrtCannotReadIsRefusedNamingTheTensor() {
        refused("missing", "(\"absent.bin\") does not exist in the model's folder");
        refused("dev-zero", "(\"/dev/zero\") is an absolute path");
        refused("proc-environ", "(\"/proc/self/environ\") is an absolute path");
        refused("offset-2^62", "is 16 bytes, and the tensor reads from byte 4611686018427387904");
    }

    @Test
    void aHostileLocationReachesTheTerminalEscaped() {
        refused("hostile-name", "does not exist in the model's folder");
        String err = err(ANSWERS.get("hostile-name"));
        assertTrue(err.contains("\\x1b]0;pwned\\x07\\x1b[2J\\nmemplan: forged line\\u202egpj.bin"), err);
    }

    @Test
    void externalDataOutsideTheModelsFolderIsNeverRead() {
        refused("etc-passwd", "(\"/etc/passwd\") is an absolute path");
        refused("dot-dot", "leaves the model's folder (..)");
        refused("link-out", "(\"passwd.bin\") is a link to a file outside the model's folder");
        assertTrue(ANSWERS.get("inside").startsWith("exit=0\t"), "data beside the model: " + ANSWERS.get("inside"));
    }

    @Test
    void ifNestingIsBounded() {
        assertTrue(ANSWERS.get("nested-12").startsWith("exit=0\t"), ANSWERS.get("nested-12"));
        String answer = ANSWERS.get("nested-13");
        assertTrue(answer.startsWith("exit=1\tlines=1\terr=memplan: "), answer);
        assertTrue(answer.contains("nests subgraphs (If branches, Loop or Scan bodies) more than 12 deep"), answer);
    }

    @Test
    void aRunLeavesNoFileBehind() throws Exception {
        try (Stream<Path> left = Files.list(tmp())) {
            assertEquals(List.of(), left.filter(p -> isOrtsOrMemplans(p)).toList());
        }
    }

    private static boolean isOrtsOrMemplans(Path p) {
        String name = p.getFileName().toString();
        return name.startsWith("memplan-ort-") || name.startsWith("onnxruntime-java");
    }

    @Test
    void sigtermAndSigkillLeaveNothingOnceTheNextRunStarts() throws Exception {
        java.lang.Process terminated = start("hold");
        awaitReady(terminated);
        terminated.destroy(); // SIGTERM: the shutdown hook deletes the scratch folder
        assertTrue(terminated.waitFor(60, TimeUnit.SECONDS));
        assertEquals(List.of(), leftBy(terminated.pid()), "after SIGTERM");

        java.lang.Process killed = start("hold");
        awaitReady(killed);
        killed.destroyForcibly(); // SIGKILL: no hook runs
        assertTrue(killed.waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, leftBy(killed.pid()).size(), "SIGKILL should leave the folder for the next run to sweep");
        // what a killed ORT Java left: its library copy, stale; a fresh one another process may be filling
        Path stale = Files.createDirectories(tmp().resolve("onnxruntime-java123"));
        Files.write(stale.resolve("libonnxruntime.so"), new byte[8]);
        Files.setLastModifiedTime(stale, FileTime.from(Instant.now().minus(OrtTempFiles.STALE.multipliedBy(2))));
        Path fresh = Files.createDirectories(tmp().resolve("onnxruntime-java456"));
        Files.write(fresh.resolve("libonnxruntime.so"), new byte[8]);
        Path unrelated = Files.createDirectories(tmp().resolve("onnxruntime-java789"));
        Files.writeString(unrelated.resolve("notes.txt"), "not ORT's");
        Files.setLastModifiedTime(unrelated, FileTime.from(Instant.now().minus(OrtTempFiles.STALE.multipliedBy(2))));

        // the model is a resource of memplan-ort's test jar: copied out, as it is no file here
        Path model = dir.resolve("if-out-16000.onnx");
        try (InputStream in = OrtIfBranchTest.class.getResourceAsStream("/ort/if/if-out-16000.onnx")) {
            Files.copy(in, model);
        }
        Path runs = Files.write(dir.resolve("one-run.txt"), List.of(String.join("\t", "plan", "--runtime", "ort",
                model.toString(), "--bind", "n=100")));
        Result next = child("cli", runs.toString());
        assertTrue(next.stdout().startsWith("exit=0\t"), next.stdout() + next.stderr());
        assertEquals(List.of(), leftBy(killed.pid()), "the next run sweeps the killed process's folder");
        assertFalse(Files.exists(stale), "a stale ORT Java copy of a dead process is swept");
        assertTrue(Files.exists(fresh), "a fresh one may be another process's, being filled");
        assertTrue(Files.exists(unrelated), "a folder holding other files is not ORT Java's");
        OrtTempFiles.deleteTree(fresh);
        OrtTempFiles.deleteTree(unrelated);
    }

    private static void awaitReady(java.lang.Process p) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertTrue(line != null && line.startsWith("ready "), "the child said " + line);
    }

    private static List<Path> leftBy(long pid) throws Exception {
        try (Stream<Path> left = Files.list(tmp())) {
            return left.filter(p -> p.getFileName().toString().startsWith("memplan-ort-" + pid + "-")).toList();
        }
    }
}
