package dev.memplan.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import dev.memplan.MemplanException;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * MiniMalloc's CSV form of an interval packing problem, read and written with Jackson's CSV
 * module: a header {@code id,lower,upper,size}, then one buffer per row, alive over the half-open
 * {@code [lower, upper)} with {@code size} bytes. Ids are any non-empty printable ASCII text,
 * unique (they are printed back); the numbers are 64-bit integers. Empty lines are skipped and spaces around
 * fields trimmed.
 */
final class PackingCsv {
    /** The header, in order. */
    static final String[] HEADER = {"id", "lower", "upper", "size"};
    private static final CsvMapper CSV = new CsvMapper();
    /** Characters of an input value quoted in an error before it is cut. */
    private static final int MAX_QUOTED = 40;

    private PackingCsv() {
    }

    /**
     * A problem as read: rows in file order.
     *
     * @param ids   each row's id, as written
     * @param lower each row's first time
     * @param upper each row's end time (exclusive)
     * @param sizes each row's bytes
     */
    record Problem(List<String> ids, long[] lower, long[] upper, long[] sizes) {
    }

    /**
     * Reads a problem.
     *
     * @throws MemplanException naming the line and column (and quoting the value, escaped) for a
     *                          missing or wrong header, a row of the wrong width, an empty or
     *                          duplicate id, a value that is not a 64-bit integer, a negative size,
     *                          {@code upper <= lower}, sizes whose sum overflows, or malformed CSV
     * @throws IOException      when the file cannot be read
     */
    static Problem read(Reader in) throws IOException {
        List<String> ids = new ArrayList<>();
        LongList lower = new LongList();
        LongList upper = new LongList();
        LongList sizes = new LongList();
        Map<String, Integer> lineOfId = new HashMap<>();
        long total = 0;
        boolean header = true;
        try (MappingIterator<String[]> rows = CSV.readerFor(String[].class).with(CsvParser.Feature.WRAP_AS_ARRAY)
                .with(CsvParser.Feature.SKIP_EMPTY_LINES).with(CsvParser.Feature.TRIM_SPACES).readValues(in)) {
            while (rows.hasNextValue()) {
                String[] row = rows.nextValue();
                int line = rows.getParser().currentTokenLocation().getLineNr();
                if (header) {
                    checkHeader(row, line);
                    header = false;
                    continue;
                }
                if (row.length != HEADER.length) {
                    throw new MemplanException("line " + line + ": " + row.length + " columns, expected "
                            + HEADER.length + " (" + String.join(",", HEADER) + ")");
                }
                String id = row[0];
                if (id.isEmpty()) {
                    throw at(line, 0, "the id is empty; give every buffer an id");
                }
                if (!id.chars().allMatch(ch -> ch >= 0x20 && ch < 0x7f)) {
                    throw at(line, 0, "the id " + quote(id) + " has characters outside printable ASCII;"
                            + " ids are printed back as they are");
                }
                Integer first = lineOfId.putIfAbsent(id, line);
                if (first != null) {
                    throw at(line, 0, "the id " + quote(id) + " is used already on line " + first
                            + "; ids must be unique");
                }
                long lo = integer(row, 1, line);
                long up = integer(row, 2, line);
                long size = integer(row, 3, line);
                if (up <= lo) {
                    throw at(line, 2, "upper " + up + " is not greater than lower " + lo
                            + "; a lifetime [lower, upper) needs upper > lower");
                }
                if (size < 0) {
                    throw at(line, 3, "the size " + size + " is negative; sizes are bytes >= 0");
                }
                total += size; // both >= 0: a negative sum is an overflow
                if (total < 0) {
                    throw at(line, 3, "the sizes up to this row overflow a 64-bit byte count; no arena holds them");
                }
                ids.add(id);
                lower.add(lo);
                upper.add(up);
                sizes.add(size);
            }
        } catch (JsonProcessingException e) {
            throw new MemplanException("line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr() + ": malformed CSV (" + quote(e.getOriginalMessage(), 2 * MAX_QUOTED) + ")");
        }
        if (header) {
            throw new MemplanException("line 1: the file is empty; expected the header " + String.join(",", HEADER));
        }
        return new Problem(List.copyOf(ids), lower.toArray(), upper.toArray(), sizes.toArray());
    }

    /** Writes the header with {@code offset} appended, then every row with its offset, in input order. */
    static void write(Problem problem, long[] offsets, Writer out) throws IOException {
        try (SequenceWriter rows = CSV.writerFor(String[].class).writeValues(out)) {
            rows.write(new String[] {"id", "lower", "upper", "size", "offset"});
            for (int i = 0; i < offsets.length; i++) {
                rows.write(new String[] {problem.ids().get(i), Long.toString(problem.lower()[i]),
                        Long.toString(problem.upper()[i]), Long.toString(problem.sizes()[i]), Long.toString(offsets[i])});
            }
        }
    }

    private static void checkHeader(String[] row, int line) {
        for (int c = 0; c < HEADER.length; c++) {
            if (c >= row.length || !row[c].equals(HEADER[c])) {
                throw new MemplanException("line " + line + ", column " + (c + 1) + ": the header must be "
                        + String.join(",", HEADER) + ", found " + (c >= row.length ? "nothing" : quote(row[c])));
            }
        }
        if (row.length > HEADER.length) {
            throw new MemplanException("line " + line + ", column " + (HEADER.length + 1) + ": the header must be "
                    + String.join(",", HEADER) + ", found the extra column " + quote(row[HEADER.length]));
        }
    }

    private static long integer(String[] row, int column, int line) {
        String text = row[column];
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw at(line, column, quote(text) + " is not an integer in [-2^63, 2^63)");
        }
    }

    private static MemplanException at(int line, int column, String problem) {
        return new MemplanException("line " + line + ", column " + (column + 1) + " (" + HEADER[column] + "): " + problem);
    }

    /**
     * {@code text} in single quotes, every character outside printable ASCII written as a Java
     * escape, cut after {@link #MAX_QUOTED} characters: input never reaches a terminal raw.
     */
    static String quote(String text) {
        return quote(text, MAX_QUOTED);
    }

    /** As {@link #quote(String)}, cut after {@code max} characters. */
    static String quote(String text, int max) {
        if (text == null) {
            return "''";
        }
        StringBuilder sb = new StringBuilder("'");
        for (int i = 0; i < text.length() && i < max; i++) {
            char ch = text.charAt(i);
            if (ch == '\'' || ch == '\\') {
                sb.append('\\').append(ch);
            } else if (ch >= 0x20 && ch < 0x7f) {
                sb.append(ch);
            } else {
                sb.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) ch));
            }
        }
        return sb.append(text.length() > max ? "'..." : "'").toString();
    }

    /** A growable list of longs. */
    private static final class LongList {
        private long[] values = new long[16];
        private int size;

        void add(long v) {
            if (size == values.length) {
                values = java.util.Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        long[] toArray() {
            return java.util.Arrays.copyOf(values, size);
        }
    }
}
