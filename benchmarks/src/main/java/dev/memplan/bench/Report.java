// SPDX-License-Identifier: Apache-2.0
package dev.memplan.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.generate.HardPackingGenerator;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Prints the Markdown table of a benchmark run: reads every JMH JSON result file in a folder,
 * takes the median of each benchmark's per-iteration scores, and checks the targets of the slots
 * planner and of offsets beside slots (hard packing included) as ratios of those medians. A point's
 * strategy is its {@code strategy} parameter; benchmarks without one (the naive baseline, the
 * small graph) plan slots.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.memplan.bench.Report RESULTS_DIR [TITLE]}
 */
public final class Report {
    private static final List<String> METHODS = List.of("compile", "allocate", "endToEnd", "smallGraph", "touch",
            "pack");
    private static final String SLOTS = "slots";
    private static final String OFFSETS = "offsets";

    /**
     * One measured point: median of the per-iteration scores, in nanoseconds per operation. For
     * {@code pack}, {@code kind} names the hard instance and {@code owners} is its buffer count.
     */
    record Point(String method, String kind, int owners, String engine, String strategy, double medianNs,
                 int iterations) {
    }

    private final Map<String, Point> points = new LinkedHashMap<>();
    /** Bytes allocated (-prof gc) and minor page faults (-prof PageFaultProfiler) per op, by point key. */
    private final Map<String, double[]> perOp = new LinkedHashMap<>();
    /** ColdStartBenchmark: per engine, strategy and method, each fork's single-shot times in ns. */
    private final Map<String, List<List<Double>>> coldStart = new TreeMap<>();
    private String jvm = "";

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: Report RESULTS_DIR [TITLE]");
            System.exit(2);
        }
        Report r = new Report();
        try (Stream<Path> files = Files.list(Path.of(args[0]))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                r.read(f);
            }
        }
        if (r.points.isEmpty()) {
            System.err.println("no JMH results (*.json) in " + args[0]);
            System.exit(1);
        }
        r.print(System.out, args.length > 1 ? args[1] : "memplan planning benchmarks");
    }

    private void read(Path file) throws IOException {
        JsonNode root = new ObjectMapper().readTree(file.toFile());
        for (JsonNode result : root) {
            String bench = result.path("benchmark").asText();
            String className = bench.substring(0, bench.lastIndexOf('.'));
            String method = bench.substring(bench.lastIndexOf('.') + 1);
            JsonNode params = result.path("params");
            String kind = params.path("kind").asText("?");
            int owners = params.has("owners") ? params.path("owners").asInt()
                    : method.equals("smallGraph") ? SmallGraphBenchmark.OWNERS : -1;
            String engine = params.has("engine") ? params.path("engine").asText()
                    : className.endsWith("NaiveBaselineBenchmark") ? "naive" : "-";
            String strategy = params.path("strategy").asText(method.equals("touch") ? "-" : SLOTS);
            if (method.equals("pack")) {
                long seed = params.path("seed").asLong();
                String effort = params.path("effort").asText("default");
                kind = "hard seed " + seed + (effort.equals("default") ? "" : ", effort " + effort);
                owners = HardPackingGenerator.generate(seed).size();
                strategy = OFFSETS;
            }
            JsonNode metric = result.path("primaryMetric");
            if (className.endsWith("ColdStartBenchmark")) {
                double unit = nanosPer(metric.path("scoreUnit").asText());
                List<List<Double>> forks = coldStart.computeIfAbsent(method + "|" + engine + "|" + strategy,
                        k -> new ArrayList<>());
                for (JsonNode fork : metric.path("rawData")) {
                    List<Double> shots = new ArrayList<>();
                    fork.forEach(x -> shots.add(x.asDouble() * unit));
                    forks.add(shots);
                }
                continue;
            }
            List<Double> scores = new ArrayList<>();
            for (JsonNode fork : metric.path("rawData")) {
                for (JsonNode s : fork) {
                    scores.add(s.asDouble());
                }
            }
            if (scores.isEmpty()) {
                continue;
            }
            double median = median(scores) * nanosPer(metric.path("scoreUnit").asText());
            Point p = new Point(method, kind, owners, engine, strategy, median, scores.size());
            points.put(key(method, kind, owners, engine, strategy), p);
            JsonNode secondary = result.path("secondaryMetrics");
            if (secondary.has("gc.alloc.rate.norm") || secondary.has("faults.minor.norm")) {
                perOp.put(key(method, kind, owners, engine, strategy), new double[] {
                        secondary.path("gc.alloc.rate.norm").path("score").asDouble(Double.NaN),
                        secondary.path("faults.minor.norm").path("score").asDouble(Double.NaN)});
            }
            jvm = result.path("vmName").asText() + " " + result.path("vmVersion").asText();
        }
    }

    static double median(List<Double> xs) {
        double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = a.length;
        return n % 2 == 1 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
    }

    static double nanosPer(String unit) {
        String u = unit.replace("/op", "");
        switch (u) {
            case "ns": return 1;
            case "us": return 1e3;
            case "ms": return 1e6;
            case "s": return 1e9;
            default: throw new IllegalArgumentException("unexpected JMH score unit " + unit
                    + "; the benchmarks report time per operation");
        }
    }

    private static String key(String method, String kind, int owners, String engine, String strategy) {
        return method + "|" + kind + "|" + owners + "|" + engine + "|" + strategy;
    }

    private Optional<Point> get(String method, String kind, int owners, String engine, String strategy) {
        return Optional.ofNullable(points.get(key(method, kind, owners, engine, strategy)));
    }

    /** A slots point: what the slots targets and the naive baseline compare. */
    private Optional<Point> get(String method, String kind, int owners, String engine) {
        return get(method, kind, owners, engine, SLOTS);
    }

    void print(PrintStream out, String title) {
        out.println("## " + title);
        out.println();
        out.println("Machine: " + machine() + "; " + jvm + ". Median of the per-iteration averages"
                + " (JMH average time), lower is better.");
        out.println();
        out.println("| benchmark | graph | owners | strategy | native | java | naive | native/java | naive/native"
                + " | naive/java |");
        out.println("|---|---|---:|---|---:|---:|---:|---:|---:|---:|");
        TreeMap<String, Point> rows = new TreeMap<>(rowOrder());
        for (Point p : points.values()) {
            if (!p.engine().equals("-") && !p.method().equals("pack")) {
                rows.putIfAbsent(rowKey(p), p);
            }
        }
        for (Point p : rows.values()) {
            String st = p.strategy();
            Optional<Point> nat = get(p.method(), p.kind(), p.owners(), "native", st);
            Optional<Point> java = get(p.method(), p.kind(), p.owners(), "java", st);
            Optional<Point> naive = get(p.method(), p.kind(), p.owners(), "naive", st);
            out.println("| " + p.method() + " | " + p.kind() + " | " + owners(p.owners()) + " | " + st + " | "
                    + time(nat) + " | " + time(java) + " | " + time(naive) + " | " + ratio(nat, java) + " | "
                    + ratio(naive, nat) + " | " + ratio(naive, java) + " |");
        }
        printPacking(out);
        List<Point> touches = points.values().stream().filter(p -> p.method().equals("touch"))
                .sorted(Comparator.comparing(Point::kind).thenComparingInt(Point::owners)).toList();
        if (!touches.isEmpty()) {
            out.println();
            out.println("Memory-bandwidth floor: `touch` reads every owner's size and writes one slot per owner.");
            out.println();
            out.println("| graph | owners | touch | native allocate | java allocate | native allocate / touch |");
            out.println("|---|---:|---:|---:|---:|---:|");
            for (Point t : touches) {
                Optional<Point> nat = get("allocate", t.kind(), t.owners(), "native");
                Optional<Point> java = get("allocate", t.kind(), t.owners(), "java");
                out.println("| " + t.kind() + " | " + owners(t.owners()) + " | " + time(Optional.of(t)) + " | "
                        + time(nat) + " | " + time(java) + " | " + ratio(nat, Optional.of(t)) + " |");
            }
        }
        printPerOp(out);
        printColdStart(out);
        out.println();
        printTargets(out);
    }

    /** Heap bytes and minor page faults per operation, where the run had the profilers on. */
    private void printPerOp(PrintStream out) {
        if (perOp.isEmpty()) {
            return;
        }
        out.println();
        out.println("Per operation: heap bytes allocated (`-prof gc`, gc.alloc.rate.norm) and minor page faults"
                + " (`-prof dev.memplan.bench.PageFaultProfiler`).");
        out.println();
        out.println("| benchmark | graph | owners | strategy | native B/op | java B/op | native faults/op"
                + " | java faults/op |");
        out.println("|---|---|---:|---|---:|---:|---:|---:|");
        TreeMap<String, Point> rows = new TreeMap<>(rowOrder());
        for (String k : perOp.keySet()) {
            Point p = points.get(k);
            rows.putIfAbsent(rowKey(p), p);
        }
        for (Point p : rows.values()) {
            double[] n = perOp.getOrDefault(key(p.method(), p.kind(), p.owners(), "native", p.strategy()),
                    new double[] {Double.NaN, Double.NaN});
            double[] j = perOp.getOrDefault(key(p.method(), p.kind(), p.owners(), "java", p.strategy()),
                    new double[] {Double.NaN, Double.NaN});
            out.println(String.format(Locale.ROOT, "| %s | %s | %s | %s | %,.0f | %,.0f | %.1f | %.1f |", p.method(),
                    p.kind(), owners(p.owners()), p.strategy(), n[0], j[0], n[1], j[1]));
        }
    }

    /**
     * ColdStartBenchmark: the first plan of each fresh JVM (median over forks), and the first 100
     * plans: the first, the median, the 90th percentile and the slowest of all forks' plans, and
     * the median over forks of the 100 plans' total.
     */
    private void printColdStart(PrintStream out) {
        if (coldStart.isEmpty()) {
            return;
        }
        out.println();
        out.println("Cold start (`ColdStartBenchmark`, single shots in fresh JVMs on a compiled schedule; times per plan).");
        out.println();
        out.println("| plans | engine | strategy | forks | first | median | p90 | slowest | all 100, median over forks |");
        out.println("|---|---|---|---:|---:|---:|---:|---:|---:|");
        for (Map.Entry<String, List<List<Double>>> e : coldStart.entrySet()) {
            String[] k = e.getKey().split("\\|");
            List<List<Double>> forks = e.getValue();
            List<Double> firsts = forks.stream().map(f -> f.get(0)).toList();
            List<Double> all = forks.stream().flatMap(List::stream).sorted().toList();
            List<Double> totals = forks.stream().map(f -> f.stream().mapToDouble(Double::doubleValue).sum()).toList();
            String total = k[0].equals("first100Plans") ? nanos(median(totals)) : "-";
            out.println("| " + k[0] + " | " + k[1] + " | " + k[2] + " | " + forks.size() + " | " + nanos(median(firsts))
                    + " | " + nanos(median(all)) + " | " + nanos(all.get((int) Math.floor(0.9 * (all.size() - 1))))
                    + " | " + nanos(all.get(all.size() - 1)) + " | " + total + " |");
        }
    }

    private static String nanos(double ns) {
        return time(Optional.of(new Point("", "", 0, "", "", ns, 1)));
    }

    private void printTargets(PrintStream out) {
        out.println("### Targets (ratios of medians from this run)");
        out.println();
        out.println("| target | measured | met |");
        out.println("|---|---:|:---:|");
        Optional<Point> touch = get("touch", "transformer", 1_000_000, "-", "-");
        target(out, "native allocate / touch, transformer, 1M owners <= 10",
                get("allocate", "transformer", 1_000_000, "native"), touch, r -> r <= 10);
        for (String m : List.of("allocate", "endToEnd")) {
            for (String e : List.of("native", "java")) {
                target(out, "naive / " + e + " " + m + ", random_dag, 100k owners >= 10",
                        get(m, "random_dag", 100_000, "naive"), get(m, "random_dag", 100_000, e), r -> r >= 10);
            }
        }
        for (Point p : points.values()) {
            if (p.method().equals("endToEnd") && p.owners() == 10_000 && !p.engine().equals("naive")
                    && p.strategy().equals(SLOTS)) {
                target(out, p.engine() + " endToEnd / allocate, " + p.kind() + ", 10k owners >= 20", Optional.of(p),
                        get("allocate", p.kind(), 10_000, p.engine()), r -> r >= 20);
            }
        }
        for (Point p : points.values()) {
            if (p.method().equals("smallGraph") && p.engine().equals("native")) {
                target(out, "native / java smallGraph, " + p.kind() + " <= 1", Optional.of(p),
                        get("smallGraph", p.kind(), p.owners(), "java"), r -> r <= 1);
            }
        }
        nativeVersusJava(out, SLOTS, 0);
        printOffsetTargets(out);
        printNativeTargets(out);
    }

    /** The native path pays for itself (java / native, so above 1 means native is faster). */
    private void printNativeTargets(PrintStream out) {
        for (String kind : List.of("transformer", "resnet", "chain")) {
            for (String st : List.of(SLOTS, OFFSETS)) {
                target(out, "java / native allocate, " + kind + ", " + st + ", 10k owners >= 1.5",
                        get("allocate", kind, 10_000, "java", st), get("allocate", kind, 10_000, "native", st),
                        r -> r >= 1.5);
            }
        }
        for (String st : List.of(SLOTS, OFFSETS)) {
            List<List<Double>> nat = coldStart.get("firstPlan|native|" + st);
            List<List<Double>> java = coldStart.get("firstPlan|java|" + st);
            if (nat != null && java != null) {
                double n = median(nat.stream().map(f -> f.get(0)).toList());
                double j = median(java.stream().map(f -> f.get(0)).toList());
                out.println(String.format(Locale.ROOT, "| java / native first plan of a fresh JVM, %s, 10k owners >= 5"
                        + " | %.2f | %s |", st, j / n, j / n >= 5 ? "yes" : "**no**"));
            }
        }
    }

    /** Offsets beside slots, the 1M transformer, growth on the wide DAG, native vs java. */
    private void printOffsetTargets(PrintStream out) {
        for (Point p : points.values()) {
            if (p.method().equals("allocate") && p.owners() == 10_000 && p.strategy().equals(OFFSETS)) {
                target(out, p.engine() + " offsets / slots allocate, " + p.kind() + ", 10k owners <= 3", Optional.of(p),
                        get("allocate", p.kind(), 10_000, p.engine(), SLOTS), r -> r <= 3);
            }
        }
        for (String e : List.of("native", "java")) {
            Optional<Point> big = get("allocate", "transformer", 1_000_000, e, OFFSETS);
            String met = big.isEmpty() ? "-" : big.get().medianNs() < 1e9 ? "yes" : "**no**";
            out.println("| " + e + " offsets allocate, transformer, 1M owners < 1 s | "
                    + (big.isEmpty() ? "not measured" : time(big)) + " | " + met + " |");
            target(out, e + " offsets allocate, random_dag, 1M / 100k owners <= 12",
                    get("allocate", "random_dag", 1_000_000, e, OFFSETS),
                    get("allocate", "random_dag", 100_000, e, OFFSETS), r -> r <= 12);
        }
        nativeVersusJava(out, OFFSETS, 10_000);
    }

    /** Native never slower than java over every {@code strategy} point with at least {@code minOwners}. */
    private void nativeVersusJava(PrintStream out, String strategy, int minOwners) {
        int compared = 0;
        int slower = 0;
        String worst = "";
        double worstRatio = 0;
        for (Point p : points.values()) {
            Optional<Point> java = get(p.method(), p.kind(), p.owners(), "java", strategy);
            if (p.engine().equals("native") && p.strategy().equals(strategy) && p.owners() >= minOwners
                    && java.isPresent()) {
                compared++;
                double r = p.medianNs() / java.get().medianNs();
                if (r > 1) {
                    slower++;
                }
                if (r > worstRatio) {
                    worstRatio = r;
                    worst = p.method() + " " + p.kind() + " " + owners(p.owners());
                }
            }
        }
        if (compared > 0) {
            out.println("| " + strategy + (minOwners > 0 ? " at " + owners(minOwners) + " owners and above" : "")
                    + ": native never slower than java (" + compared + " pairs; worst: " + worst + ") | "
                    + String.format(Locale.ROOT, "%.2f", worstRatio) + " | " + (slower == 0 ? "yes" : "no, "
                    + slower + " of " + compared) + " |");
        }
    }

    private interface Check {
        boolean ok(double ratio);
    }

    private static void target(PrintStream out, String name, Optional<Point> num, Optional<Point> den, Check check) {
        if (num.isEmpty() || den.isEmpty()) {
            out.println("| " + name + " | not measured | - |");
            return;
        }
        double r = num.get().medianNs() / den.get().medianNs();
        out.println("| " + name + " | " + String.format(Locale.ROOT, "%.2f", r) + " | " + (check.ok(r) ? "yes" : "**no**")
                + " |");
    }

    /** The hard packing instances: one row per instance, native and java side by side. */
    private void printPacking(PrintStream out) {
        TreeMap<String, Point> rows = new TreeMap<>();
        for (Point p : points.values()) {
            if (p.method().equals("pack")) {
                rows.putIfAbsent(p.kind(), p);
            }
        }
        if (rows.isEmpty()) {
            return;
        }
        out.println();
        out.println("Hard packing instances (`PackingBenchmark.pack`: offsets planner alone, pack's default effort"
                + " unless stated).");
        out.println();
        out.println("| instance | buffers | native | java | native/java |");
        out.println("|---|---:|---:|---:|---:|");
        for (Point p : rows.values()) {
            Optional<Point> nat = get("pack", p.kind(), p.owners(), "native", OFFSETS);
            Optional<Point> java = get("pack", p.kind(), p.owners(), "java", OFFSETS);
            out.println("| " + p.kind() + " | " + p.owners() + " | " + time(nat) + " | " + time(java) + " | "
                    + ratio(nat, java) + " |");
        }
    }

    private static String rowKey(Point p) {
        return p.method() + "|" + p.kind() + "|" + p.owners() + "|" + p.strategy();
    }

    /** Method, graph, owners, then slots before offsets. */
    private static Comparator<String> rowOrder() {
        return Comparator.<String, Integer>comparing(k -> METHODS.indexOf(k.split("\\|")[0]))
                .thenComparing(k -> k.split("\\|")[1])
                .thenComparingInt(k -> Integer.parseInt(k.split("\\|")[2]))
                .thenComparing(k -> k.split("\\|")[3], Comparator.reverseOrder());
    }

    static String owners(int n) {
        if (n >= 1_000_000 && n % 1_000_000 == 0) {
            return n / 1_000_000 + "M";
        }
        if (n >= 1_000 && n % 1_000 == 0) {
            return n / 1_000 + "k";
        }
        return Integer.toString(n);
    }

    static String time(Optional<Point> p) {
        if (p.isEmpty()) {
            return "-";
        }
        double ns = p.get().medianNs();
        if (ns < 1e3) {
            return String.format(Locale.ROOT, "%.0f ns", ns);
        }
        if (ns < 1e6) {
            return String.format(Locale.ROOT, "%.1f µs", ns / 1e3);
        }
        if (ns < 1e9) {
            return String.format(Locale.ROOT, "%.1f ms", ns / 1e6);
        }
        return String.format(Locale.ROOT, "%.2f s", ns / 1e9);
    }

    static String ratio(Optional<Point> a, Optional<Point> b) {
        if (a.isEmpty() || b.isEmpty()) {
            return "-";
        }
        return String.format(Locale.ROOT, "%.2f", a.get().medianNs() / b.get().medianNs());
    }

    /** The CPU model from /proc/cpuinfo (what lscpu prints), with the core count. */
    static String machine() {
        String model = System.getProperty("os.name") + " " + System.getProperty("os.arch");
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8)) {
                if (line.startsWith("model name")) {
                    model = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: keep the OS name
        }
        return model + ", " + Runtime.getRuntime().availableProcessors() + " cores";
    }
}
