// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.EngineMode;
import dev.memplan.MemPlan;
import dev.memplan.MemplanException;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.io.UnsafeChars;
import dev.memplan.json.GraphJson;
import dev.memplan.onnx.ImportOptions.ViewPolicy;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.TestOnnxModels;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertTrue;



/**
 * The hostile-input run: 10,000 seeded command lines over mutated graph files and ONNX
 * models, special files, names with control characters, huge dims and odd options, each run in
 * process through picocli. Every run must end within 5 s with a documented exit code; stderr is
 * one line per message (each starting "memplan"), without a stack trace; nothing raw from an input
 * reaches stdout or stderr; and every exit 0 agrees with the library planning the same file on
 * its own, its plan passing the {@link PlanValidator}. Engine-independent (the engines' agreement
 * is tested elsewhere), so it runs once ({@link EngineIndependent}).
 */
@EngineIndependent
class HostileFuzzTest {
    private static final int CASES = 10_000;
    private static final long SEED = 0x5eed_11L;
    private static final long TIMEOUT_MS = 5_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern NUMBER = Pattern.compile("-?[0-9]+");
    private static final Pattern STRING = Pattern.compile("\"([a-zA-Z_][a-zA-Z0-9_]*)\"");
    private static final String[] HUGE = {"4611686018427387904", "9223372036854775807", "9223372036854775808",
            "-1", "0", "1e400", "99999999999999999999999", "2147483648", "3.5"};
    private static final String[] EVIL_NAMES = {"\\u001b[31mred", "line\\nmemplan: forged", "tab\\there", "nul\\u0000",
            "bidi\\u202eevil", "bell\\u0007", "c1\\u009b2J", "seq ", " seq", "emoji\\ud83d\\ude00", "lone\\ud800",
            "iso\\u2066late\\u2069", "rlm\\u200f", "alm\\u061c", "nel\\u0085", "del\\u007f", "ls\\u2028", "zw\\u200b"};
    /** Words that name a Java or library class: none may reach a user. */
    private static final List<String> CLASS_NAMES = List.of("Exception", "java.", "dev.memplan", "com.fasterxml",
            "com.google.protobuf", "picocli", "org.bytedeco");
    /** A packing problem for the pack cases; mutated with raw control characters and long fields. */
    private static final String CSV = "id,lower,upper,size\na,0,10,100\nb,5,20,50\nc,20,30,100\n";
    private static final byte[][] BAD_BYTES = {{(byte) 0xff}, {(byte) 0xc3, 0x28}, {(byte) 0xed, (byte) 0xa0,
            (byte) 0x80}, {0}, {0x1b, '[', '2', 'J'}, {'\n'}, {(byte) 0xfe, (byte) 0xff}, {(byte) 0xef, (byte) 0xbb,
            (byte) 0xbf}};

    private final List<byte[]> jsonBases = new ArrayList<>();
    private final List<byte[]> onnxBases = new ArrayList<>();
    private final Map<String, Integer> outcomes = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();
    private final Map<String, Long> millis = new LinkedHashMap<>();

    @Test
    void tenThousandHostileCommandLines(@TempDir Path dir) throws Exception {
        loadBases();
        List<Path> special = specialFiles(dir);
        ExecutorService runner = daemonRunner();
        try {
            for (int i = 0; i < CASES && problems.size() < 20; i++) {
                Random r = new Random(SEED + i * 0x9E3779B97F4A7C15L);
                Path caseDir = Files.createDirectories(dir.resolve("c" + (i % 8)));
                Case c = makeCase(i, r, caseDir, special);
                long start = System.nanoTime();
                Future<CliRun> run = runner.submit(() -> CliRun.of(c.args()));
                CliRun result;
                try {
                    result = run.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    problems.add("case " + i + " (" + c.what() + "): no answer within 5 s: " + List.of(c.args()));
                    runner.shutdownNow();
                    runner = daemonRunner(); // the stuck thread is a daemon: it cannot keep the JVM alive
                    continue;
                }
                check(i, c, result);
                millis.merge(c.what(), (System.nanoTime() - start) / 1_000_000, Long::sum);
            }
        } finally {
            runner.shutdownNow();
        }
        System.out.println("HostileFuzzTest: outcomes " + outcomes + ", milliseconds by kind " + millis);
        assertTrue(problems.isEmpty(), problems.size() + " problems, the first:\n" + String.join("\n\n", problems));
        assertTrue(outcomes.getOrDefault("exit 0", 0) > CASES / 20 && outcomes.getOrDefault("exit 1", 0) > CASES / 10,
                "the cases reach both plans and errors: " + outcomes);
    }

