// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.MemplanException;
import dev.memplan.onnx.symbols.TensorInfo;

/**
 * Words for a shape rule that threw: which input or attribute it was reading, and the rule's own
 * message where it wrote one for users. A failure of the rule's own code (an index past the end of
 * a too-short attribute, say) says what it could not use, never the exception's class or a message
 * the runtime wrote for programmers.
 */
final class RuleFailure {
    private RuleFailure() {
    }

    /**
     * The message for {@code e}.
     *
     * @param lastInput the index of the input the rule read last, or -1
     * @param inputName that input's ONNX name
     * @param input     what was known of it, or null
     * @param lastAttr  the attribute the rule read last, or null
     */
    static String describe(RuntimeException e, int lastInput, String inputName, TensorInfo input, String lastAttr) {
        String what = lastAttr != null && lastInput < 0 ? "attribute '" + lastAttr + "'"
                : lastInput >= 0 ? "input " + lastInput + " '" + inputName + "'"
                + (input == null ? " (unknown)" : " (" + input + ")") + (lastAttr == null ? "" : " or attribute '"
                + lastAttr + "'")
                : null;
        String own = userMessage(e);
        if (own != null) {
            return what == null ? own : own + " (reading " + what + ")";
        }
        String kind = e instanceof IndexOutOfBoundsException
                ? ": it has fewer elements or dims than the op needs" : "";
        return what == null ? "the shape rule could not use what the node gives it; check its inputs and attributes"
                : "could not use " + what + kind;
    }

    private static boolean namesCode(String m) {
        return m.contains("Exception") || m.contains("java.") || m.contains("dev.memplan") || m.contains("com.google");
    }

    /** The message a rule wrote for users, or null for a runtime failure or a message naming code. */
    private static String userMessage(RuntimeException e) {
        String m = e.getMessage();
        boolean written = e instanceof MemplanException || e instanceof ArithmeticException
                || e.getClass() == IllegalArgumentException.class || e.getClass() == IllegalStateException.class;
        if (!written || m == null || m.isBlank() || namesCode(m)) {
            return null;
        }
        return m;
    }
}
