// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.symbols;

import dev.memplan.Dim;

/**
 * A model symbol that needs no binding: a relation inference proved makes it equal to an
 * expression of other symbols, such as {@code total_seq_len = past_seq_len + seq_len}.
 *
 * @param name       the symbol
 * @param expression its value in terms of symbols that are not derived
 * @param relation   the relation that defines it (names the node)
 */
public record DerivedSymbol(String name, Dim expression, SymbolRelation relation) {

    /**
     * The expression as text.
     *
     * @return the expression without the outer parentheses a sum or product prints with
     */
    public String expressionText() {
        return text(expression);
    }

    /** {@code d} as text, without outer parentheses that enclose all of it. */
    static String text(Dim d) {
        String s = d.toString();
        if (s.length() < 2 || s.charAt(0) != '(' || s.charAt(s.length() - 1) != ')') {
            return s;
        }
        int depth = 0;
        for (int i = 0; i < s.length() - 1; i++) {
            depth += s.charAt(i) == '(' ? 1 : s.charAt(i) == ')' ? -1 : 0;
            if (depth == 0) {
                return s; // the first parenthesis closes before the end: "(a + b) * c"
            }
        }
        return s.substring(1, s.length() - 1);
    }

    @Override
    public String toString() {
        return name + " = " + expressionText();
    }
}
