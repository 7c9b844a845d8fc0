// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.onnx.TestOnnxModels;
import dev.memplan.testing.EngineIndependent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command over a corpus of broken and unsupported models and hostile files: no output, on
 * stdout or stderr, names a Java or library class ({@code Exception}, {@code java.}, a package of
 * memplan or of its libraries), and no run is an internal error. The corpus holds the edge cases:
 * a 20,000,001-character JSON string and CSV field, protobuf nested past its recursion limit,
 * JSON with comments or NaN, a shape rule that reads past an input's dims, an unknown op, control
 * characters and unpaired surrogates in names.
 */
@EngineIndependent
class NoClassNameCorpusTest {
    private static final List<String> FORBIDDEN = List.of("Exception", "java.", "dev.memplan", "com.fasterxml",
            "com.google.protobuf", "picocli", "org.bytedeco", "Error:");
    private static final Set<Integer> DOCUMENTED = Set.of(ExitCode.OK, ExitCode.INPUT, ExitCode.USAGE,
            ExitCode.DEFERRED);

    @TempDir
    Path dir;

    @Test
    void noCommandNamesAClassOverTheHostileCorpus() throws IOException {
        List<Path> models = onnxCorpus();
        List<Path> graphs = jsonCorpus();
        List<Path> problems = csvCorpus();
        List<String> failures = new ArrayList<>();
        int runs = 0;
        for (Path f : concat(models, graphs)) {
            boolean onnx = f.toString().endsWith(".onnx");
            List<List<String>> commands = new ArrayList<>(List.of(
                    List.of("plan", f.toString()),
                    List.of("plan", "--format", "json", f.toString()),
                    List.of("plan", "--timeline", "--bind", "batch=2", f.toString()),
                    List.of("plan", "--format", "json", "--bind", "batch=2", f.toString()),
                    List.of("plan", "--bind", "no_such_symbol=1", f.toString()),
                    List.of("draw", "--bind", "batch=2", f.toString(), "-o", dir.resolve("out.html").toString()),
                    List.of("draw", "--bind", "batch=2", f.toString(), "-o", dir.resolve("out.svg").toString())));
            if (onnx) {
                commands.add(List.of("symbols", f.toString()));
                commands.add(List.of("symbols", "--format", "json", f.toString()));
            }
            for (List<String> args : commands) {
                runs++;
                check(CliRun.of(args.toArray(String[]::new)), args, failures);
            }
        }
        for (Path p : problems) {
            for (List<String> args : List.of(List.of("pack", p.toString()), List.of("pack", "--effort", "0", p.toString()))) {
                runs++;
                check(CliRun.of(args.toArray(String[]::new)), args, failures);
            }
        }
        for (List<String> args : List.of(List.of("ops"), List.of("demo", "--budget", "1KiB", "--batch", "1"),
                List.of("demo", "--budget", "lots"), List.of("plan", dir.resolve("missing.json").toString()),
                List.of("plan", dir.toString()), List.of("pack", dir.toString()), List.of("symbols", "x.json"),
                List.of("plan", "nul\u0000.json"), List.of("draw", "g.json", "-o", "x\u0000.svg"),
                List.of("plan", "--alignment", "1e400", "g.json"), List.of("pack", "--effort", "lots", "p.csv"))) {
            runs++;
            check(CliRun.of(args.toArray(String[]::new)), args, failures);
        }
        assertTrue(failures.isEmpty(), failures.size() + " of " + runs + " runs:\n" + String.join("\n", failures));
    }

    /** The corpus exercises what it claims: the Resize rule fails and says why in words. */
    @Test
    void aFailingShapeRuleIsReportedInWords() throws IOException {
        Path model = Files.write(dir.resolve("resize.onnx"), TestOnnxModels.resizeWithMoreSizesThanDims());
        CliRun run = CliRun.of("plan", model.toString());
        assertEquals(ExitCode.OK, run.exit(), run::toString);
        assertTrue(run.out().contains("inference  failed (shape) at ")
                && run.out().contains("sizes has 2 numbers for input 0 of rank 1"), run::toString);
        CliRun json = CliRun.of("plan", "--format", "json", model.toString());
        assertTrue(json.out().contains("\"inferenceFailures\"") && json.out().contains("sizes has 2 numbers"), json::toString);
    }

