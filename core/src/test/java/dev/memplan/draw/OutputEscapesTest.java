// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.io.JsonOutput;
import dev.memplan.io.TerminalText;
import dev.memplan.io.UnsafeChars;
import dev.memplan.testing.EngineIndependent;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.CharBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The three output escapes (terminal text, JSON, HTML/SVG markup) over the same hostile names:
 * none lets a character of {@link UnsafeChars} through raw, each output is valid UTF-8, terminal
 * text reads back with {@code unescape} and JSON with any JSON reader. Here, beside the markup
 * escape, because that one is internal to the pictures.
 */
@EngineIndependent
class OutputEscapesTest {
    /** Names a model file may hold; among them the characters that once passed raw. */
    private static final List<String> HOSTILE = List.of("\u001b[31mred", "line\nmemplan: forged", "nul\u0000",
            "bidi\u202eevil", "isolate\u2066x\u2069", "rlm\u200f", "alm\u061c", "ls\u2028ps\u2029", "nel\u0085",
            "del\u007f", "zw\u200bj\u200d", "bom\ufeff", "lone\ud800", "\udc00first", "emoji\ud83d\ude00",
            "back\\slash", "</script><!--", "plain name/ok");

    @Test
    void terminalTextEscapesEveryUnsafeCharacterAndReadsBack() {
        for (String name : corpus()) {
            String safe = TerminalText.escape(name);
            assertNoUnsafe(safe, name);
            assertEquals(name, TerminalText.unescape(safe), "unescape inverts escape: " + safe);
        }
        assertEquals("\\x1b[31mred \\u202e \\x7f \\x85 \\\\ \\ud800 \ud83d\ude00",
                TerminalText.escape("\u001b[31mred \u202e \u007f \u0085 \\ \ud800 \ud83d\ude00"));
        assertEquals("plain name", TerminalText.escape("plain name"));
    }

    @Test
    void jsonEscapesEveryUnsafeCharacterAndMeansTheSame() throws Exception {
        ObjectMapper reader = new ObjectMapper();
        for (String name : corpus()) {
            String json = JsonOutput.mapper().writeValueAsString(Map.of("name", name));
            assertNoUnsafe(json, name);
            assertTrue(isUtf8Encodable(json), json);
            assertEquals(name, reader.readTree(json).get("name").asText(), json);
        }
        assertEquals("{\"n\":\"a\\u202Eb\\u007Fc\\u0085\\u2028\\u0000\"}",
                JsonOutput.mapper().writeValueAsString(Map.of("n", "a\u202eb\u007fc\u0085\u2028\u0000")));
    }

    @Test
    void markupEscapesEveryUnsafeCharacterAndAllMarkup() {
        for (String name : corpus()) {
            String xml = Escape.xml(name);
            assertNoUnsafe(xml, name);
            assertTrue(isUtf8Encodable(xml), xml);
            assertFalse(xml.contains("<") || xml.contains(">") || xml.contains("\""), xml);
        }
        assertEquals("lone\\ud800 \ud83d\ude00", Escape.xml("lone\ud800 \ud83d\ude00"));
    }

    /** The hostile names, and 2,000 seeded random strings over the characters that matter. */
    private static List<String> corpus() {
        List<String> all = new ArrayList<>(HOSTILE);
        char[] alphabet = "a\\\"<&\u0000\u001b\n\u007f\u0085\u009b\u061c\u200b\u200e\u2028\u202a\u202e\u2060\u2066\u2069\ufeff\ud83d\ude00\udc00\u00e9"
                .toCharArray();
        Random random = new Random(23);
        for (int i = 0; i < 2_000; i++) {
            StringBuilder sb = new StringBuilder();
            for (int k = random.nextInt(12); k >= 0; k--) {
                sb.append(alphabet[random.nextInt(alphabet.length)]);
            }
            all.add(sb.toString());
        }
        return all;
    }

    private static void assertNoUnsafe(String out, String name) {
        for (int i = 0; i < out.length(); i++) {
            if (UnsafeChars.isUnsafeAt(out, i)) {
                throw new AssertionError(String.format("U+%04X passes raw at %d of %s (from %s)", (int) out.charAt(i), i,
                        TerminalText.escape(out), TerminalText.escape(name)));
            }
        }
    }

    private static boolean isUtf8Encodable(String s) {
        try {
            StandardCharsets.UTF_8.newEncoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).encode(CharBuffer.wrap(s));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
