// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.MemplanException;
import dev.memplan.io.UnsafeChars;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The one reader and writer of MiniMalloc's CSV form of an interval packing problem (used by
 * {@code memplan pack} and by the generators' sample files): a header {@code id,lower,upper,size},
 * then one buffer per row, alive over the half-open {@code [lower, upper)} with {@code size} bytes.
 * Ids are non-empty printable ASCII, unique, and printed back exactly as read; a field may be
 * quoted ({@code "x,1"}, a quote doubled inside, closed on its line), spaces around fields are trimmed, empty lines
 * skipped, lines end with {@code \n} or {@code \r\n}. A row never loses a character silently:
 * a control character anywhere, or a field longer than {@link #MAX_FIELD_CHARS}, is an error that
 * names the line and column. Read in one pass with memory proportional to the rows.
 */
public final class PackingCsv {
    /** The header line, without its newline. */
    public static final String HEADER = "id,lower,upper,size";
    /** The longest field read, in characters: far beyond any id or 64-bit number, short of a runaway line. */
    public static final int MAX_FIELD_CHARS = 4_096;
    private static final String[] COLUMNS = HEADER.split(",");
    /** Characters of an input value quoted in an error before it is cut. */
    private static final int MAX_QUOTED = 40;

    private PackingCsv() {
    }

    /**
     * A problem: rows in file order.
     *
     * @param ids   each row's id, as written
     * @param lower each row's first time
     * @param upper each row's end time (exclusive)
     * @param sizes each row's bytes
     */
    public record Problem(List<String> ids, long[] lower, long[] upper, long[] sizes) {
        /**
         * A problem whose ids are the row numbers {@code 0..n-1} (generated instances).
         *
         * @param lower each row's first time
         * @param upper each row's end time (exclusive)
         * @param sizes each row's bytes
         * @return the problem
         */
        public static Problem numbered(int[] lower, int[] upper, long[] sizes) {
            List<String> ids = new ArrayList<>(sizes.length);
            for (int i = 0; i < sizes.length; i++) {
                ids.add(Integer.toString(i));
            }
            return new Problem(ids, Arrays.stream(lower).asLongStream().toArray(),
                    Arrays.stream(upper).asLongStream().toArray(), sizes.clone());
        }
    }

    /**
     * Reads a problem.
     *
     * @param in the CSV text; not closed
     * @return the rows in file order
     * @throws MemplanException naming the line and column (and quoting the value, escaped) for a
     *                          missing or wrong header, a row of the wrong width, a control
     *                          character, an over-long field, an empty, non-ASCII or duplicate
     *                          id, a value that is not a 64-bit integer, a negative size,
     *                          {@code upper <= lower}, a quoted field not closed on its line, or
     *                          a stray quote (sizes whose sum passes a long are read: whether an
     *                          arena holds them is {@code Packing}'s question)
     * @throws IOException      when the text cannot be read
     */
    public static Problem read(Reader in) throws IOException {
        CsvLines lines = new CsvLines(in);
        List<String> header = lines.next();
        if (header == null) {
            throw new MemplanException("line 1: the file is empty; expected the header " + HEADER);
        }
        checkHeader(header, lines.line());
        List<String> ids = new ArrayList<>();
        LongList lower = new LongList();
        LongList upper = new LongList();
        LongList sizes = new LongList();
        Map<String, Integer> lineOfId = new HashMap<>();
        for (List<String> row = lines.next(); row != null; row = lines.next()) {
            int line = lines.line();
            if (row.size() != COLUMNS.length) {
                throw new MemplanException("line " + line + ": " + (row.size() > COLUMNS.length ? "more than "
                        + COLUMNS.length : row.size()) + " columns, expected " + COLUMNS.length + " (" + HEADER + ")");
            }
            String id = row.get(0);
            if (id.isEmpty()) {
                throw at(line, 0, "the id is empty; give every buffer an id");
            }
            if (!id.chars().allMatch(ch -> ch >= 0x20 && ch < 0x7f)) {
                throw at(line, 0, "the id " + quote(id) + " has characters outside printable ASCII;"
                        + " ids are printed back as they are");
            }
            Integer first = lineOfId.putIfAbsent(id, line);
            if (first != null) {
                throw at(line, 0, "the id " + quote(id) + " is used already on line " + first + "; ids must be unique");
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
            ids.add(id);
            lower.add(lo);
            upper.add(up);
            sizes.add(size);
        }
        return new Problem(List.copyOf(ids), lower.toArray(), upper.toArray(), sizes.toArray());
    }

    /**
     * Writes the header, then every row in input order; with {@code offsets}, each row gets an
     * {@code offset} column (the header too). Ids that hold a comma, a quote or outer spaces are
     * quoted, so the output reads back as the same rows. Lines end with {@code \n}.
     *
     * @param problem the rows
     * @param offsets each row's offset, or null for the problem alone
     * @param out     where to write; not closed
     * @throws IOException when {@code out} fails
     */
    public static void write(Problem problem, long[] offsets, Writer out) throws IOException {
        StringBuilder sb = new StringBuilder(1 << 16);
        sb.append(HEADER).append(offsets != null ? ",offset\n" : "\n");
        for (int i = 0; i < problem.sizes().length; i++) {
            appendId(sb, problem.ids().get(i));
            sb.append(',').append(problem.lower()[i]).append(',').append(problem.upper()[i]).append(',')
                    .append(problem.sizes()[i]);
            if (offsets != null) {
                sb.append(',').append(offsets[i]);
            }
            sb.append('\n');
            if (sb.length() > (1 << 16) - 256) {
                out.write(sb.toString());
                sb.setLength(0);
            }
        }
        out.write(sb.toString());
    }

    /**
     * {@code problem} as CSV text, without offsets.
     *
     * @param problem the rows
     * @return the text {@link #read} reads back as the same rows
     */
    public static String toCsv(Problem problem) {
        StringWriter w = new StringWriter();
        try {
            write(problem, null, w);
        } catch (IOException e) {
            throw new UncheckedIOException("a StringWriter does not fail", e);
        }
        return w.toString();
    }

    private static void appendId(StringBuilder sb, String id) {
        boolean quoted = id.indexOf(',') >= 0 || id.indexOf('"') >= 0 || id.startsWith(" ") || id.endsWith(" ");
        if (quoted) {
            sb.append('"').append(id.replace("\"", "\"\"")).append('"');
        } else {
            sb.append(id);
        }
    }

    private static void checkHeader(List<String> row, int line) {
        for (int c = 0; c < COLUMNS.length; c++) {
            if (c >= row.size() || !row.get(c).equals(COLUMNS[c])) {
                throw new MemplanException("line " + line + ", column " + (c + 1) + ": the header must be "
                        + HEADER + ", found " + (c >= row.size() ? "nothing" : quote(row.get(c))));
            }
        }
        if (row.size() > COLUMNS.length) {
            throw new MemplanException("line " + line + ", column " + (COLUMNS.length + 1) + ": the header must be "
                    + HEADER + ", found the extra column " + quote(row.get(COLUMNS.length)));
        }
    }

    private static long integer(List<String> row, int column, int line) {
        String text = row.get(column);
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw at(line, column, quote(text) + " is not an integer in [-2^63, 2^63)");
        }
    }

    private static MemplanException at(int line, int column, String problem) {
        return new MemplanException("line " + line + ", column " + (column + 1) + " (" + COLUMNS[column] + "): "
                + problem);
    }

    /**
     * {@code text} in single quotes, cut after {@link #MAX_QUOTED} characters. Not escaped: the
     * message is escaped once, where it is printed ({@link dev.memplan.io.TerminalText}).
     */
    static String quote(String text) {
        return "'" + (text.length() > MAX_QUOTED ? text.substring(0, MAX_QUOTED) + "'..." : text + "'");
    }

    /**
     * Splits the text into rows of fields, line by line, without ever holding more than one row
     * (each field at most {@link #MAX_FIELD_CHARS}); a row of more than five fields keeps only
     * five, enough to say it is too wide.
     */
    private static final class CsvLines {
        private static final int MAX_FIELDS = COLUMNS.length + 1;
        private final Reader in;
        private final char[] buf = new char[1 << 16];
        private int pos;
        private int len;
        private int line;
        private int nextLine = 1;

        CsvLines(Reader in) {
            this.in = in;
        }

        /** The line of the row {@link #next} returned last. */
        int line() {
            return line;
        }

        /** The next non-empty row, or null at the end of the text. */
        List<String> next() throws IOException {
            while (true) {
                line = nextLine;
                List<String> row = readRow();
                if (row == null) {
                    return null;
                }
                if (!(row.size() == 1 && row.get(0).isEmpty())) {
                    return row;
                }
            }
        }

        /** One line's fields (an empty line is one empty field), or null at the end. */
        private List<String> readRow() throws IOException {
            if (peek() < 0) {
                return null;
            }
            List<String> row = new ArrayList<>(COLUMNS.length);
            StringBuilder field = new StringBuilder();
            while (true) {
                field.setLength(0);
                int end = readField(field, row.size());
                if (row.size() < MAX_FIELDS) {
                    row.add(field.toString());
                }
                if (end != ',') {
                    nextLine++;
                    return row;
                }
            }
        }

        /**
         * Reads one field into {@code field}, trimmed of spaces; returns what ended it: a comma,
         * a newline or -1 (the end of the text).
         */
        private int readField(StringBuilder field, int column) throws IOException {
            skipSpaces();
            if (peek() == '"') {
                pos++;
                readQuoted(field, column);
                skipSpaces();
                int c = take();
                if (c != ',' && c != '\n' && c != -1 && !(c == '\r' && takeIf('\n'))) {
                    throw malformed(column, "text after the closing quote of a quoted field");
                }
                return c == '\r' ? '\n' : c;
            }
            while (true) {
                int c = take();
                if (c == ',' || c == '\n' || c == -1) {
                    trimTrailingSpaces(field);
                    return c;
                }
                if (c == '\r' && takeIf('\n')) {
                    trimTrailingSpaces(field);
                    return '\n';
                }
                if (c == '"') {
                    throw malformed(column, "a quote inside an unquoted field; quote the whole field and double"
                            + " the quotes in it");
                }
                append(field, (char) c, column);
            }
        }

        private void readQuoted(StringBuilder field, int column) throws IOException {
            while (true) {
                int c = take();
                // A field never spans lines: a line break in a quoted field means its closing quote is missing.
                if (c == -1 || c == '\n' || c == '\r') {
                    throw malformed(column, "unclosed quote: the quoted field has no closing quote before the end of"
                            + " the " + (c == -1 ? "file" : "line") + "; close it with a quote, and double any quote"
                            + " inside it");
                }
                if (c == '"') {
                    if (!takeIf('"')) {
                        return;
                    }
                }
                append(field, (char) c, column);
            }
        }

        private void append(StringBuilder field, char c, int column) {
            if (UnsafeChars.isUnsafe(c)) {
                throw fieldError(column, String.format(Locale.ROOT, "a control or invisible character (U+%04X)"
                        + " at character %d of the field; rows are printed back as they are, so remove it",
                        (int) c, field.length() + 1));
            }
            if (field.length() >= MAX_FIELD_CHARS) {
                throw fieldError(column, "the field is longer than " + String.format(Locale.ROOT, "%,d",
                        MAX_FIELD_CHARS) + " characters; an id or a 64-bit number is far shorter");
            }
            field.append(c);
        }

        private MemplanException fieldError(int column, String problem) {
            return new MemplanException("line " + nextLine + ", column " + (column + 1)
                    + (column < COLUMNS.length ? " (" + COLUMNS[column] + ")" : "") + ": " + problem);
        }

        private MemplanException malformed(int column, String problem) {
            return new MemplanException("line " + nextLine + ", column " + (column + 1) + ": malformed CSV ("
                    + problem + ")");
        }

        private void skipSpaces() throws IOException {
            while (peek() == ' ') {
                pos++;
            }
        }

        private static void trimTrailingSpaces(StringBuilder field) {
            int n = field.length();
            while (n > 0 && field.charAt(n - 1) == ' ') {
                n--;
            }
            field.setLength(n);
        }

        private int peek() throws IOException {
            if (pos == len) {
                len = in.read(buf, 0, buf.length);
                pos = 0;
                if (len <= 0) {
                    len = 0;
                    return -1;
                }
            }
            return buf[pos];
        }

        private int take() throws IOException {
            int c = peek();
            if (c >= 0) {
                pos++;
            }
            return c;
        }

        private boolean takeIf(char expected) throws IOException {
            if (peek() == expected) {
                pos++;
                return true;
            }
            return false;
        }
    }

    /** A growable list of longs. */
    private static final class LongList {
        private long[] values = new long[16];
        private int size;

        void add(long v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        long[] toArray() {
            return Arrays.copyOf(values, size);
        }
    }
}
