// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.EngineMode;
import dev.memplan.Packing;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.PackingChecker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code memplan pack}: MiniMalloc's CSV in, the same rows with offsets out; bad input named by line and column. */
@EngineIndependent
class PackCommandTest {
    private static final Pattern SUMMARY = Pattern.compile(
            "memplan: .*: (\\d+) buffers, effort (\\d+), arena (\\d+) bytes, lower bound (\\d+) bytes(, arena/bound [\\d.]+)?\n");

    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
    }

    @Test
    void roundTripKeepsRowsAndIdsAndAddsValidOffsets() throws IOException {
        Random r = new Random(8);
        StringBuilder csv = new StringBuilder("id,lower,upper,size\n");
        List<long[]> rows = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            long lower = 1_000_000_000_000L + 1_000L * r.nextInt(100);
            long upper = lower + 1 + r.nextInt(20_000);
            long size = (long) Math.pow(10, r.nextInt(3)) * (1 + r.nextInt(50));
            String id = i % 7 == 0 ? "buf-" + (1000 - i) : Integer.toString(1000 - i); // not sorted, not dense
            ids.add(id);
            rows.add(new long[] {lower, upper, size});
            csv.append(id).append(',').append(lower).append(',').append(upper).append(',').append(size).append('\n');
        }
        Path file = write("problem.csv", csv.toString());
        CliRun run = CliRun.of("pack", file.toString());
        assertEquals(0, run.exit(), run::toString);
        String[] out = run.out().split("\n");
        assertEquals("id,lower,upper,size,offset", out[0]);
        assertEquals(rows.size() + 1, out.length, run::toString);
        long[] offset = new long[rows.size()];
        long highestEnd = 0;
        for (int i = 0; i < rows.size(); i++) {
            String[] cols = out[i + 1].split(",");
            assertEquals(5, cols.length, out[i + 1]);
            assertEquals(ids.get(i), cols[0], "input order and ids kept");
            for (int c = 0; c < 3; c++) {
                assertEquals(rows.get(i)[c], Long.parseLong(cols[c + 1]), out[i + 1]);
            }
            offset[i] = Long.parseLong(cols[4]);
            assertTrue(offset[i] >= 0, out[i + 1]);
            highestEnd = Math.max(highestEnd, offset[i] + rows.get(i)[2]);
        }
        for (int i = 0; i < rows.size(); i++) {
            for (int j = i + 1; j < rows.size(); j++) {
                long[] a = rows.get(i);
                long[] b = rows.get(j);
                boolean live = a[0] < b[1] && b[0] < a[1];
                boolean share = offset[i] < offset[j] + b[2] && offset[j] < offset[i] + a[2];
                assertFalse(live && share, "rows " + ids.get(i) + " and " + ids.get(j) + " share bytes while live");
            }
        }
        Matcher m = SUMMARY.matcher(run.err());
        assertTrue(m.matches(), run::toString);
        assertEquals(rows.size(), Long.parseLong(m.group(1)));
        assertEquals(Packing.DEFAULT_EFFORT, Long.parseLong(m.group(2)), "300 buffers search at the full default");
        assertEquals(highestEnd, Long.parseLong(m.group(3)), "the arena is the highest row end");
        long bound = Long.parseLong(m.group(4));
        assertTrue(bound > 0 && bound <= highestEnd, run::toString);
        // the command is the facade at the default effort
        long[] lo = rows.stream().mapToLong(x -> x[0]).toArray();
        long[] up = rows.stream().mapToLong(x -> x[1]).toArray();
        long[] sz = rows.stream().mapToLong(x -> x[2]).toArray();
        Packing.Result api = Packing.pack(lo, up, sz, Packing.DEFAULT_EFFORT, EngineMode.fromSystemProperty());
        assertEquals(api.arenaBytes(), highestEnd);
        assertEquals(api.lowerBoundBytes(), bound);
        for (int i = 0; i < offset.length; i++) {
            assertEquals(api.offset(i), offset[i], "row " + ids.get(i));
        }
    }

    @Test
    void effortAndEngineAreHonoured() throws IOException {
        Path file = write("small.csv", "id,lower,upper,size\n a , 0 , 10 , 8 \n\nb,5,20,4\nc,10,11,2\n");
        for (String effort : List.of("0", "3")) {
            CliRun run = CliRun.of("pack", "--effort", effort, "--engine", "java", file.toString());
            assertEquals(0, run.exit(), run::toString);
            Packing.Result api = Packing.pack(new long[] {0, 5, 10}, new long[] {10, 20, 11}, new long[] {8, 4, 2},
                    Integer.parseInt(effort), EngineMode.JAVA);
            assertEquals("id,lower,upper,size,offset\na,0,10,8," + api.offset(0) + "\nb,5,20,4," + api.offset(1)
                    + "\nc,10,11,2," + api.offset(2) + "\n", run.out(), "spaces trimmed, empty lines skipped");
        }
    }

    @Test
    void aQuotedIdWithACommaComesBackQuoted() throws IOException {
        Path file = write("quoted.csv", "id,lower,upper,size\n\"x,1\",0,2,16\n");
        CliRun run = CliRun.of("pack", file.toString());
        assertEquals(0, run.exit(), run::toString);
        assertEquals("id,lower,upper,size,offset\n\"x,1\",0,2,16,0\n", run.out());
    }

    @Test
    void aHeaderOnlyFilePacksNothing() throws IOException {
        CliRun run = CliRun.of("pack", write("none.csv", "id,lower,upper,size\n").toString());
        assertEquals(0, run.exit(), run::toString);
        assertEquals("id,lower,upper,size,offset\n", run.out());
        assertTrue(run.err().contains("0 buffers, effort 8, arena 0 bytes, lower bound 0 bytes"), run::toString);
    }

    /** Each bad input: exit 1, nothing on stdout, one line on stderr naming the line and column. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "``                                     | line 1: the file is empty; expected the header id,lower,upper,size",
            "`id,lower,upper`                       | line 1, column 4: the header must be id,lower,upper,size, found nothing",
            "`id,start,upper,size`                  | line 1, column 2: the header must be id,lower,upper,size, found 'start'",
            "`id,lower,upper,size,align`            | line 1, column 5: the header must be id,lower,upper,size, found the extra column 'align'",
            "`id,lower,upper,size\\n1,0,5`           | line 2: 3 columns, expected 4 (id,lower,upper,size)",
            "`id,lower,upper,size\\n1,0,5,x1`        | line 2, column 4 (size): 'x1' is not an integer in [-2^63, 2^63)",
            "`id,lower,upper,size\\n1,0,5,1.5`       | line 2, column 4 (size): '1.5' is not an integer",
            "`id,lower,upper,size\\n1,zero,5,1`      | line 2, column 2 (lower): 'zero' is not an integer",
            "`id,lower,upper,size\\n1,0,5,-4`        | line 2, column 4 (size): the size -4 is negative; sizes are bytes >= 0",
            "`id,lower,upper,size\\n1,0,5,1\\n2,7,7,1`| line 3, column 3 (upper): upper 7 is not greater than lower 7",
            "`id,lower,upper,size\\n1,0,5,1\\n1,2,3,1`| line 3, column 1 (id): the id '1' is used already on line 2; ids must be unique",
            "`id,lower,upper,size\\n,0,5,1`          | line 2, column 1 (id): the id is empty",
            "`id,lower,upper,size\\n1,0,99999999999999999999,1` | line 2, column 3 (upper): '99999999999999999999' is not an integer in [-2^63, 2^63)",
            "`id,lower,upper,size\\n1,0,5,9223372036854775807\\n2,0,5,1` | buffer 1 (1 bytes from time 0) brings the bytes alive together at time 0 past 9223372036854775807; no arena of 64-bit offsets holds them",
            "`id,lower,upper,size\\nb\\u001b[31m,0,5,1` | line 2, column 1 (id): a control or invisible character (U+001B) at character 2",
            "`id,lower,upper,size\\n\\u001b[31mred,0,5,1` | line 2, column 1 (id): a control or invisible character (U+001B) at character 1",
            "`id,lower,upper,size\\n red\\u001b ,0,5,1` | line 2, column 1 (id): a control or invisible character (U+001B) at character 4",
            "`id,lower,upper,size\\na,0,5,8\\u0000`   | line 2, column 4 (size): a control or invisible character (U+0000) at character 2",
            "`id,lower,upper,size\\na,0,5,8\\n\\u202eb,0,5,1` | line 3, column 1 (id): a control or invisible character (U+202E) at character 1",
            "`id,lower,upper,size\\na,\\u00090,5,8`   | line 2, column 2 (lower): a control or invisible character (U+0009) at character 1",
            "`id,lower,upper,size\\n\\u00e9,0,5,1`    | line 2, column 1 (id): the id 'é' has characters outside printable ASCII",
            "`id,lower,upper,size\\na,0,5,1,2,3,4`   | line 2: more than 4 columns, expected 4",
            "`id,lower,upper,size\\n\"open,0,5,1`    | line 2, column 1: malformed CSV (unclosed quote: the quoted field has no closing quote before the end of the file",
            "`id,lower,upper,size\\na,0,5,1\\n\"open,0,5,1\\nb,0,5,1` | line 3, column 1: malformed CSV (unclosed quote: the quoted field has no closing quote before the end of the line; close it with a quote",
            "`id,lower,upper,size\\na,\"0,5,1\\r\\nb,0,5,1` | line 2, column 2: malformed CSV (unclosed quote: the quoted field has no closing quote before the end of the line"})
    void badInputNamesLineAndColumn(String content, String message) throws IOException {
        Path file = write("bad.csv", content.replace("\\n", "\n").replace("\\r", "\r").replace("\\u001b", "\u001b")
                .replace("\\u0000", "\u0000").replace("\\u202e", "\u202e").replace("\\u0009", "\t")
                .replace("\\u00e9", "\u00e9"));
        CliRun run = CliRun.of("pack", file.toString());
        assertEquals(1, run.exit(), run::toString);
        assertEquals("", run.out(), run::toString);
        assertTrue(run.err().startsWith("memplan: " + file + ": "), run::toString);
        assertTrue(run.err().contains(message), () -> "expected '" + message + "' in " + run);
        assertEquals(1, run.err().lines().count(), "one line: " + run);
        assertFalse(run.err().contains("Exception") || run.err().contains("\tat "), "no stack trace: " + run);
        assertFalse(run.err().contains("\u001b"), "nothing from the file reaches the terminal raw: " + run);
    }

    /** Buffers of 2^63-1 bytes never alive together share one arena of that size: the sum of the sizes does not matter. */
    @Test
    void disjointRowsOfTheLargestSizePackIntoOneArena() throws IOException {
        Path file = write("huge.csv", "id,lower,upper,size\na,0,5,9223372036854775807\nb,5,9,9223372036854775807\n");
        CliRun run = CliRun.of("pack", file.toString());
        assertEquals(0, run.exit(), run::toString);
        assertEquals("id,lower,upper,size,offset\na,0,5,9223372036854775807,0\nb,5,9,9223372036854775807,0\n",
                run.out());
        assertTrue(run.err().contains("2 buffers, effort 8, arena 9223372036854775807 bytes, lower bound"
                + " 9223372036854775807 bytes"), run::toString);
    }

    /** A field of 20,000,001 characters (past Jackson's old string limit): one line naming the line, exit 1. */
    @Test
    void anOverlongFieldIsOneLineNamingTheLine() throws IOException {
        Path file = dir.resolve("long.csv");
        try (var w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("id,lower,upper,size\na,0,5,1\n");
            char[] chunk = new char[1_000_000];
            java.util.Arrays.fill(chunk, 'x');
            for (int i = 0; i < 20; i++) {
                w.write(chunk);
            }
            w.write("x,0,5,1\n");
        }
        CliRun run = CliRun.of("pack", file.toString());
        assertEquals(1, run.exit(), run::toString);
        assertEquals("", run.out());
        assertEquals("memplan: " + file + ": line 3, column 1 (id): the field is longer than 4,096 characters;"
                + " an id or a 64-bit number is far shorter\n", run.err());
    }

    /** The default effort steps down as problems grow, so the search stays within the work budget. */
    @Test
    void theDefaultEffortKeepsTheSearchWithinTheWorkBudget() {
        assertEquals(Packing.DEFAULT_EFFORT, Packing.defaultEffort(0));
        assertEquals(Packing.DEFAULT_EFFORT, Packing.defaultEffort(4_000), "the hard-packing samples search fully");
        assertEquals(1, Packing.defaultEffort(100_000));
        assertEquals(1, Packing.defaultEffort(1_000_000));
        int previous = Packing.DEFAULT_EFFORT;
        for (int n = 1; n <= 200_000; n += 97) {
            int effort = Packing.defaultEffort(n);
            assertTrue(effort <= previous && effort >= 1, "not monotone at " + n);
            long decodes = effort <= 1 ? 0 : 3 + 64L * (effort - 1);
            assertTrue(decodes * n <= Packing.DEFAULT_WORK_BUDGET, n + " buffers at effort " + effort);
            previous = effort;
        }
    }

    /** A large file packs at the lowered default, identically on both engines. */
    @Test
    void aLargeProblemPacksAtTheLoweredDefaultOnBothEngines() throws IOException {
        Random r = new Random(23);
        StringBuilder csv = new StringBuilder("id,lower,upper,size\n");
        int n = 40_000;
        for (int i = 0; i < n; i++) {
            int lower = r.nextInt(n);
            csv.append(i).append(',').append(lower).append(',').append(lower + 1 + r.nextInt(300)).append(',')
                    .append(1 + r.nextInt(1 << 16)).append('\n');
        }
        Path file = write("large.csv", csv.toString());
        CliRun java = CliRun.of("pack", "--engine", "java", file.toString());
        CliRun auto = CliRun.of("pack", "--engine", "auto", file.toString());
        assertEquals(0, java.exit(), java::toString);
        assertTrue(java.err().contains(n + " buffers, effort " + Packing.defaultEffort(n) + ","), java.err());
        assertEquals(java.out(), auto.out(), "the same offsets on both engines");
        List<String> rows = java.out().lines().skip(1).toList();
        assertEquals(n, rows.size());
        int[] lo = new int[n];
        int[] up = new int[n];
        long[] sz = new long[n];
        long[] off = new long[n];
        long arena = 0;
        for (int i = 0; i < n; i++) {
            String[] c = rows.get(i).split(",");
            lo[i] = Integer.parseInt(c[1]);
            up[i] = Integer.parseInt(c[2]);
            sz[i] = Long.parseLong(c[3]);
            off[i] = Long.parseLong(c[4]);
            arena = Math.max(arena, off[i] + sz[i]);
        }
        PackingChecker.check(lo, up, sz, off, arena); // no two live buffers share a byte
    }

    @Test
    void missingFileAndBadEffort() {
        CliRun missing = CliRun.of("pack", dir.resolve("nope.csv").toString());
        assertEquals(1, missing.exit(), missing::toString);
        assertEquals("memplan: " + dir.resolve("nope.csv") + ": no such file\n", missing.err());
        CliRun effort = CliRun.of("pack", "--effort", "-2", dir.resolve("nope.csv").toString());
        assertEquals(2, effort.exit(), effort::toString);
        assertTrue(effort.err().contains("--effort must be in [0, 1000], got -2"), effort::toString);
    }

    @Test
    void nonUtf8IsOneLineWithoutAClassName() throws IOException {
        Path file = dir.resolve("latin1.csv");
        Files.write(file, "id,lower,upper,size\n\u00e9,0,5,1\n".getBytes(StandardCharsets.ISO_8859_1));
        CliRun run = CliRun.of("pack", file.toString());
        assertEquals(1, run.exit(), run::toString);
        assertEquals("memplan: " + file + ": it is not UTF-8 text; save it as UTF-8\n", run.err());
    }

    @Test
    void helpNamesTheFormat() {
        CliRun help = CliRun.of("pack", "--help");
        assertEquals(0, help.exit());
        assertTrue(help.out().contains("id,lower,upper,size"), help.out());
        assertTrue(help.out().contains("--effort=N") && help.out().contains("--engine=ENGINE"), help.out());
        assertTrue(help.out().contains("(default: " + Packing.DEFAULT_EFFORT + ","), help.out());
    }
}
