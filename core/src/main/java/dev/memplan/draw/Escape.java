// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import dev.memplan.io.UnsafeChars;

/**
 * The markup escape of the pictures (HTML and SVG): every name from an input file goes through
 * {@link #xml} once, where it is written. A tensor name may hold anything: {@code </script>},
 * quotes, control characters, bidirectional overrides. The page's data is JSON written by the one
 * JSON escape ({@code dev.memplan.json}), then made safe inside a script by {@link #jsonForScript}.
 * Terminal text is {@code dev.memplan.io.TerminalText}.
 */
final class Escape {
    private Escape() {
    }

    /**
     * {@code s} as XML 1.0 character data, valid in text and in quoted attributes alike: markup
     * characters become entities; characters XML cannot hold (U+FFFE, U+FFFF) and those of
     * {@link UnsafeChars} (controls, invisible and bidi characters, unpaired surrogates) become
     * visible {@code \}{@code uXXXX}, so the text is valid UTF-8 and shows what it holds.
     *
     * @param s any text
     * @return the text as XML character data
     */
    public static String xml(String s) {
        StringBuilder out = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> {
                    if (UnsafeChars.isUnsafeAt(s, i) || c == '\uFFFE' || c == '\uFFFF') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    /**
     * A JSON text made safe to embed in an HTML {@code <script>} element: {@code <}, {@code >} and
     * {@code &} (which only occur inside JSON strings) become {@code \}{@code u} escapes, so no
     * {@code </script>} or {@code <!--} can end or change the element; U+2028 and U+2029 too.
     *
     * @param json a JSON text
     * @return the same JSON value, spelled without those characters
     */
    public static String jsonForScript(String json) {
        StringBuilder out = new StringBuilder(json.length() + 16);
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            switch (c) {
                case '<' -> out.append("\\u003c");
                case '>' -> out.append("\\u003e");
                case '&' -> out.append("\\u0026");
                case '\u2028' -> out.append("\\u2028");
                case '\u2029' -> out.append("\\u2029");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