    private static ExecutorService daemonRunner() {
        return Executors.newSingleThreadExecutor(task -> {
            Thread t = new Thread(task, "hostile-fuzz");
            t.setDaemon(true);
            return t;
        });
    }

    // ---- inputs

    private void loadBases() throws IOException {
        for (String example : List.of("examples/views.json", "examples/transformer_block.json",
                "examples/resnet_block.json")) {
            jsonBases.add(Files.readAllBytes(Path.of(example)));
        }
        jsonBases.add(HostileInputTest.graph("x", "h", "y", "batch").getBytes(StandardCharsets.UTF_8));
        jsonBases.add(HostileInputTest.graph("x", "h", "y", "seq", "batch").getBytes(StandardCharsets.UTF_8));
        onnxBases.add(TestOnnxModels.mlp("batch", 64, "mm"));
        onnxBases.add(TestOnnxModels.mlp(2L, 16, "mm\u001b[31m\nforged"));
        onnxBases.add(TestOnnxModels.mlp(1L << 62, 64, "huge"));
        onnxBases.add(TestOnnxModels.mlp("seq\u0000", 8, "mm"));
        Path shared = SharedModels.dir().resolve("onnx-light");
        for (String model : List.of("light_squeezenet.onnx", "light_inception_v1.onnx")) {
            Path p = shared.resolve(model);
            if (Files.isRegularFile(p)) {
                onnxBases.add(Files.readAllBytes(p));
            }
        }
    }

    private static List<Path> specialFiles(Path dir) throws IOException, InterruptedException {
        List<Path> out = new ArrayList<>();
        for (String name : List.of("fifo.json", "fifo.onnx")) {
            Path fifo = dir.resolve(name);
            if (new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0) {
                out.add(fifo);
            }
        }
        out.add(Files.createDirectory(dir.resolve("folder.json")));
        out.add(Files.createDirectory(dir.resolve("folder.onnx")));
        for (String device : List.of("/dev/zero", "/dev/null", "/dev/urandom")) {
            if (Files.exists(Path.of(device))) {
                String base = device.substring(5);
                out.add(Files.createSymbolicLink(dir.resolve(base + ".json"), Path.of(device)));
                out.add(Files.createSymbolicLink(dir.resolve(base + ".onnx"), Path.of(device)));
            }
        }
        out.add(Files.createFile(dir.resolve("empty.json")));
        out.add(Files.createFile(dir.resolve("empty.onnx")));
        out.add(dir.resolve("missing.json"));
        out.add(dir.resolve("bad\u001b[31m\nname.json"));
        out.add(Files.createSymbolicLink(dir.resolve("loop.json"), dir.resolve("loop.json")));
        out.add(Files.writeString(dir.resolve("no-extension"), "{}"));
        return out;
    }

    /** One command line: its arguments, what it exercises, and the file to check an exit 0 against. */
    private record Case(String[] args, String what, Path file, boolean onnx, Map<String, Long> bindings,
                        PlanOptions options, ImportOptions importOptions, boolean json) {
    }

