// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.MemplanException;
import dev.memplan.io.UnsafeChars;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVPrinter;
import org.apache.commons.csv.CSVRecord;

/**
 * The one reader and writer of MiniMalloc's CSV form of an interval packing problem (used by
 * {@code memplan pack} and by the tests' sample files): a header {@code id,lower,upper,size},
 * then one buffer per row, alive over the half-open {@code [lower, upper)} with {@code size} bytes.
 * Ids are non-empty printable ASCII, unique, and printed back exactly as read; a field may be
 * quoted ({@code "x,1"}, a quote doubled inside, closed on its line), spaces around fields are trimmed, empty lines
 * skipped, lines end with {@code \n} or {@code \r\n}. A row never loses a character silently:
 * a control character anywhere, or a field longer than {@link #MAX_FIELD_CHARS}, is an error that
 * names the line and column. Read in one pass with memory proportional to the rows.
 *
 * <p>Apache Commons CSV splits the rows and unquotes the fields, and writes the rows back. It names
 * neither the column of a malformed field nor whether a field was quoted, accepts a quote inside an
 * unquoted field and a line break inside a quoted one, and holds a field of any length: so the
 * text reaches it through {@link RowGuard}, which refuses all that (and control characters) with
 * the line and column, and drops the spaces around fields.
 */