    /** Protobuf nested past its recursion limit: said in words, not with protobuf's setter. */
    @Test
    void deepNestingIsReportedInWords() throws IOException {
        Path model = Files.write(dir.resolve("deep.onnx"), deeplyNested(60));
        CliRun run = CliRun.of("plan", model.toString());
        assertEquals(ExitCode.INPUT, run.exit(), run::toString);
        assertTrue(run.err().contains("nested deeper than protobuf's limit of 100 levels"), run::toString);
    }

    /** A JSON string longer than Jackson's limit: said in words, not with Jackson's getter. */
    @Test
    void anOverlongJsonStringIsReportedInWords() throws IOException {
        CliRun run = CliRun.of("plan", longJsonString().toString());
        assertEquals(ExitCode.INPUT, run.exit(), run::toString);
        assertTrue(run.err().contains("exceeds the maximum allowed (20000000)") && !run.err().contains("`"),
                run::toString);
    }

    private void check(CliRun run, List<String> args, List<String> failures) {
        String all = run.out() + run.err();
        for (String word : FORBIDDEN) {
            if (all.contains(word)) {
                failures.add("'" + word + "' in the output of memplan " + String.join(" ", args) + ": " + cut(all));
                return;
            }
        }
        if (!DOCUMENTED.contains(run.exit())) {
            failures.add("exit " + run.exit() + " of memplan " + String.join(" ", args) + ": " + cut(all));
        }
    }

    private static String cut(String s) {
        return s.length() > 600 ? s.substring(0, 600) + "..." : s;
    }

    private List<Path> onnxCorpus() throws IOException {
        byte[] good = TestOnnxModels.mlp("batch", 8, "h\u001b[31m\ud800");
        List<Path> out = new ArrayList<>();
        out.add(Files.write(dir.resolve("good.onnx"), good));
        out.add(Files.write(dir.resolve("resize.onnx"), TestOnnxModels.resizeWithMoreSizesThanDims()));
        out.add(Files.write(dir.resolve("unknown-op.onnx"), TestOnnxModels.unknownOp()));
        out.add(Files.write(dir.resolve("deep.onnx"), deeplyNested(60)));
        out.add(Files.write(dir.resolve("empty.onnx"), new byte[0]));
        out.add(Files.write(dir.resolve("garbage.onnx"), "not a model at all\n".getBytes(StandardCharsets.UTF_8)));
        out.add(Files.write(dir.resolve("truncated.onnx"), Arrays.copyOf(good, good.length / 2)));
        out.add(Files.write(dir.resolve("negative-length.onnx"), new byte[] {0x3a, (byte) 0xff, (byte) 0xff,
            (byte) 0xff, (byte) 0xff, 0x0f}));
        byte[] flipped = good.clone();
        for (int i = 7; i < flipped.length; i += 13) {
            flipped[i] ^= (byte) 0x5a;
        }
        out.add(Files.write(dir.resolve("flipped.onnx"), flipped));
        return out;
    }