    private Case makeCase(int i, Random r, Path dir, List<Path> special) throws IOException {
        int kind = r.nextInt(100);
        Path file;
        String what;
        boolean onnx = false;
        if (kind < 50) {
            byte[] bytes = mutateJson(jsonBases.get(r.nextInt(jsonBases.size())), r);
            file = Files.write(dir.resolve("g.json"), bytes);
            what = "json mutation";
        } else if (kind < 85) {
            byte[] bytes = mutateOnnx(onnxBases.get(r.nextInt(onnxBases.size())), r);
            file = Files.write(dir.resolve("m.onnx"), bytes);
            what = "onnx mutation";
            onnx = true;
        } else if (kind < 90) {
            file = special.get(r.nextInt(special.size()));
            what = "special file";
        } else if (kind < 95) {
            file = Files.write(dir.resolve("p.csv"), mutateCsv(r));
            return new Case(new String[] {"pack", "--engine", "java", file.toString()}, "csv mutation", null, false,
                    Map.of(), PlanOptions.defaults(), new ImportOptions(true, ViewPolicy.ORT), false);
        } else {
            file = Files.write(dir.resolve("g.json"), jsonBases.get(r.nextInt(jsonBases.size())));
            what = "hostile options";
        }
        List<String> args = new ArrayList<>();
        boolean symbols = onnx && r.nextInt(10) == 0;
        args.add(symbols ? "symbols" : "plan");
        boolean json = r.nextBoolean();
        if (json) {
            args.addAll(List.of("--format", "json"));
        }
        Map<String, Long> bindings = new LinkedHashMap<>();
        PlanOptions options = PlanOptions.defaults().withEngine(EngineMode.JAVA);
        ViewPolicy views = ViewPolicy.ORT;
        boolean fold = true;
        if (!symbols) {
            for (String sym : onnx ? List.of("batch") : List.of("batch", "seq")) {
                if (r.nextInt(3) > 0) {
                    long v = r.nextInt(4) == 0 ? Long.parseLong(HUGE[r.nextInt(3)].replace("808", "807")) : r.nextInt(300);
                    bindings.put(sym, v);
                    args.addAll(List.of("--bind", sym + "=" + v));
                }
            }
            if (r.nextInt(4) == 0) {
                options = options.withIncludeGraphInputs(true);
                args.add("--include-graph-inputs");
            }
            if (r.nextInt(4) == 0) {
                long a = new long[] {1, 8, 64, 4096, 1L << 40, Long.MAX_VALUE}[r.nextInt(6)];
                options = options.withAlignment(a);
                args.addAll(List.of("--alignment", Long.toString(a)));
            }
            if (onnx && r.nextInt(4) == 0) {
                views = ViewPolicy.values()[r.nextInt(ViewPolicy.values().length)];
                args.addAll(List.of("--views", views.name().toLowerCase(java.util.Locale.ROOT)));
            }
            if (onnx && r.nextInt(4) == 0) {
                fold = false;
                args.add("--no-fold-constants");
            }
            if (r.nextInt(8) == 0) {
                args.add("--require-complete");
            }
        }
        boolean checkable = true;
        if (what.equals("hostile options")) {
            // options the cross-check does not model: an exit 0 must still be one line-clean run
            checkable = !hostileOptions(args, r);
        }
        args.add(file.toString());
        return new Case(args.toArray(String[]::new), what, checkable ? file : null, onnx && !symbols, bindings,
                options, new ImportOptions(fold, views), json);
    }

    /** Adds odd options; true when they change what a successful run plans. */
    private static boolean hostileOptions(List<String> args, Random r) {
        int which = r.nextInt(8);
        switch (which) {
            case 0 -> args.addAll(List.of("--bind", unescapeJson(EVIL_NAMES[r.nextInt(EVIL_NAMES.length)]) + "=1"));
            case 1 -> args.addAll(List.of("--bind", "seq=" + HUGE[r.nextInt(HUGE.length)]));
            case 2 -> args.add("--" + unescapeJson(EVIL_NAMES[r.nextInt(EVIL_NAMES.length)]));
            case 3 -> args.add("@" + unescapeJson(EVIL_NAMES[r.nextInt(EVIL_NAMES.length)]));
            case 4 -> args.addAll(List.of("--alignment", HUGE[r.nextInt(HUGE.length)]));
            case 5 -> args.addAll(List.of("--engine", "\u001b[31mnative"));
            case 6 -> args.addAll(List.of("--bind", "=", "--bind", "a=b=c"));
            default -> args.add("--format=\nxml");
        }
        return which == 1 || which == 4;
    }

