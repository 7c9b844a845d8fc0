// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import dev.memplan.Graph;
import dev.memplan.ViewMap;
import dev.memplan.io.InputFiles;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The JSON graph file format:
 *
 * <pre>{@code
 * {"values": [{"name":"x","dtype":"float32","shape":[1,"seq",768]}, ...],
 *  "inputs": ["x"], "outputs": ["y"], "initializers": ["w"],
 *  "nodes": [{"name":"n0","op":"MatMul","inputs":["x","w"],"outputs":["h"]}, ...],
 *  "views": {"h_view": "h"}}
 * }</pre>
 *
 * <p>Value ids are positions in {@code values}, node ids positions in {@code nodes}. A dim is an
 * integer {@code >= 0} or a symbol name. Every value has a unique non-empty name, its {@code dtype}
 * (names of {@link dev.memplan.DataType#fromName}) and its {@code shape}; a node has an {@code op},
 * and optionally a unique {@code name}, a {@code domain}, {@code inputs} ({@code ""} is an absent
 * optional input) and {@code outputs}. {@code values} and {@code nodes} are required, the other
 * fields optional. Unknown fields, duplicate names or keys, unknown dtypes, bad dims, undeclared
 * values and malformed JSON are {@link GraphFileException}s that say where (line, column, JSON
 * path); errors of the graph itself ({@link Graph.Builder#build()}) pass through unchanged.
 */
public final class GraphJson {
    private GraphJson() {
    }

    /**
     * Reads a graph file (UTF-8; other encodings are refused with a {@link GraphFileException}).
     *
     * @param file the file
     * @return the graph and its views
     * @throws java.nio.file.NoSuchFileException       when it does not exist
     * @throws java.nio.file.FileSystemException      naming the file when it is a directory, FIFO or
     *                                                  device: refused at once, never blocked on
     * @throws IOException                              when it cannot be read
     */
    public static GraphFile read(Path file) throws IOException {
        InputFiles.requireRegularFile(file);
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
            return GraphJsonReader.read(in);
        }
    }

    /**
     * Reads a graph from {@code in}; does not close it.
     *
     * @param in the reader
     * @return the graph and its views
     * @throws IOException when {@code in} fails
     */
    public static GraphFile read(Reader in) throws IOException {
        return GraphJsonReader.read(in);
    }

    /**
     * Reads a graph from a string.
     *
     * @param json the JSON text
     * @return the graph and its views
     */
    public static GraphFile parse(String json) {
        try {
            return read(new StringReader(json));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringReader does not fail
        }
    }

    /**
     * Writes {@code graph} and {@code views}, one value or node per line. Unnamed values are
     * written as {@code %id}.
     *
     * @param graph the graph
     * @param views its views
     * @param out where to write; not closed
     * @throws IllegalArgumentException when a shape has a derived dim, which the format cannot hold
     * @throws IOException when {@code out} fails
     */
    public static void write(Graph graph, ViewMap views, Writer out) throws IOException {
        GraphJsonWriter.write(graph, views, out);
    }

    /**
     * Writes a graph file (UTF-8).
     *
     * @param graph the graph
     * @param views its views
     * @param file the file to write (UTF-8)
     * @throws IOException when the file cannot be written
     */
    public static void write(Graph graph, ViewMap views, Path file) throws IOException {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(graph, views, out);
        }
    }

    /**
     * {@return the graph file text of {@code graph} and {@code views}}
     *
     * @param graph the graph
     * @param views its views
     */
    public static String toJson(Graph graph, ViewMap views) {
        StringWriter out = new StringWriter();
        try {
            write(graph, views, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    /**
     * What a graph file holds: the graph and its view map. The view rules are checked when the graph
     * is planned ({@code MemPlan.compile}), as for a graph built in code.
     */
    public record GraphFile(Graph graph, ViewMap views) {
        /**
         * Rejects null fields.
         *
         * @param graph the graph read
         * @param views its views
         */
        public GraphFile {
            Objects.requireNonNull(graph, "graph");
            Objects.requireNonNull(views, "views");
        }
    }
}
