// SPDX-License-Identifier: Apache-2.0
package dev.memplan.project;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md's three answers for a newcomer (section 12) send a reader to at most three files
 * each, and every file they name exists: a move that leaves an answer pointing nowhere fails here.
 */
@EngineIndependent
class NewcomerAnswersTest {
    private static final Path ROOT = Path.of("").toAbsolutePath();
    private static final Path DESIGN = ROOT.resolve("docs/design.md");
    private static final String SECTION = "## 12. Answers for a newcomer";
    private static final List<String> QUESTIONS = List.of(
            "### How is a request's plan computed?",
            "### Where do the engines differ?",
            "### How do I add an op?");
    private static final int MAX_FILES = 3;
    /** A repository path in backticks: a module's src/..., with a file name that has an extension. */
    private static final Pattern FILE = Pattern.compile("`((?:(?:core|ort|cli)/)?src/[A-Za-z0-9_./-]+\\.[a-z]+)`");

    @Test
    void eachAnswerNamesAtMostThreeFilesAndEachExists() throws IOException {
        Map<String, Set<String>> answers = answers(Files.readString(DESIGN));
        assertEquals(QUESTIONS, List.copyOf(answers.keySet()), "the newcomer's questions in design.md section 12");
        List<String> problems = new ArrayList<>();
        answers.forEach((question, files) -> {
            if (files.isEmpty() || files.size() > MAX_FILES) {
                problems.add(question + " names " + files.size() + " files (1 to " + MAX_FILES + "): " + files);
            }
            for (String file : files) {
                if (!Files.isRegularFile(ROOT.resolve(file))) {
                    problems.add(question + " names " + file + ", which does not exist");
                }
            }
        });
        assertEquals(List.of(), problems, "fix the answers in docs/design.md section 12");
    }

    @Test
    void theFilePatternFindsPathsAndNothingElse() {
        Map<String, Set<String>> answers = answers(SECTION + "\n" + QUESTIONS.get(0)
                + "\nSee `src/main/java/A.java`, `core/src/main/cpp/abi.h`, `plan` and `src/main/cpp` (a folder).\n"
                + QUESTIONS.get(1) + "\nnothing\n" + QUESTIONS.get(2) + "\n`src/test/java/B.java` twice:"
                + " `src/test/java/B.java`\n### Reference\n`src/main/java/C.java`\n");
        assertEquals(Set.of("src/main/java/A.java", "core/src/main/cpp/abi.h"), answers.get(QUESTIONS.get(0)));
        assertTrue(answers.get(QUESTIONS.get(1)).isEmpty());
        assertEquals(Set.of("src/test/java/B.java"), answers.get(QUESTIONS.get(2)));
    }

    /** Each question of section 12 with the files its answer names, up to the next heading. */
    private static Map<String, Set<String>> answers(String design) {
        int section = design.indexOf(SECTION);
        assertTrue(section >= 0, "design.md has no section \"" + SECTION + "\"");
        Map<String, Set<String>> answers = new LinkedHashMap<>();
        for (String question : QUESTIONS) {
            int start = design.indexOf(question, section);
            assertTrue(start >= 0, "design.md section 12 has no question \"" + question + "\"");
            int bodyStart = start + question.length();
            int end = design.indexOf("\n#", bodyStart);
            String body = design.substring(bodyStart, end < 0 ? design.length() : end);
            Set<String> files = new LinkedHashSet<>();
            Matcher m = FILE.matcher(body);
            while (m.find()) {
                files.add(m.group(1));
            }
            answers.put(question, files);
        }
        return answers;
    }
}