    private static String unescapeJson(String s) {
        try {
            return JSON.readValue("\"" + s + "\"", String.class);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] mutateJson(byte[] base, Random r) {
        String text = new String(base, StandardCharsets.UTF_8);
        int n = 1 + r.nextInt(3);
        for (int k = 0; k < n; k++) {
            switch (r.nextInt(7)) {
                case 0 -> text = replaceOne(text, NUMBER, m -> HUGE[r.nextInt(HUGE.length)], r);
                case 1 -> text = replaceOne(text, STRING, m -> "\"" + EVIL_NAMES[r.nextInt(EVIL_NAMES.length)] + "\"", r);
                case 2 -> text = text.replaceFirst("\"shape\":\\s*\\[[^\\]]*\\]", "\"shape\":"
                        + (r.nextBoolean() ? "[0,4611686018427387904,4611686018427387904]"
                        : "[4611686018427387904,4611686018427387904,0]"));
                case 3 -> text = replaceOne(text, STRING, m -> "\"" + m.group(1) + "\u001b[1m\"", r); // raw ESC
                case 4 -> text = text.replaceFirst("\"shape\":\\s*\\[", "\"shape\":[\"seq\\\\u0000\",");
                default -> {
                    return mutateBytes(text.getBytes(StandardCharsets.UTF_8), r);
                }
            }
        }
        if (r.nextInt(20) == 0) {
            return text.getBytes(r.nextBoolean() ? StandardCharsets.UTF_16 : StandardCharsets.UTF_16LE);
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String replaceOne(String text, Pattern p, java.util.function.Function<Matcher, String> with,
                                     Random r) {
        Matcher m = p.matcher(text);
        List<int[]> spans = new ArrayList<>();
        while (m.find()) {
            spans.add(new int[] {m.start(), m.end()});
        }
        if (spans.isEmpty()) {
            return text;
        }
        int[] s = spans.get(r.nextInt(spans.size()));
        Matcher one = p.matcher(text.substring(s[0], s[1]));
        one.matches();
        return text.substring(0, s[0]) + with.apply(one) + text.substring(s[1]);
    }

    /** The packing CSV with a raw unsafe character, a long id, or byte edits. */
    private static byte[] mutateCsv(Random r) {
        StringBuilder text = new StringBuilder(CSV);
        switch (r.nextInt(4)) {
            case 0 -> text.insert(20 + r.nextInt(text.length() - 20), unescapeJson(EVIL_NAMES[r.nextInt(EVIL_NAMES.length)]));
            case 1 -> text.insert(20, "x".repeat(4_000 + r.nextInt(200)));
            case 2 -> text.append("d,0,5,").append(HUGE[r.nextInt(HUGE.length)]).append('\n');
            default -> {
                return mutateBytes(CSV.getBytes(StandardCharsets.UTF_8), r);
            }
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] mutateOnnx(byte[] base, Random r) {
        return r.nextInt(6) == 0 ? base.clone() : mutateBytes(base, r);
    }

    /** Flips, truncates, inserts, deletes or duplicates bytes: 1 to 4 edits. */
    private static byte[] mutateBytes(byte[] base, Random r) {
        byte[] b = base.clone();
        int n = 1 + r.nextInt(4);
        for (int k = 0; k < n && b.length > 0; k++) {
            int at = r.nextInt(b.length);
            switch (r.nextInt(5)) {
                case 0 -> b[at] = (byte) r.nextInt(256);
                case 1 -> b = java.util.Arrays.copyOf(b, at);
                case 2 -> {
                    byte[] ins = BAD_BYTES[r.nextInt(BAD_BYTES.length)];
                    byte[] c = new byte[b.length + ins.length];
                    System.arraycopy(b, 0, c, 0, at);
                    System.arraycopy(ins, 0, c, at, ins.length);
                    System.arraycopy(b, at, c, at + ins.length, b.length - at);
                    b = c;
                }
                case 3 -> {
                    int len = Math.min(b.length - at, 1 + r.nextInt(16));
                    byte[] c = new byte[b.length - len];
                    System.arraycopy(b, 0, c, 0, at);
                    System.arraycopy(b, at + len, c, at, b.length - at - len);
                    b = c;
                }
                default -> {
                    int len = Math.min(b.length - at, 1 + r.nextInt(64));
                    byte[] c = new byte[b.length + len];
                    System.arraycopy(b, 0, c, 0, at + len);
                    System.arraycopy(b, at, c, at + len, b.length - at);
                    b = c;
                }
            }
        }
        return b;
    }

    // ---- checks

    private void check(int i, Case c, CliRun run) {
        outcomes.merge("exit " + run.exit(), 1, Integer::sum);
        String where = "case " + i + " (" + c.what() + ") " + List.of(c.args()).toString().replace("\u001b", "\\e")
                + "\n" + run.toString().replace("\u001b", "\\e");
        if (run.exit() < 0 || run.exit() > ExitCode.DEFERRED) {
            problems.add("undocumented or internal exit code: " + where);
            return;
        }
        String all = run.out() + run.err();
        if (all.contains("\tat ") || all.contains("Exception in thread") || all.contains("Caused by:")) {
            problems.add("a stack trace: " + where);
            return;
        }
        for (String word : CLASS_NAMES) {
            if (all.contains(word)) {
                problems.add("a class name (" + word + "): " + where);
                return;
            }
        }
        if (hasRawControl(run.err(), false) || hasRawControl(run.out(), true)) {
            problems.add("a raw control character: " + where);
            return;
        }
        if (!run.err().isEmpty() && !run.err().lines().allMatch(l -> l.startsWith("memplan"))) {
            problems.add("a message of more than one line: " + where);
            return;
        }
        if (run.exit() != 0) {
            if (!run.out().isEmpty() && run.exit() != ExitCode.DEFERRED) {
                problems.add("output on a failure: " + where);
            } else if (run.err().isEmpty()) {
                problems.add("a failure without a message: " + where);
            }
            return;
        }
        if (run.out().isEmpty() && c.args()[0].equals("plan")) {
            problems.add("exit 0 without output: " + where);
            return;
        }
        String wrong = c.file() == null ? null : crossCheck(c, run);
        if (wrong != null) {
            problems.add("exit 0 with a wrong answer (" + wrong + "): " + where);
        }
    }

    /**
     * Whether {@code text} holds a character {@link UnsafeChars} lists (every output escapes them): a control
     * character, a bidi override, a lone surrogate. Newlines end lines; a tab separates the
     * columns of {@code memplan symbols}.
     */
    private static boolean hasRawControl(String text, boolean tabs) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '\n' && !(tabs && c == '\t') && UnsafeChars.isUnsafeAt(text, i)) {
                return true;
            }
        }
        return false;
    }

    /** What the library says about the same file and options; null when the CLI agrees. */
    private static String crossCheck(Case c, CliRun run) {
        if (!c.args()[0].equals("plan")) {
            return null;
        }
        PlanResult expected;
        boolean figuresDeferred = false; // a complete outer plan whose admission (a body's need) is deferred
        try {
            if (c.onnx()) {
                OnnxPlan p = OnnxPlanner.plan(OnnxImporter.importModel(OnnxModel.read(c.file()), c.importOptions()),
                        c.bindings(), c.options());
                expected = p.result();
                figuresDeferred = p.admissionBytes().isEmpty();
            } else {
                GraphJson.GraphFile g = GraphJson.read(c.file());
                Schedule s = MemPlan.compile(g.graph(), g.views(), c.options());
                expected = s.plan(c.bindings());
            }
        } catch (MemplanException | IOException e) {
            return "the library rejects it: " + e.getMessage();
        }
        if (expected instanceof PlanResult.Complete complete) {
            PlanValidator.validate(complete.plan());
        }
        boolean complete = expected instanceof PlanResult.Complete;
        if (!c.json()) {
            boolean saysComplete = c.onnx() ? !run.out().contains("plan       deferred")
                    : run.out().contains(": complete plan (engine ");
            return saysComplete == complete ? null : "the text says complete=" + saysComplete;
        }
        try {
            JsonNode root = JSON.readTree(run.out());
            if (!root.get("status").asText().equals(complete && !figuresDeferred ? "complete" : "deferred")) {
                return "status " + root.get("status");
            }
            if (complete) {
                var plan = ((PlanResult.Complete) expected).plan();
                if (root.get("peakBytes").asLong() != plan.peakBytes()
                        || root.get("naiveBytes").asLong() != plan.naiveBytes()) {
                    return "peak " + root.get("peakBytes") + " naive " + root.get("naiveBytes") + ", library "
                            + plan.peakBytes() + " " + plan.naiveBytes();
                }
            }
            return null;
        } catch (IOException e) {
            return "stdout is not one JSON object: " + e.getMessage();
        }
    }
}
