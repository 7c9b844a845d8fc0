// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.testing.EngineIndependent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@EngineIndependent
class EscapeAndUnitsTest {

    @Test
    void xmlTextHasNoMarkupAndOnlyLegalCharacters() {
        assertEquals("&lt;/script&gt;&amp;&quot;&#39;\\u0001\\ufffe", Escape.xml("</script>&\"'\u0001\ufffe"));
    }

    @Test
    void jsonForAScriptCannotCloseItAndStillParses() throws Exception {
        String name = "</script><!--\u2028&>";
        String json = new ObjectMapper().writeValueAsString(Map.of("n", name));
        String safe = Escape.jsonForScript(json);
        assertFalse(safe.contains("<") || safe.contains(">") || safe.contains("&") || safe.contains("\u2028"));
        assertEquals(name, new ObjectMapper().readTree(safe).get("n").asText());
    }

    @Test
    void aPlaceholderInsideAFilledValueStaysText() {
        Map<String, String> fills = new LinkedHashMap<>();
        fills.put("[A]", "value with [B] inside");
        fills.put("[B]", "b");
        assertEquals("x value with [B] inside y b", HtmlWriter.fill("x [A] y [B]", fills));
    }

    @ParameterizedTest
    @CsvSource({"0, 0 B", "1023, 1023 B", "1024, 1 KiB", "1536, 1.5 KiB", "1048576, 1 MiB", "6308352, 6.02 MiB",
        "1073741824, 1 GiB", "157286400, 150 MiB"})
    void bytesReadInBinaryUnits(long bytes, String text) {
        assertEquals(text, ByteUnits.human(bytes));
    }

    @Test
    void byteTicksAreRoundInBinaryUnits() {
        assertEquals(List.of(0L, 1L << 20, 2L << 20, 3L << 20, 4L << 20, 5L << 20), Ticks.bytes(6000000, 6));
        assertEquals(List.of(0L, 2L << 20, 4L << 20, 6L << 20), Ticks.bytes(6308352, 6), "a step just over 1 MiB");
        assertEquals(List.of(0L, 500L, 1000L, 1500L, 2000L), Ticks.bytes(2000, 4), "below 1 KiB: decimal steps of bytes");
        for (long t : Ticks.bytes(123_456_789, 6)) {
            assertTrue(ByteUnits.human(t).matches("\\d+(\\.5)? (B|KiB|MiB)|0 B"), ByteUnits.human(t));
        }
    }
}
