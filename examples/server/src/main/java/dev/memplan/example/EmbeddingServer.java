// SPDX-License-Identifier: Apache-2.0
package dev.memplan.example;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.memplan.server.MemoryBudget;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Executors;

/**
 * {@link EmbeddingService} over HTTP on the loopback address: {@code POST /embed} with one line of
 * space-separated token ids per sequence (all of one length) answers one line of numbers per
 * sequence; {@code GET /stats} answers the budget's figures and the service's cache line. Statuses: 200,
 * 503 when the budget had no room within 10 s, 413 when the request can never fit, 400 for a
 * malformed body.
 *
 * <pre>
 * java -cp ... dev.memplan.example.EmbeddingServer MODEL.onnx [port] [budget MiB]
 * curl -d '101 7592 2088 102' http://127.0.0.1:8080/embed
 * </pre>
 */
public final class EmbeddingServer {
    private EmbeddingServer() {
    }

    /**
     * Serves until the process is stopped.
     *
     * @param args MODEL.onnx [port] [budget MiB]
     * @throws Exception when the model cannot be loaded or the port bound
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: EmbeddingServer MODEL.onnx [port] [budget MiB]");
            System.exit(2);
        }
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 8080;
        long budgetBytes = (args.length > 2 ? Long.parseLong(args[2]) : 256) << 20;
        EmbeddingService service = new EmbeddingService(Path.of(args[0]), OrtSettings.BOUNDED,
                MemoryBudget.of("embeddings", budgetBytes, 0), Duration.ofSeconds(10));
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        http.setExecutor(Executors.newFixedThreadPool(8));
        http.createContext("/embed", exchange -> handle(exchange, service));
        http.createContext("/stats", exchange -> reply(exchange, 200,
                service.budget().stats() + "\n" + service.cacheSummary() + "\n"));
        http.start();
        System.out.println("serving on http://127.0.0.1:" + port + "/embed with a budget of " + (budgetBytes >> 20) + " MiB");
    }

    private static void handle(HttpExchange exchange, EmbeddingService service) throws IOException {
        long[][] ids;
        try {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8).strip();
            ids = body.lines().map(l -> Arrays.stream(l.trim().split("\\s+")).mapToLong(Long::parseLong).toArray())
                    .toArray(long[][]::new);
            if (ids.length == 0 || Arrays.stream(ids).anyMatch(r -> r.length != ids[0].length)) {
                reply(exchange, 400, "send one line of token ids per sequence, all of one length\n");
                return;
            }
        } catch (NumberFormatException e) {
            reply(exchange, 400, "token ids are whole numbers separated by spaces\n");
            return;
        }
        try {
            EmbeddingService.Response r = service.embed(ids);
            switch (r.status()) {
                case OK -> {
                    StringBuilder out = new StringBuilder();
                    for (float[] v : r.embeddings()) {
                        for (int i = 0; i < v.length; i++) {
                            out.append(i == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.5f", v[i]));
                        }
                        out.append('\n');
                    }
                    reply(exchange, 200, out.toString());
                }
                case BUSY -> reply(exchange, 503, r.message() + "\n");
                case TOO_LARGE -> reply(exchange, 413, r.message() + "\n");
                default -> throw new AssertionError(r.status());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            reply(exchange, 503, "shutting down\n");
        } catch (ai.onnxruntime.OrtException e) {
            reply(exchange, 500, "the model failed to run\n");
        }
    }

    private static void reply(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
