// SPDX-License-Identifier: Apache-2.0
package dev.memplan.example;

import dev.memplan.ort.OrtModel;
import dev.memplan.ort.ServerSize;
import dev.memplan.server.MemoryBudget;
import dev.memplan.server.PlanCache;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded, in-process load test of {@link EmbeddingService}: a fixed number of threads send a
 * fixed number of requests of random shapes (batch 1-8 by default, 8-512 tokens), then it reports what was
 * answered, what the budget and the service's cache saw, and how the process's resident memory grew.
 * With a longest request ({@code 8x512}), every request has that shape and the resident baseline is
 * taken before ONNX Runtime is touched: the growth is then what {@code memplan size} predicts.
 *
 * <pre>
 * java -cp ... dev.memplan.example.LoadTest MODEL.onnx [requests] [threads] [bounded|defaults|recommended|no-arena|plain] [budget MiB] [intra-op threads] [max batch] [rows per run]
 * </pre>
 */
public final class LoadTest {
    /**
     * What to run.
     *
     * @param model     MiniLM's file
     * @param requests  how many requests in total
     * @param threads   how many at once
     * @param settings  ONNX Runtime memory settings
     * @param intraOp   ONNX Runtime's threads per run
     * @param budget    bytes requests share
     * @param waitLimit how long one request may wait for room
     * @param seed      the shapes' seed
     * @param deadline  how long the whole run may take before it counts as a deadlock
     * @param longest   batch and tokens of every request, or null for random shapes
     * @param maxBatch  the largest batch of a random request
     * @param rowsPerRun under {@code plain} and {@code bounded}, the most rows one ORT run takes, 0 for no cap
     * @param reserveThreadBuffers under {@code bounded}, whether the budget reserves what the request
     *                   threads and ORT's pools hold outside its allocator ({@link ServerSize#threadBytes},
     *                   measured), so that leases and thread buffers together stay within it
     */
    public record Config(Path model, int requests, int threads, OrtSettings settings, int intraOp, long budget,
                         Duration waitLimit, long seed, Duration deadline, int[] longest, int maxBatch,
                         int rowsPerRun, boolean reserveThreadBuffers) {

        /** Random shapes, batch 1-8 and 8-512 tokens. */
        public Config(Path model, int requests, int threads, OrtSettings settings, int intraOp, long budget,
                      Duration waitLimit, long seed, Duration deadline) {
            this(model, requests, threads, settings, intraOp, budget, waitLimit, seed, deadline, null);
        }

        /** Batch 1-8, whole requests. */
        public Config(Path model, int requests, int threads, OrtSettings settings, int intraOp, long budget,
                      Duration waitLimit, long seed, Duration deadline, int[] longest) {
            this(model, requests, threads, settings, intraOp, budget, waitLimit, seed, deadline, longest, 8, 0, true);
        }

        /**
         * Parses a longest request as {@code BATCHxTOKENS}.
         *
         * @param text {@code 8x512}, or null or empty for random shapes
         * @return batch and tokens, or null
         */
        public static int[] longest(String text) {
            if (text == null || text.isBlank()) {
                return null;
            }
            String[] parts = text.split("x");
            if (parts.length != 2) {
                throw new IllegalArgumentException("a longest request is BATCHxTOKENS, such as 8x512, not '" + text + "'");
            }
            return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
        }

        String shapes() {
            return longest == null ? "batch 1-" + maxBatch + " x 8-512 tokens" : "every request " + longest[0] + " x "
                    + longest[1] + " tokens";
        }

        String settingsName() {
            String name = settings.name().toLowerCase(Locale.ROOT).replace('_', '-');
            return rowsPerRun == 0 ? name : name + ", at most " + rowsPerRun + " rows per run";
        }
    }

