// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.fail;

import dev.memplan.testing.Ci;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * ONNX Runtime's measured figures, as the ORT tests read them (benchmarks/ort/figures.sh measures
 * and diffs them). A level-all figure depends on the machine through the NCHWc channel block MLAS
 * picks from the vector width ({@link OrtRuntimeProfile#nchwcBlockSize}: 16 floats with AVX-512F,
 * else 8), and on nothing else the prediction models, so its tables sit in one folder per block,
 * {@code ort/nchwc16/}, and any machine with that block, Intel or AMD, reads them. A machine whose
 * block has no folder skips the tests that need it, and fails them in CI, naming what to measure.
 * Each row keeps, beside ORT's figure, the raw arena statistics it came from, ORT's version and the
 * model's sha256 ({@link Row}).
 */
public final class OrtFigures {
    private OrtFigures() {
    }

    /**
     * One measured case: ORT's {@code activation} figure is {@code maxInUse - inUseBefore}, the
     * arena's MaxInUse after the second run less its InUse before the first.
     */
    public record Row(String model, String bindings, long activation, String ortVersion, String sha256,
                      long inUseBefore, long maxInUse, long totalAllocated, long numAllocs, long maxAllocSize) {
    }

    /**
     * One case of the threads table: a {@link Row} measured at {@code threads} intra-op threads, with
     * the arena's TotalAllocated before the first run.
     */
    public record ThreadsRow(Row row, int threads, long totalAllocatedBefore) {
        /** {@return the bytes the arena reserved for the request: TotalAllocated after the runs less before} */
        public long reservedForRequests() {
            return row.totalAllocated() - totalAllocatedBefore;
        }
    }

    /** {@return the rows of the threads table {@code table} (two more columns: threads, TotalAllocated before)} */
    public static List<ThreadsRow> threadsRows(Path table) {
        return fields(table).stream().map(f -> {
            if (f.length < 12) {
                throw new AssertionError(table + ": a row without its thread count and TotalAllocated before ("
                        + String.join(" ", f) + "); remeasure with benchmarks/ort/figures.sh");
            }
            return new ThreadsRow(row(table, f), Integer.parseInt(f[10]), Long.parseLong(f[11]));
        }).toList();
    }

    /** {@return the figure set this machine reads: {@code nchwc16}, {@code nchwc8}, or {@code nchwc-none-<arch>}} */
    public static String set() {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return arch.equals("amd64") || arch.equals("x86_64") ? "nchwc" + OrtRuntimeProfile.nchwcBlockSize()
                : "nchwc-none-" + arch;
    }

    /** {@return this machine's block in words, e.g. "NCHWc block 16 (AVX-512F)"} */
    public static String describe() {
        String set = set();
        return switch (set) {
            case "nchwc16" -> "NCHWc block 16 (AVX-512F)";
            case "nchwc8" -> "NCHWc block 8 (AVX2)";
            default -> "no NCHWc block (" + System.getProperty("os.arch") + ")";
        };
    }

    /**
     * The level-all table {@code name} of this machine's set; skips the test when the set has none,
     * or fails it in CI with the one line saying what to measure.
     */
    public static Path levelAll(String name) {
        return levelAll(set(), describe(), name);
    }

    /** {@link #levelAll(String)} for the set {@code set}, described as {@code described}. */
    static Path levelAll(String set, String described, String name) {
        URL url = OrtFigures.class.getResource("/ort/" + set + "/" + name);
        Ci.require(url != null, "no ORT figures for " + described + ": measure them with benchmarks/ort/figures.sh"
                + " --write on this machine (it writes src/test/resources/ort/" + set + "/) and commit them",
                "CI runs every ORT test");
        return path(url);
    }

    /** The level-none table {@code name} (the same on every machine). */
    public static Path levelNone(String name) {
        URL url = OrtFigures.class.getResource("/ort/" + name);
        if (url == null) {
            fail("no test resource ort/" + name);
        }
        return path(url);
    }

    private static Path path(URL url) {
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@return the rows of {@code table}, in file order} */
    public static List<Row> rows(Path table) {
        return fields(table).stream().map(f -> row(table, f)).toList();
    }

    /** {@return the tab-separated fields of each row of {@code table} (not its "#" lines), in file order} */
    private static List<String[]> fields(Path table) {
        try {
            return Files.readAllLines(table).stream().filter(l -> !l.isBlank() && !l.startsWith("#"))
                    .map(l -> l.split("\t", -1)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@return the {@link Row} of a row's fields {@code f}, which carry the raw statistics} */
    private static Row row(Path table, String[] f) {
        if (f.length < 10) {
            throw new AssertionError(table + ": a row without its raw statistics, ORT version and"
                    + " sha256 (" + String.join(" ", f) + "); remeasure with benchmarks/ort/figures.sh");
        }
        return new Row(f[0], f[1], Long.parseLong(f[2]), f[3], f[4], Long.parseLong(f[5]),
                Long.parseLong(f[6]), Long.parseLong(f[7]), Long.parseLong(f[8]), Long.parseLong(f[9]));
    }

    /** {@return the header's "# key\tvalue" lines of {@code table}} */
    public static Map<String, String> header(Path table) {
        Map<String, String> out = new LinkedHashMap<>();
        try {
            for (String l : Files.readAllLines(table)) {
                String[] f = l.split("\t", -1);
                if (l.startsWith("# ") && f.length == 2) {
                    out.put(f[0].substring(2), f[1]);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** {@return ORT's figure for {@code model} at {@code bindings} in {@code table}} */
    public static long figure(Path table, String model, String bindings) {
        return rows(table).stream().filter(r -> r.model().equals(model) && r.bindings().equals(bindings))
                .mapToLong(Row::activation).findFirst().orElseThrow(() -> new AssertionError(table.getFileName()
                        + " has no row for " + model + " " + bindings + "; measure it with benchmarks/ort/figures.sh"));
    }

    /** Per model file and level: whether the class path's ORT starts a request from an empty arena. */
    private static final Map<String, Boolean> STARTS_EMPTY = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Skips a test of ORT 1.30's figure (a table) where the class path's ORT is older than 1.29 and
     * starts a request with weights in its arena's regions, as ORT 1.23 does for most models
     * ({@link OrtArenaStart}): its figure is then not 1.30's, and varies between processes for some
     * models. ORT 1.29 gives 1.30's figures, so CI's run on 1.29.0 holds every table;
     * OrtNeverBelowTest and OrtSileroVadTest hold the class path's own figures.
     */
    public static void assumeTheTableHolds(Path model, dev.memplan.ort.OrtModel.Level level) {
        boolean holds = !ortBefore129() || STARTS_EMPTY.computeIfAbsent(model.toAbsolutePath() + " " + level,
                k -> ortLoads(model.toString(), () -> startsEmpty(model, level)));
        org.junit.jupiter.api.Assumptions.assumeTrue(holds, model.getFileName() + " at level " + level
                + ": the class path's ORT starts the session's arena with weights in a region, so ORT 1.30's"
                + " figure does not apply (run with -Donnxruntime.version=1.29.0)");
    }

    /** {@return whether the class path's ORT is older than 1.29} */
    private static boolean ortBefore129() {
        String[] v = OrtTestModels.environment().getVersion().split("\\.");
        int major = Integer.parseInt(v[0]);
        return major < 1 || (major == 1 && Integer.parseInt(v[1]) < 29);
    }

    private static boolean startsEmpty(Path model, dev.memplan.ort.OrtModel.Level level) throws Exception {
        try (ai.onnxruntime.OrtSession.SessionOptions o = new ai.onnxruntime.OrtSession.SessionOptions()) {
            o.setOptimizationLevel(ai.onnxruntime.OrtSession.SessionOptions.OptLevel.valueOf(level.ortName()));
            o.setIntraOpNumThreads(1);
            o.setSessionLogLevel(ai.onnxruntime.OrtLoggingLevel.ORT_LOGGING_LEVEL_FATAL);
            try (ai.onnxruntime.OrtSession s = OrtTestModels.environment().createSession(model.toString(), o)) {
                return OrtCApi.arenaStart(s).equals(java.util.Optional.of(OrtArenaStart.EMPTY));
            }
        }
    }

    /**
     * Runs {@code load}, ONNX Runtime Java's part of a test: its failure (the native library does not
     * load, ORT refuses a model it loaded when the figures were measured) fails the test, never skips it.
     */
    public static <T> T ortLoads(String what, java.util.concurrent.Callable<T> load) {
        try {
            return load.call();
        } catch (Exception | LinkageError e) {
            throw new AssertionError("ONNX Runtime Java failed on " + what + ": " + e, e);
        }
    }

    /** {@return a table's bindings column ({@code batch=4,seq=100}) as symbol values} */
    public static Map<String, Long> bindings(String dims) {
        return java.util.Arrays.stream(dims.split(",")).filter(d -> !d.isEmpty()).map(d -> d.split("="))
                .collect(java.util.stream.Collectors.toMap(d -> d[0], d -> Long.parseLong(d[1])));
    }

    /** {@return the file's sha256, in hex, as the tables give it} */
    public static String sha256(Path file) throws IOException {
        java.security.MessageDigest digest;
        try {
            digest = java.security.MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
        try (java.io.InputStream in = new java.security.DigestInputStream(Files.newInputStream(file), digest)) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return java.util.HexFormat.of().formatHex(digest.digest());
    }
}
