// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes a {@link PictureData} as one self-contained HTML page: the page's CSS and JavaScript inline,
 * the picture's data as an inline JSON script, no network, no CDN. The page draws on canvases, so
 * it stays responsive at 10,000 owners; it exposes {@code window.memplanView} for tests.
 */
final class HtmlWriter {
    private static final String DATA = "/*MEMPLAN_DATA*/";
    private static final String STYLE = "/*MEMPLAN_STYLE*/";
    private static final String SCRIPT = "/*MEMPLAN_SCRIPT*/";
    private static final String TITLE = "MEMPLAN_TITLE";

    private HtmlWriter() {
    }

    /**
     * The page of a picture.
     *
     * @param picture what to draw
     * @return the whole HTML document
     */
    public static String write(PictureData picture) {
        Map<String, String> fills = new LinkedHashMap<>();
        fills.put(STYLE, resource("timeline.css"));
        fills.put(SCRIPT, resource("timeline.js"));
        fills.put(TITLE, Escape.xml("memplan: " + picture.title()));
        fills.put(DATA, Escape.jsonForScript(PictureJson.toText(picture)));
        return fill(resource("timeline.html"), fills);
    }

    /**
     * Replaces each placeholder of {@code template} in one left-to-right pass: what is put in is
     * never scanned again, so a name that spells a placeholder stays a name.
     */
    static String fill(String template, Map<String, String> fills) {
        StringBuilder out = new StringBuilder(template.length() + fills.values().stream().mapToInt(String::length).sum());
        int i = 0;
        while (i < template.length()) {
            String hit = null;
            for (String key : fills.keySet()) {
                if (template.startsWith(key, i)) {
                    hit = key;
                    break;
                }
            }
            if (hit != null) {
                out.append(fills.get(hit));
                i += hit.length();
            } else {
                out.append(template.charAt(i++));
            }
        }
        return out.toString();
    }

    private static String resource(String name) {
        try (InputStream in = HtmlWriter.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("the page template " + name + " is missing from the jar; rebuild memplan");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