    private List<Path> jsonCorpus() throws IOException {
        String ok = "{\"values\":[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[\"batch\",4]},"
                + "{\"name\":\"h\\u202e\\ud800\",\"dtype\":\"float32\",\"shape\":[\"batch\",4]}],"
                + "\"inputs\":[\"x\"],\"outputs\":[\"h\\u202e\\ud800\"],"
                + "\"nodes\":[{\"op\":\"Relu\",\"inputs\":[\"x\"],\"outputs\":[\"h\\u202e\\ud800\"]}]}";
        List<Path> out = new ArrayList<>();
        out.add(Files.writeString(dir.resolve("hostile-names.json"), ok));
        out.add(Files.writeString(dir.resolve("comment.json"), "// a comment\n" + ok));
        out.add(Files.writeString(dir.resolve("nan.json"), ok.replace("4]}]", "NaN]}]")));
        out.add(Files.writeString(dir.resolve("deep.json"), "[".repeat(5000)));
        out.add(Files.writeString(dir.resolve("long-number.json"), ok.replace("\"batch\",4", "\"batch\","
                + "9".repeat(2000))));
        out.add(Files.writeString(dir.resolve("unknown-field.json"), ok.replace("\"inputs\"", "\"extra\":1,\"inputs\"")));
        out.add(Files.writeString(dir.resolve("truncated.json"), ok.substring(0, ok.length() / 2)));
        out.add(Files.write(dir.resolve("latin1.json"), ok.replace("x", "\u00e9").getBytes(StandardCharsets.ISO_8859_1)));
        out.add(Files.writeString(dir.resolve("control.json"), ok.replace("\"x\"", "\"x\u0001\"")));
        out.add(Files.writeString(dir.resolve("bad.txt"), ok));
        out.add(longJsonString());
        return out;
    }

    private List<Path> csvCorpus() throws IOException {
        List<Path> out = new ArrayList<>();
        out.add(Files.writeString(dir.resolve("esc.csv"), "id,lower,upper,size\n\u001b[31mred,0,5,1\n"));
        out.add(Files.writeString(dir.resolve("nul.csv"), "id,lower,upper,size\na,0,5,8\u0000\n"));
        out.add(Files.writeString(dir.resolve("quote.csv"), "id,lower,upper,size\n\"open,0,5,1\n"));
        out.add(Files.writeString(dir.resolve("wide.csv"), "id,lower,upper,size,x\n"));
        out.add(Files.write(dir.resolve("latin1.csv"), "id,lower,upper,size\n\u00e9,0,5,1\n"
                .getBytes(StandardCharsets.ISO_8859_1)));
        Path longField = dir.resolve("long.csv");
        try (Writer w = Files.newBufferedWriter(longField, StandardCharsets.UTF_8)) {
            w.write("id,lower,upper,size\n");
            w.write("x".repeat(20_000_001));
            w.write(",0,5,1\n");
        }
        out.add(longField);
        return out;
    }

    /** A graph file whose first name is a string of 20,000,001 characters. */
    private Path longJsonString() throws IOException {
        Path file = dir.resolve("long-string.json");
        if (!Files.exists(file)) {
            try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                w.write("{\"values\":[{\"name\":\"");
                w.write("x".repeat(20_000_001));
                w.write("\",\"dtype\":\"float32\",\"shape\":[4]}],\"nodes\":[]}");
            }
        }
        return file;
    }

    /**
     * A model whose graph nests {@code depth} graphs, each the body attribute of a node of the one
     * outside it: three protobuf messages per level (graph, node, attribute).
     */
    private static byte[] deeplyNested(int depth) throws IOException {
        byte[] inner = new byte[0];
        for (int i = 0; i < depth; i++) {
            byte[] attribute = concatBytes(field(1, "b".getBytes(StandardCharsets.UTF_8)), field(6, inner),
                    new byte[] {(byte) 0xa0, 0x01, 5}); // name "b", g = inner, type (field 20) GRAPH (5)
            byte[] node = concatBytes(field(4, "If".getBytes(StandardCharsets.UTF_8)), field(5, attribute));
            inner = field(1, node); // GraphProto.node
        }
        return concatBytes(new byte[] {0x08, 0x08}, field(7, inner)); // ir_version 8, graph
    }

    private static byte[] field(int number, byte[] payload) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write((number << 3) | 2);
        long n = payload.length;
        while (n >= 0x80) {
            out.write((int) (n & 0x7f) | 0x80);
            n >>>= 7;
        }
        out.write((int) n);
        out.write(payload);
        return out.toByteArray();
    }

    private static byte[] concatBytes(byte[]... parts) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.write(p);
        }
        return out.toByteArray();
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
