// SPDX-License-Identifier: Apache-2.0
package dev.memplan.io;

/**
 * Terminal text: the one escape of every name, label and message the command line prints (and
 * of the text pictures), so an ANSI escape or a newline inside a value name can neither recolour
 * the terminal nor forge a line. {@link #unescape} reads the escaped form back, so a symbol shown
 * as {@code seq\x00} is bound with {@code --bind seq\x00=8}. Escape a message once, where it is
 * printed: escaping twice doubles its backslashes.
 */
public final class TerminalText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private TerminalText() {
    }

    /**
     * {@code text} with backslashes and the characters of {@link UnsafeChars} escaped:
     * {@code \n}, {@code \t}, {@code \r}, {@code \\}, {@code \xNN} (other characters below U+0100)
     * and {@code \}{@code uNNNN}. Everything else, surrogate pairs (emoji) included, passes unchanged.
     *
     * @param text any text, e.g. a tensor name from a model file; null prints as {@code null}
     * @return the text, safe to print
     */
    public static String escape(String text) {
        if (text == null) {
            return "null";
        }
        int i = 0;
        while (i < text.length() && !needsEscape(text, i)) {
            i++;
        }
        if (i == text.length()) {
            return text; // the common case: nothing to do, no copy
        }
        StringBuilder sb = new StringBuilder(text.length() + 16).append(text, 0, i);
        for (; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!needsEscape(text, i)) {
                sb.append(c);
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
     *
     * @param text escaped text, e.g. a symbol typed as the output showed it
     * @return the text it stands for
     */
    public static String unescape(String text) {
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

    /** Whether the character at {@code i} is escaped: a backslash, or unsafe in any output. */
    private static boolean needsEscape(String text, int i) {
        return text.charAt(i) == '\\' || UnsafeChars.isUnsafeAt(text, i);
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
