package dev.memplan.generate;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a {@link PackingInstance} in the CSV form of MiniMalloc and its benchmark sets: a header
 * {@code id,lower,upper,size}, then one row per buffer in id order, lifetime {@code [lower, upper)}
 * half-open in positions, size in bytes. Lines end with {@code \n}.
 */
public final class PackingCsv {
    /** The header line, without its newline. */
    public static final String HEADER = "id,lower,upper,size";

    private PackingCsv() {
    }

    /**
     * Writes {@code instance} to {@code out} (not closed).
     *
     * @throws IOException when {@code out} fails
     */
    public static void write(PackingInstance instance, Writer out) throws IOException {
        int[] lower = instance.lower();
        int[] upper = instance.upper();
        long[] sizes = instance.sizes();
        StringBuilder sb = new StringBuilder(HEADER).append('\n');
        for (int i = 0; i < sizes.length; i++) {
            sb.append(i).append(',').append(lower[i]).append(',').append(upper[i]).append(',').append(sizes[i])
                    .append('\n');
        }
        out.write(sb.toString());
    }

    /**
     * Writes {@code instance} to the file {@code path} in UTF-8, replacing it.
     *
     * @throws IOException when the file cannot be written
     */
    public static void write(PackingInstance instance, Path path) throws IOException {
        try (Writer w = Files.newBufferedWriter(path, StandardCharsets.UTF_8)) {
            write(instance, w);
        }
    }

    /** {@code instance} as CSV text. */
    public static String toCsv(PackingInstance instance) {
        StringWriter w = new StringWriter();
        try {
            write(instance, w);
        } catch (IOException e) {
            throw new UncheckedIOException("a StringWriter does not fail", e);
        }
        return w.toString();
    }
}
