// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;

/**
 * Writes the committed sample packing problems, {@code cli/src/test/resources/packing/hard-seed<S>.csv}
 * for the seeds of {@link #SEEDS}, in MiniMalloc's CSV form: inputs for {@code memplan pack} and for
 * other packers. SamplePackingFilesTest checks the committed files are exactly what this writes.
 *
 * <p>Run from the project root after changing the generator (after {@code mvn -q test-compile}):
 * {@code java -cp target/classes:target/test-classes dev.memplan.generate.SamplePackingFiles}.
 */
public final class SamplePackingFiles {
    /** The seeds of the committed samples. */
    static final List<Long> SEEDS = LongStream.rangeClosed(1, 8).boxed().toList();
    /** Where the samples live, relative to the project root. */
    static final Path DIR = Path.of("cli", "src", "test", "resources", "packing");

    private SamplePackingFiles() {
    }

    /** The file name of the sample of {@code seed}. */
    static String fileName(long seed) {
        return "hard-seed" + seed + ".csv";
    }

    /**
     * {@code inst} in the CSV form, ids the row numbers (so nothing needs quoting); written here
     * rather than by the command line's CSV writer, so that the generators need no CSV library.
     * PackingCsvTest checks that the command line reads the samples back and writes them byte for byte.
     */
    static String csv(PackingInstance inst) {
        int[] lower = inst.lower();
        int[] upper = inst.upper();
        long[] sizes = inst.sizes();
        StringBuilder sb = new StringBuilder("id,lower,upper,size\n");
        for (int i = 0; i < sizes.length; i++) {
            sb.append(i).append(',').append(lower[i]).append(',').append(upper[i]).append(',').append(sizes[i])
                    .append('\n');
        }
        return sb.toString();
    }

    /** Writes every sample into {@code args[0]}, or {@link #DIR} without arguments. */
    public static void main(String[] args) throws IOException {
        Path dir = args.length > 0 ? Path.of(args[0]) : DIR;
        Files.createDirectories(dir);
        for (long seed : SEEDS) {
            PackingInstance inst = HardPackingGenerator.generate(seed);
            Path file = dir.resolve(fileName(seed));
            Files.writeString(file, csv(inst), StandardCharsets.UTF_8);
            System.out.println(file + ": " + inst);
        }
    }
}
