// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

/**
 * Makes text from input files safe to print: every name, label and message the command line
 * writes to a terminal goes through {@link #escape}, so an ANSI escape or a newline inside a
 * value name can neither recolour the terminal nor forge a line. {@link #unescape} reads the
 * escaped form back, so a symbol shown as {@code seq\x00} is bound with {@code --bind seq\x00=8}.
 */
final class TerminalText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private TerminalText() {
    }

    /**
     * {@code text} with control characters (C0, DEL, C1), Unicode line and paragraph separators,
     * bidirectional overrides, lone surrogates and backslashes escaped: {@code \n}, {@code \t}, {@code \r},
     * {@code \\}, {@code \xNN} and {@code \}{@code uNNNN}. Printable text passes unchanged.
     */
    static String escape(String text) {
        if (text == null) {
            return "null";
        }
        int i = 0;
        while (i < text.length() && !needsEscape(text.charAt(i))) {
            i++;
        }
        if (i == text.length()) {
            return text; // the common case: nothing to do, no copy
        }
        StringBuilder sb = new StringBuilder(text.length() + 16).append(text, 0, i);
        for (; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!needsEscape(c)) {
                sb.append(c);
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                sb.append(c).append(text.charAt(++i)); // a well-formed pair (an emoji): printable
            } else if (c == '\\') {
                sb.append("\\\\");
            } else if (c == '\n') {
                sb.append("\\n");
            } else if (c == '\t') {
                sb.append("\\t");
            } else if (c == '\r') {
                sb.append("\\r");
            } else if (c < 0x100) {
                sb.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xf]);
            } else {
                sb.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xf]).append(HEX[(c >> 4) & 0xf])
                        .append(HEX[c & 0xf]);
            }
        }
        return sb.toString();
    }

    /**
     * The inverse of {@link #escape}: {@code \n}, {@code \t}, {@code \r}, {@code \\}, {@code \xNN}
     * and {@code \}{@code uNNNN} become the characters they stand for; a backslash before anything
     * else stays a backslash.
     */
    static String unescape(String text) {
        if (text.indexOf('\\') < 0) {
            return text;
        }
        StringBuilder sb = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '\\' || i + 1 == text.length()) {
                sb.append(c);
                continue;
            }
            char e = text.charAt(i + 1);
            int hexDigits = e == 'x' ? 2 : e == 'u' ? 4 : 0;
            if (e == 'n' || e == 't' || e == 'r' || e == '\\') {
                sb.append(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : '\\');
                i++;
            } else if (hexDigits > 0 && i + 2 + hexDigits <= text.length()
                    && isHex(text.substring(i + 2, i + 2 + hexDigits))) {
                sb.append((char) Integer.parseInt(text.substring(i + 2, i + 2 + hexDigits), 16));
                i += 1 + hexDigits;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /** Whether {@code c} is escaped: it could move the cursor, change colours or reorder text. */
    static boolean needsEscape(char c) {
        return c < 0x20 || c == '\\' || (c >= 0x7f && c <= 0x9f)
                || c == '\u2028' || c == '\u2029'              // line and paragraph separators
                || (c >= '\u202a' && c <= '\u202e')            // bidi embeddings and overrides
                || (c >= '\u2066' && c <= '\u2069')            // bidi isolates
                || c == '\u200e' || c == '\u200f' || c == '\u061c' // directional marks
                || c == '\ufeff'                               // zero-width no-break space (BOM)
                || Character.isSurrogate(c);                   // checked in pairs by escape
    }

    private static boolean isHex(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.digit(s.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }
}