    /**
     * What happened.
     *
     * @param config      what ran
     * @param answered    requests answered, whatever the answer
     * @param ok          requests embedded
     * @param tokens      tokens of the requests embedded (every row's length: no padding)
     * @param busy        requests answered BUSY (no room within the wait limit)
     * @param tooLarge    requests the model or budget could never take
     * @param failures    exceptions other than those answers (none expected)
     * @param finished    false when the run did not end before its deadline
     * @param seconds     wall time of the load
     * @param latencyP50  median latency of OK requests, ms
     * @param latencyP99  99th percentile, ms
     * @param maxHeld     the most bytes leases held at once, counted outside the budget (under
     *                    {@code bounded}, while whole requests' outputs are read: BudgetedOrtSession
     *                    leases inside its run, and the budget's own peak spans the runs)
     * @param heldAtEnd   bytes still held when the load ended, counted outside the budget
     * @param budget      the budget's figures at the end
     * @param cache       the service's cache line: the lease cache and splits, or the plan cache
     * @param rssBaseline resident bytes after start-up and one warm-up request; with a longest
     *                    request, before ONNX Runtime was touched
     * @param rssPeak     the most resident bytes seen during the load (sampled every 10 ms)
     * @param rssEnd      resident bytes after the load
     * @param arenaPeak   the most bytes ORT's CPU allocator (its arena, or memplan's counting
     *                    allocator) held from the system during the load ({@code TotalAllocated},
     *                    sampled with the resident size), -1 where the C API is not reachable
     * @param pageFaults  minor page faults the process took during the load (pages touched afresh),
     *                    -1 where /proc is not there
     */
    public record Report(Config config, int answered, int ok, long tokens, int busy, int tooLarge, List<String> failures,
                         boolean finished, double seconds, double latencyP50, double latencyP99, long maxHeld,
                         long heldAtEnd, MemoryBudget.Stats budget, String cache, long rssBaseline, long rssPeak,
                         long rssEnd, long arenaPeak, long pageFaults) {

        /** {@return how far resident memory rose above the baseline during the load} */
        public long rssGrowth() {
            return rssPeak - rssBaseline;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, String.join("\n",
                    "load: %d requests on %d threads, %s, ONNX Runtime settings %s, %d intra-op thread(s)",
                    "answered %d of %d (ok %d, busy %d, too large %d), failures %d, finished %s",
                    "time %.1f s, %.3f requests/s, %.0f tokens/s, latency p50 %.0f ms, p99 %.0f ms",
                    "budget %s (reserve %s for thread buffers): leased at most %s of %s (peak %s), waited %d,"
                            + " timed out %d, leaked %d, total wait %.1f s",
                    "%s",
                    "resident memory: baseline %s, peak %s (+%s, %.2fx the budget), after the load %s",
                    "ORT allocator: at most %s held from the system (%.2fx the budget)",
                    "page faults during the load: %d (%.0f per request)"),
                    config.requests(), config.threads(), config.shapes(), config.settingsName(),
                    config.intraOp(),
                    answered, config.requests(), ok, busy, tooLarge, failures.size(), finished,
                    seconds, ok / seconds, tokens / seconds, latencyP50, latencyP99,
                    mib(budget.capacityBytes()), mib(budget.reserveBytes()), mib(maxHeld), mib(budget.leasableBytes()), mib(budget.peakInUseBytes()),
                    budget.waited(), budget.timedOut(), budget.leaked(), budget.totalWait().toMillis() / 1e3,
                    cache,
                    mib(rssBaseline), mib(rssPeak), mib(rssGrowth()), (double) rssGrowth() / budget.capacityBytes(),
                    mib(rssEnd), mib(arenaPeak), (double) arenaPeak / budget.capacityBytes(),
                    pageFaults, (double) pageFaults / Math.max(1, answered));
        }

