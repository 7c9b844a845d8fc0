// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memplan.MemplanException;
import dev.memplan.generate.HardPackingGenerator;
import dev.memplan.generate.PackingInstance;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The packing CSV reader's refusals, each message in full (PackCommandTest checks the command's
 * one-line form of the common ones), and the writer's exact bytes: quoting, ids printed back as read.
 */
@EngineIndependent
class PackingCsvTest {
    private static final String HEADER = "id,lower,upper,size\n";
    private static final String SPACES = " ".repeat(5_000);
    private static final String CONTROL = "; rows are printed back as they are, so remove it";
    private static final String TOO_LONG = "the field is longer than 4,096 characters; an id or a 64-bit number is far"
            + " shorter";
    private static final String AFTER_QUOTE = "malformed CSV (text after the closing quote of a quoted field)";
    private static final String QUOTE_INSIDE = "malformed CSV (a quote inside an unquoted field; quote the whole field"
            + " and double the quotes in it)";

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(HEADER + "\"a\"x,0,5,1\n", "line 2, column 1: " + AFTER_QUOTE),
                Arguments.of(HEADER + "\"a\" x,0,5,1\n", "line 2, column 1: " + AFTER_QUOTE),
                Arguments.of(HEADER + "\"a\"\rb,0,5,1\n", "line 2, column 1: " + AFTER_QUOTE),
                Arguments.of(HEADER + "\"a\"\r", "line 2, column 1: " + AFTER_QUOTE),
                Arguments.of(HEADER + "a\"b,0,5,1\n", "line 2, column 1: " + QUOTE_INSIDE),
                Arguments.of(HEADER + "a,0,5,1\"\n", "line 2, column 4: " + QUOTE_INSIDE),
                Arguments.of(HEADER + "a,0,5," + "9".repeat(5_000) + "\n", "line 2, column 4 (size): " + TOO_LONG),
                // spaces after a field count (they are trimmed only after it ends); spaces before it do not
                Arguments.of(HEADER + "a" + SPACES + ",0,5,1\n", "line 2, column 1 (id): " + TOO_LONG),
                Arguments.of(HEADER + "\"" + "y".repeat(5_000) + "\",0,5,1\n", "line 2, column 1 (id): " + TOO_LONG),
                // a carriage return not followed by a newline is a control character, not a line end
                Arguments.of(HEADER + "a\rb,0,5,1\n", "line 2, column 1 (id): a control or invisible character"
                        + " (U+000D) at character 2 of the field" + CONTROL),
                Arguments.of(HEADER + "a,0,5,1\r", "line 2, column 4 (size): a control or invisible character"
                        + " (U+000D) at character 2 of the field" + CONTROL),
                Arguments.of(HEADER + "\"a\u0007b\",0,5,1\n", "line 2, column 1 (id): a control or invisible"
                        + " character (U+0007) at character 2 of the field" + CONTROL),
                Arguments.of(HEADER + " \"x\u001b\" ,0,5,1\n", "line 2, column 1 (id): a control or invisible"
                        + " character (U+001B) at character 2 of the field" + CONTROL),
                Arguments.of(HEADER + "\"ab\"\"\",0,5,\"\u0003\"\n", "line 2, column 4 (size): a control or"
                        + " invisible character (U+0003) at character 1 of the field" + CONTROL),
                // fields past the sixth are read (and refused) as the sixth
                Arguments.of(HEADER + "a,0,5,1,2,3,\u0001\n", "line 2, column 6: a control or invisible character"
                        + " (U+0001) at character 1 of the field" + CONTROL),
                Arguments.of(HEADER + "a,0,5,1,2,3,4,\"x\"y\n", "line 2, column 6: " + AFTER_QUOTE),
                Arguments.of("id,lower,upper,size,x,y,\u0002\n", "line 1, column 6: a control or invisible character"
                        + " (U+0002) at character 1 of the field" + CONTROL),
                Arguments.of("\"id\",lower,upper,size,\"x\"\n", "line 1, column 5: the header must be"
                        + " id,lower,upper,size, found the extra column 'x'"),
                Arguments.of("\u00e9d,lower,upper,size\n", "line 1, column 1: the header must be id,lower,upper,size,"
                        + " found '\u00e9d'"),
                Arguments.of(HEADER + "\"a,0,5,1\r\n", "line 2, column 1: malformed CSV (unclosed quote: the quoted"
                        + " field has no closing quote before the end of the line; close it with a quote, and double"
                        + " any quote inside it)"),
                // the first fault in reading order: the short row, not the unclosed quote after it
                Arguments.of(HEADER + "1,0,5\n\"open\n", "line 2: 3 columns, expected 4 (id,lower,upper,size)"),
                Arguments.of(HEADER + "a,1 2,5,1\n", "line 2, column 2 (lower): '1 2' is not an integer in"
                        + " [-2^63, 2^63)"),
                Arguments.of(HEADER + ",,,\n", "line 2, column 1 (id): the id is empty; give every buffer an id"),
                // empty and blank lines are skipped but counted
                Arguments.of(HEADER + "a,0,5,1\n\n   \na,0,5,1\n", "line 5, column 1 (id): the id 'a' is used already"
                        + " on line 2; ids must be unique"));
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void refusalNamesTheLineAndColumn(String csv, String message) {
        MemplanException e = assertThrows(MemplanException.class, () -> PackingCsv.read(new StringReader(csv)));
        assertEquals(message, e.getMessage());
    }

    /** Quoted ids with spaces around them, CRLF, leading spaces, a line of one empty quoted field. */
    @Test
    void oddButValidRowsReadAndWriteBackExactly() throws IOException {
        String csv = HEADER + "\"x,1\",0,2,16\r\n  \"a\"\"b\"  , 1 ,3,4\n" + SPACES + "c,0,1,1\n\"\"\n#d,0,1,1\n"
                + "!e,0,1,1\n\" f\",0,1,1\n\"g \",0,1,1\n";
        PackingCsv.Problem p = PackingCsv.read(new StringReader(csv));
        assertEquals(List.of("x,1", "a\"b", "c", "#d", "!e", " f", "g "), p.ids());
        assertArrayEquals(new long[] {0, 1, 0, 0, 0, 0, 0}, p.lower());
        assertEquals(HEADER + "\"x,1\",0,2,16\n\"a\"\"b\",1,3,4\nc,0,1,1\n#d,0,1,1\n!e,0,1,1\n\" f\",0,1,1\n"
                + "\"g \",0,1,1\n", PackingCsv.toCsv(p));
        StringWriter out = new StringWriter();
        PackingCsv.write(p, new long[] {0, 16, 20, 21, 22, 23, -1}, out);
        assertEquals("id,lower,upper,size,offset\n\"x,1\",0,2,16,0\n\"a\"\"b\",1,3,4,16\nc,0,1,1,20\n#d,0,1,1,21\n"
                + "!e,0,1,1,22\n\" f\",0,1,1,23\n\"g \",0,1,1,-1\n", out.toString());
        assertEquals(p.ids(), PackingCsv.read(new StringReader(out.toString().replace(",offset", "")
                .replaceAll(",-?\\d+\n", "\n"))).ids(), "what is written reads back");
    }

    /** Writing goes out in pieces; a large problem is byte for byte what one row at a time gives. */
    @Test
    void aLargeProblemWritesEveryRow() throws IOException {
        int n = 20_000;
        int[] lower = new int[n];
        int[] upper = new int[n];
        long[] sizes = new long[n];
        long[] offsets = new long[n];
        StringBuilder expected = new StringBuilder("id,lower,upper,size,offset\n");
        for (int i = 0; i < n; i++) {
            lower[i] = i;
            upper[i] = i + 1 + i % 7;
            sizes[i] = 1L << (i % 40);
            offsets[i] = (long) i * 31;
            expected.append(i).append(',').append(lower[i]).append(',').append(upper[i]).append(',').append(sizes[i])
                    .append(',').append(offsets[i]).append('\n');
        }
        StringWriter out = new StringWriter();
        PackingCsv.write(PackingCsv.Problem.numbered(lower, upper, sizes), offsets, out);
        assertEquals(expected.toString(), out.toString());
    }

    /** The committed hard-packing samples read back as the generator's rows and write back byte for byte. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void theSamplesReadBackAsTheGeneratorsRows(long seed) throws IOException {
        Path file = Path.of("cli", "src", "test", "resources", "packing", "hard-seed" + seed + ".csv");
        String committed = Files.readString(file, StandardCharsets.UTF_8);
        PackingInstance inst = HardPackingGenerator.generate(seed);
        PackingCsv.Problem read = PackingCsv.read(new StringReader(committed));
        assertArrayEquals(inst.sizes(), read.sizes(), "the one CSV reader reads the sample back");
        assertArrayEquals(Arrays.stream(inst.lower()).asLongStream().toArray(), read.lower());
        assertArrayEquals(Arrays.stream(inst.upper()).asLongStream().toArray(), read.upper());
        assertEquals(committed, PackingCsv.toCsv(read), "and writes it back as it was");
    }
}