final class PackingCsv {
    /** The header line, without its newline. */
    static final String HEADER = "id,lower,upper,size";
    /** The longest field read, in characters: far beyond any id or 64-bit number, short of a runaway line. */
    static final int MAX_FIELD_CHARS = 4_096;
    private static final String[] COLUMNS = HEADER.split(",");
    /** Fields of a row kept: one more than the header's, enough to say a row is too wide. */
    private static final int MAX_FIELDS = COLUMNS.length + 1;
    /** Characters of an input value quoted in an error before it is cut. */
    private static final int MAX_QUOTED = 40;
    /**
     * What {@link RowGuard} passes on: fields separated by commas, no spaces around them, a quote
     * only around a whole field (doubled inside it), rows ending with {@code \n}, no empty lines.
     */
    private static final CSVFormat READ = CSVFormat.RFC4180.builder().setRecordSeparator('\n').get();
    /**
     * Fields as given, quoted by {@link #idField}: Commons CSV's minimal quoting would also quote
     * an id that begins with {@code !} or {@code #}, and the rows are printed back as they were read.
     */
    private static final CSVFormat WRITE = CSVFormat.RFC4180.builder().setQuote(null).setRecordSeparator('\n').get();

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
    record Problem(List<String> ids, long[] lower, long[] upper, long[] sizes) {
        /**
         * A problem whose ids are the row numbers {@code 0..n-1} (generated instances).
         *
         * @param lower each row's first time
         * @param upper each row's end time (exclusive)
         * @param sizes each row's bytes
         * @return the problem
         */
        static Problem numbered(int[] lower, int[] upper, long[] sizes) {
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
    static Problem read(Reader in) throws IOException {
        RowGuard guard = new RowGuard(in);
        Iterator<CSVRecord> rows = CSVParser.parse(guard, READ).iterator();
        CSVRecord header = next(rows, guard);
        if (header == null) {
            throw new MemplanException("line 1: the file is empty; expected the header " + HEADER);
        }
        checkHeader(header, guard.recordLine());
        List<String> ids = new ArrayList<>();
        LongList lower = new LongList();
        LongList upper = new LongList();
        LongList sizes = new LongList();
        Map<String, Integer> lineOfId = new HashMap<>();
        for (CSVRecord row = next(rows, guard); row != null; row = next(rows, guard)) {
            int line = guard.recordLine();
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
     * The next row that is not one empty field (a line of {@code ""}, skipped as an empty line is),
     * or null at the end; the guard's refusal first when it found a fault on that row's line or
     * before.
     */
    private static CSVRecord next(Iterator<CSVRecord> rows, RowGuard guard) throws IOException {
        try {
            while (rows.hasNext()) {
                CSVRecord row = rows.next();
                guard.nextRecord();
                if (!(row.size() == 1 && row.get(0).isEmpty())) {
                    return row;
                }
            }
        } catch (UncheckedIOException e) {
            guard.throwFault(); // the text stopped at the fault, perhaps inside a quoted field
            throw e.getCause(); // the text could not be read (not UTF-8, say)
        }
        guard.throwFault();
        return null;
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
    static void write(Problem problem, long[] offsets, Writer out) throws IOException {
        StringBuilder sb = new StringBuilder(1 << 16);
        CSVPrinter printer = new CSVPrinter(sb, WRITE);
        printer.printRecord((Object[]) (offsets != null ? (HEADER + ",offset").split(",") : COLUMNS));
        for (int i = 0; i < problem.sizes().length; i++) {
            printer.print(idField(problem.ids().get(i)));
            printer.print(problem.lower()[i]);
            printer.print(problem.upper()[i]);
            printer.print(problem.sizes()[i]);
            if (offsets != null) {
                printer.print(offsets[i]);
            }
            printer.println();
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
    static String toCsv(Problem problem) {
        StringWriter w = new StringWriter();
        try {
            write(problem, null, w);
        } catch (IOException e) {
            throw new UncheckedIOException("a StringWriter does not fail", e);
        }
        return w.toString();
    }

    /** {@code id} quoted when it holds a comma or a quote, or begins or ends with a space. */
    private static String idField(String id) {
        boolean quoted = id.indexOf(',') >= 0 || id.indexOf('"') >= 0 || id.startsWith(" ") || id.endsWith(" ");
        return quoted ? '"' + id.replace("\"", "\"\"") + '"' : id;
    }

    private static void checkHeader(CSVRecord row, int line) {
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

    private static long integer(CSVRecord row, int column, int line) {
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
     * The text on its way to Commons CSV, checked one character at a time: a control or invisible
     * character, a field longer than {@link #MAX_FIELD_CHARS}, a quote inside an unquoted field,
     * text after a closing quote or a quoted field not closed on its line is a fault named by its
     * line and column. The text passed on stops at the first fault, which {@link #throwFault} throws
     * once the rows before it are read (so a fault is reported in reading order, whichever finds it).
     * Spaces around fields, empty lines and the fields after a row's fifth are not passed on, so a
     * row never holds more than five fields of {@link #MAX_FIELD_CHARS}; lines end with {@code \n}.
     */
    private static final class RowGuard extends Reader {
        private static final int FIELD_START = 0;
        private static final int UNQUOTED = 1;
        private static final int QUOTED = 2;
        private static final int QUOTE_IN_QUOTED = 3;
        private static final int AFTER_QUOTE = 4;
        private final Reader in;
        private final char[] buf = new char[1 << 16];
        private char[] out = new char[(1 << 16) + MAX_FIELD_CHARS + 8];
        private int outStart;
        private int outEnd;
        private boolean done;
        /** The line being read, and its field, counted up to {@link #MAX_FIELDS} (a later one counts as the sixth). */
        private int line = 1;
        private int column;
        private int state = FIELD_START;
        /** Characters of the field so far, spaces before it not counted. */
        private int fieldChars;
        /** Spaces after unquoted text: passed on only when more text of the field follows. */
        private int spaces;
        /** A carriage return just read: a line end when a newline follows. */
        private boolean carriageReturn;
        /** Whether anything of this line was passed on: it then makes one record. */
        private boolean lineStarted;
        /** The lines of the records passed on and not yet read. */
        private final ArrayDeque<Integer> recordLines = new ArrayDeque<>();
        private int recordLine;
        private MemplanException fault;
        private int faultLine;

        RowGuard(Reader in) {
            this.in = in;
        }

        /** The line of the record just read. */
        int recordLine() {
            return recordLine;
        }

        /** Notes that one more record was read; throws the fault when it is on that record's line or before. */
        void nextRecord() {
            Integer next = recordLines.poll();
            recordLine = next == null ? line : next;
            if (fault != null && faultLine <= recordLine) {
                throw fault;
            }
        }

        /** Throws the fault that ended the text, if one did. */
        void throwFault() {
            if (fault != null) {
                throw fault;
            }
        }

        @Override
        public int read(char[] cbuf, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            while (outStart == outEnd) {
                if (done) {
                    return -1;
                }
                outStart = 0;
                outEnd = 0;
                int n = in.read(buf, 0, buf.length);
                if (n < 0) {
                    end();
                    done = true;
                } else {
                    for (int i = 0; i < n && !done; i++) {
                        char c = buf[i];
                        // the common case, inside an unquoted field: a printable ASCII character is passed on
                        if (state == UNQUOTED && c > ' ' && c < 0x7f && c != ',' && c != '"' && spaces == 0
                                && !carriageReturn && fieldChars < MAX_FIELD_CHARS && column < MAX_FIELDS
                                && outEnd < out.length) {
                            fieldChars++;
                            out[outEnd++] = c;
                        } else {
                            accept(c);
                        }
                    }
                }
            }
            int n = Math.min(len, outEnd - outStart);
            System.arraycopy(out, outStart, cbuf, off, n);
            outStart += n;
            return n;
        }

        @Override
        public void close() {
            // the caller closes its reader
        }

        private void accept(char c) {
            if (carriageReturn) {
                carriageReturn = false;
                if (c == '\n') {
                    endLine();
                } else {
                    loneCarriageReturn();
                }
                return;
            }
            switch (state) {
                case FIELD_START -> {
                    if (c == '"') {
                        state = QUOTED;
                        pass('"');
                    } else if (c != ' ') {
                        state = UNQUOTED;
                        unquoted(c);
                    }
                }
                case UNQUOTED -> unquoted(c);
                case QUOTED -> {
                    if (c == '"') {
                        state = QUOTE_IN_QUOTED;
                    } else if (c == '\n' || c == '\r') {
                        // A field never spans lines: a line break in a quoted field means its closing quote is missing.
                        unclosedQuote("line");
                    } else if (text(c)) {
                        pass(c);
                    }
                }
                case QUOTE_IN_QUOTED -> {
                    if (c == '"') {
                        state = QUOTED;
                        if (text('"')) {
                            pass('"');
                            pass('"');
                        }
                    } else {
                        state = AFTER_QUOTE;
                        pass('"');
                        afterQuote(c);
                    }
                }
                default -> afterQuote(c);
            }
        }

        private void unquoted(char c) {
            if (c == ',') {
                endField();
            } else if (c == '\n') {
                endLine();
            } else if (c == '\r') {
                carriageReturn = true;
            } else if (c == '"') {
                fail(malformed("a quote inside an unquoted field; quote the whole field and double the quotes in it"));
            } else if (text(c)) {
                if (c == ' ') {
                    spaces++;
                } else {
                    for (; spaces > 0; spaces--) {
                        pass(' ');
                    }
                    pass(c);
                }
            }
        }

        private void afterQuote(char c) {
            if (c == ',') {
                endField();
            } else if (c == '\n') {
                endLine();
            } else if (c == '\r') {
                carriageReturn = true;
            } else if (c != ' ') {
                fail(malformed("text after the closing quote of a quoted field"));
            }
        }

        /** A carriage return without a newline: a control character in a field, or text after a quote. */
        private void loneCarriageReturn() {
            if (state == AFTER_QUOTE) {
                fail(malformed("text after the closing quote of a quoted field"));
            } else {
                text('\r');
            }
        }

        /** The end of the text. */
        private void end() {
            if (carriageReturn) {
                carriageReturn = false;
                loneCarriageReturn();
            } else if (state == QUOTED) {
                unclosedQuote("file");
            } else if (state == QUOTE_IN_QUOTED) {
                pass('"');
            }
            if (fault == null && lineStarted) {
                column = 0;
                pass('\n');
            }
        }

        /** Counts one character of a field's text; false (and the fault set) when it is refused. */
        private boolean text(char c) {
            if (UnsafeChars.isUnsafe(c)) {
                fail(fieldError(String.format(Locale.ROOT, "a control or invisible character (U+%04X)"
                        + " at character %d of the field; rows are printed back as they are, so remove it",
                        (int) c, fieldChars + 1)));
                return false;
            }
            if (fieldChars >= MAX_FIELD_CHARS) {
                fail(fieldError("the field is longer than " + String.format(Locale.ROOT, "%,d",
                        MAX_FIELD_CHARS) + " characters; an id or a 64-bit number is far shorter"));
                return false;
            }
            fieldChars++;
            return true;
        }

        private void endField() {
            if (column < MAX_FIELDS - 1) {
                pass(',');
            }
            if (column < MAX_FIELDS) {
                column++;
            }
            state = FIELD_START;
            fieldChars = 0;
            spaces = 0;
        }

        private void endLine() {
            column = 0; // the line end is passed on even after a sixth field
            if (lineStarted) {
                pass('\n');
            }
            line++;
            state = FIELD_START;
            fieldChars = 0;
            spaces = 0;
            lineStarted = false;
        }

        /** Passes {@code c} on, unless it belongs to a field after the fifth. */
        private void pass(char c) {
            if (column >= MAX_FIELDS) {
                return;
            }
            if (!lineStarted) {
                lineStarted = true;
                recordLines.add(line);
            }
            if (outEnd == out.length) {
                out = Arrays.copyOf(out, out.length * 2);
            }
            out[outEnd++] = c;
        }

        private void fail(MemplanException e) {
            fault = e;
            faultLine = line;
            done = true;
        }

        private void unclosedQuote(String where) {
            fail(malformed("unclosed quote: the quoted field has no closing quote before the end of the " + where
                    + "; close it with a quote, and double any quote inside it"));
        }

        private MemplanException fieldError(String problem) {
            return new MemplanException("line " + line + ", column " + (column + 1)
                    + (column < COLUMNS.length ? " (" + COLUMNS[column] + ")" : "") + ": " + problem);
        }

        private MemplanException malformed(String problem) {
            return new MemplanException("line " + line + ", column " + (column + 1) + ": malformed CSV ("
                    + problem + ")");
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