        private static String mib(long bytes) {
            return String.format(Locale.ROOT, "%.0f MiB", bytes / 1048576.0);
        }
    }

    private LoadTest() {
    }

    /**
     * Runs the load.
     *
     * @param c what to run
     * @return the report
     * @throws Exception when the service cannot start
     */
    public static Report run(Config c) throws Exception {
        long reserve = c.reserveThreadBuffers() && c.settings().leasesOrtPrediction() ? threadBytes(c) : 0;
        MemoryBudget budget = MemoryBudget.of("embeddings", c.budget(), reserve);
        System.gc();
        long beforeOrt = ResidentMemory.bytes(); // the JVM alone: its heap is fixed and pre-touched
        try (EmbeddingService service = new EmbeddingService(c.model(), c.settings(), c.intraOp(), budget,
                c.waitLimit(), c.rowsPerRun())) {
            service.embed(tokens(new Random(0), 1, 8)); // loads the kernels: part of the baseline, not the load
            System.gc();
            long baseline = c.longest() != null ? beforeOrt : ResidentMemory.bytes();
            long arenaBase = arenaBytes(service);
            AtomicInteger ok = new AtomicInteger();
            AtomicLong tokens = new AtomicLong();
            AtomicInteger busy = new AtomicInteger();
            AtomicInteger tooLarge = new AtomicInteger();
            List<String> failures = Collections.synchronizedList(new ArrayList<>());
            List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
            ExecutorService pool = Executors.newFixedThreadPool(c.threads());
            long faultsBefore = ResidentMemory.minorFaults();
            long start = System.nanoTime();
            boolean finished;
            long peak;
            long arenaPeak;
            try (ResidentMemory.PeakSampler sampler = new ResidentMemory.PeakSampler(10, () -> arenaBytes(service))) {
                List<Future<?>> futures = new ArrayList<>();
                for (int i = 0; i < c.requests(); i++) {
                    Random r = new Random(c.seed() * 1_000_003 + i);
                    long[][] request = c.longest() != null ? tokens(r, c.longest()[0], c.longest()[1])
                            : tokens(r, 1 + r.nextInt(c.maxBatch()), 8 + r.nextInt(505));
                    futures.add(pool.submit(() -> {
                        long t0 = System.nanoTime();
                        try {
                            EmbeddingService.Response resp = service.embed(request);
                            switch (resp.status()) {
                                case OK -> {
                                    ok.incrementAndGet();
                                    tokens.addAndGet((long) request.length * request[0].length);
                                    latencies.add((System.nanoTime() - t0) / 1e6);
                                }
                                case BUSY -> busy.incrementAndGet();
                                case TOO_LARGE -> tooLarge.incrementAndGet();
                                default -> throw new AssertionError(resp.status());
                            }
                        } catch (Exception e) {
                            failures.add(String.valueOf(e));
                        }
                        return null;
                    }));
                }
                pool.shutdown();
                finished = pool.awaitTermination(c.deadline().toMillis(), TimeUnit.MILLISECONDS);
                if (!finished) {
                    pool.shutdownNow();
                }
                peak = sampler.peak();
                arenaPeak = sampler.peakOther() < 0 ? -1 : sampler.peakOther() - Math.max(0, arenaBase);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long faults = faultsBefore < 0 ? -1 : ResidentMemory.minorFaults() - faultsBefore;
            List<Double> sorted = new ArrayList<>(latencies);
            Collections.sort(sorted);
            return new Report(c, ok.get() + busy.get() + tooLarge.get(), ok.get(), tokens.get(), busy.get(), tooLarge.get(),
                    List.copyOf(failures), finished, seconds, percentile(sorted, 0.5), percentile(sorted, 0.99),
                    service.maxHeldBytes(), service.heldBytes(), budget.stats(), service.cacheSummary(), baseline,
                    peak, ResidentMemory.bytes(), arenaPeak, faults);
        }
    }

    /**
     * What the request threads and ORT's intra-op pool hold outside ORT's allocator while serving
     * (thread-local buffers, MLAS's among them), measured by {@link ServerSize} in a child JVM at the
     * longest run the load makes: the most rows (at most the cap) whose lease fits a run's share of
     * the budget, by the longest tokens.
     */
    private static long threadBytes(Config c) {
        OrtModel model = OrtModel.compile(c.model());
        long tokens = c.longest() != null ? c.longest()[1] : 512;
        long rows = c.longest() != null ? c.longest()[0] : c.maxBatch();
        if (c.rowsPerRun() > 0) {
            rows = Math.min(rows, c.rowsPerRun());
        }
        long share = c.budget() / EmbeddingService.runsInFlight(c.intraOp());
        while (rows > 1 && model.planForInputs(encoderShapes(model, rows, tokens)).boundedArenaBytes().orElseThrow() > share) {
            rows--;
        }
        Map<String, Long> bindings = model.planForInputs(encoderShapes(model, rows, tokens)).plan().bindings();
        return ServerSize.measure(model, bindings, c.threads(), c.intraOp()).threadBytes();
    }

    /** Every input of a BERT-style encoder as {@code [rows, tokens]}. */
    private static Map<String, long[]> encoderShapes(OrtModel model, long rows, long tokens) {
        Map<String, long[]> shapes = new TreeMap<>();
        model.model().inputs().keySet().forEach(input -> shapes.put(input, new long[] {rows, tokens}));
        return shapes;
    }

    /** ORT's CPU arena's reservation now, or -1 where its C API is not reachable. */
    private static long arenaBytes(EmbeddingService service) {
        try {
            return service.arenaStats().totalAllocatedBytes();
        } catch (IllegalStateException | UnsatisfiedLinkError e) {
            return -1;
        }
    }

    private static double percentile(List<Double> sorted, double p) {
        return sorted.isEmpty() ? 0 : sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(p * sorted.size())));
    }

    private static long[][] tokens(Random r, int batch, int seq) {
        long[][] t = new long[batch][seq];
        for (long[] row : t) {
            row[0] = 101; // [CLS]
            for (int i = 1; i < seq - 1; i++) {
                row[i] = 1000 + r.nextInt(29_000);
            }
            row[seq - 1] = 102; // [SEP]
        }
        return t;
    }

    /**
     * Runs the load from the command line and prints the report.
     *
     * @param args MODEL.onnx [requests] [threads] [settings] [budget MiB] [intra-op threads] [max batch] [rows per run]
     * @throws Exception when the service cannot start
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: LoadTest MODEL.onnx [requests] [threads] [bounded|defaults|recommended|no-arena|plain] [budget MiB] [intra-op threads] [max batch] [rows per run]");
            System.exit(2);
        }
        Config c = new Config(Path.of(args[0]), args.length > 1 ? Integer.parseInt(args[1]) : 200,
                args.length > 2 ? Integer.parseInt(args[2]) : 8,
                OrtSettings.parse(args.length > 3 ? args[3] : "bounded"), args.length > 5 ? Integer.parseInt(args[5]) : 1,
                (args.length > 4 ? Long.parseLong(args[4]) : 256) << 20, Duration.ofSeconds(30), 1,
                Duration.ofMinutes(10), null, args.length > 6 ? Integer.parseInt(args[6]) : 8,
                args.length > 7 ? Integer.parseInt(args[7]) : 0, true);
        Report r = run(c);
        System.out.println(r);
        System.exit(r.finished() && r.failures().isEmpty() && r.answered() == c.requests() ? 0 : 1);
    }
}
