package dev.memplan.draw;

/**
 * Escapes names from input files for each output the pictures write. A tensor name may hold
 * anything: {@code </script>}, quotes, control characters, bidirectional overrides.
 */
public final class Escape {
    private Escape() {
    }

    /**
     * Text safe for a terminal: control characters (C0, DEL, C1), bidirectional controls and
     * unpaired surrogates become visible {@code \}{@code uXXXX}; a backslash is doubled, so an
     * escape in the output can only come from this method.
     *
     * @param s any text, e.g. a tensor name from a model file
     * @return the text with every unsafe character escaped
     */
    public static String terminal(String s) {
        StringBuilder out = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean unsafe = c == '\\' || isUnsafe(s, i);
            if (unsafe && out == null) {
                out = new StringBuilder(s.length() + 8).append(s, 0, i);
            }
            if (out != null) {
                if (c == '\\') {
                    out.append("\\\\");
                } else if (unsafe) {
                    out.append(String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
        }
        return out == null ? s : out.toString();
    }

    /**
     * {@code s} as XML 1.0 character data, valid in text and in quoted attributes alike: markup
     * characters become entities; characters XML cannot hold, and the controls {@link #terminal}
     * escapes, become visible {@code \}{@code uXXXX}.
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
                    if (isUnsafe(s, i) || c == '\uFFFE' || c == '\uFFFF') {
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

    /** Control, bidirectional-control or unpaired surrogate character at {@code i}. */
    private static boolean isUnsafe(String s, int i) {
        char c = s.charAt(i);
        if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
            return true;
        }
        if ((c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069') || c == '\u200e' || c == '\u200f'
                || c == '\u061c') {
            return true;
        }
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
        }
        return false;
    }
}
