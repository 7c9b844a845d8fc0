// SPDX-License-Identifier: Apache-2.0
package dev.memplan.project;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The tree reads the same on every machine and says what things are: no file names a path of one
 * machine (only {@code ../shared}, beside the repository, is allowed outside it), and no file or
 * text names an issue by its number (a number means nothing to the next reader; say what it is).
 */
@EngineIndependent
class TreeHygieneTest {
    private static final Path ROOT = Path.of("").toAbsolutePath();
    /**
     * Build output, fetched or generated files (.cifuzz-corpus: the fuzzers' generated corpus), and
     * version control: not the tree's own text.
     */
    private static final Set<String> SKIPPED_DIRS = Set.of(".git", "target", ".idea", ".vscode",
            "node_modules", ".cifuzz-corpus");
    private static final long MAX_BYTES = 4L << 20;

    /** A home or work folder of one machine. */
    static final Pattern MACHINE_PATH = Pattern.compile("(?<![\\w.~-])/(?:work|root|home|Users)/");
    /** The word issue (or issues) followed by a number, with a space, a hash or a dash between. */
    static final Pattern ISSUE_NUMBER = Pattern.compile("(?i)\\bissues? ?#?\\d|\\bissue[-_]\\d");
    /** A file name holding the word issue followed by a number. */
    static final Pattern ISSUE_FILE_NAME = Pattern.compile("(?i)issue[-_ ]?\\d");

    @Test
    void noFileNamesAPathOfOneMachine() throws IOException {
        List<String> hits = new ArrayList<>();
        for (Path file : textFiles()) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                if (MACHINE_PATH.matcher(lines.get(i)).find()) {
                    hits.add(relative(file) + ":" + (i + 1));
                }
            }
        }
        assertEquals(List.of(), hits, "paths of one machine; use a path inside the repository or ../shared");
    }

    @Test
    void noTextNamesAnIssueByNumber() throws IOException {
        List<String> hits = new ArrayList<>();
        for (Path file : textFiles()) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                if (ISSUE_NUMBER.matcher(lines.get(i)).find()) {
                    hits.add(relative(file) + ":" + (i + 1));
                }
            }
        }
        assertEquals(List.of(), hits, "issue numbers; say what the thing is instead");
    }

    @Test
    void noFileIsNamedAfterAnIssue() throws IOException {
        Set<String> named = new TreeSet<>();
        try (Stream<Path> all = walk()) {
            all.filter(p -> ISSUE_FILE_NAME.matcher(p.getFileName().toString()).find())
                    .forEach(p -> named.add(relative(p)));
        }
        assertEquals(Set.of(), named, "files named after an issue; name them for what they do");
    }

    @Test
    void thePatternsCatchWhatTheyMeanAndNothingElse() {
        // the samples are put together here, so that this file does not hold what it forbids
        String work = "/" + "work/";
        String home = "/" + "home/";
        String issue = "iss" + "ue";
        assertTrue(MACHINE_PATH.matcher("run " + work + "ortvenv/bin/python").find());
        assertTrue(MACHINE_PATH.matcher("\"-Dmemplan.models=" + home + "me/models\"").find());
        assertFalse(MACHINE_PATH.matcher("../shared/models and benchmarks" + work + "x").find());
        assertFalse(MACHINE_PATH.matcher("https://example.org" + home + "page").find());
        assertTrue(ISSUE_NUMBER.matcher("the harness of " + issue + " 19").find());
        assertTrue(ISSUE_NUMBER.matcher(issue + "s 18 and 19").find());
        assertTrue(ISSUE_NUMBER.matcher("I" + issue.substring(1) + " #7").find());
        assertTrue(ISSUE_NUMBER.matcher("docs/performance.md's " + issue + "-20 section").find());
        assertFalse(ISSUE_NUMBER.matcher(issue + " tracking systems").find());
        assertTrue(ISSUE_FILE_NAME.matcher(issue + "20-table.py").find());
        assertFalse(ISSUE_FILE_NAME.matcher("native-vs-java.sh").find());
    }

    private static List<Path> textFiles() throws IOException {
        List<Path> text = new ArrayList<>();
        try (Stream<Path> all = walk()) {
            for (Path p : all.filter(Files::isRegularFile).toList()) {
                if (Files.size(p) <= MAX_BYTES && isText(p)) {
                    text.add(p);
                }
            }
        }
        assertTrue(text.size() > 100, "expected the repository's files under " + ROOT + ", found " + text.size());
        return text;
    }

    /** Every path under the root but the skipped folders' contents. */
    private static Stream<Path> walk() throws IOException {
        return Files.walk(ROOT).filter(p -> {
            for (Path part : ROOT.relativize(p)) {
                if (SKIPPED_DIRS.contains(part.toString())) {
                    return false;
                }
            }
            return true;
        });
    }

    /**
     * UTF-8 without a NUL byte (models, images and fuzzers' inputs are binary): the tests read
     * each text file whole as UTF-8.
     */
    private static boolean isText(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        for (byte b : bytes) {
            if (b == 0) {
                return false;
            }
        }
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static String relative(Path file) {
        return ROOT.relativize(file).toString().replace('\\', '/');
    }
}
