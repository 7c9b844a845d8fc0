// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.MemplanException;
import java.util.regex.Pattern;

/**
 * Says in words why a shape rule or a constant fold failed, for {@link InferenceFailure#message()}:
 * a user reads it in the plan's report, so it never holds an exception's class name (a rule that
 * indexes past an input's dims used to show "IndexOutOfBoundsException: Index: 1 Size: 1").
 */
final class FailureText {
    /** A qualified Java name, e.g. {@code java.util.List}: nothing a user could act on. */
    private static final Pattern QUALIFIED = Pattern.compile("\\b(?:[a-z][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*");

    private FailureText() {
    }

    /** The reason {@code e} stands for, without class names. */
    static String of(RuntimeException e) {
        String detail = e.getMessage() == null ? "" : QUALIFIED.matcher(e.getMessage()).replaceAll("a value");
        if (e instanceof IndexOutOfBoundsException) {
            return "an input or attribute has fewer entries than the rule reads"
                    + (detail.isEmpty() ? "" : " (" + detail + ")");
        }
        if (e instanceof ArithmeticException) {
            return "a size overflows a 64-bit integer or divides by zero" + (detail.isEmpty() ? "" : " (" + detail + ")");
        }
        if (e instanceof NullPointerException || e instanceof ClassCastException) {
            // their messages name Java types and methods
            return "an input or attribute the rule needs is missing or of another type";
        }
        if (e instanceof MemplanException || e instanceof IllegalArgumentException
                || e instanceof IllegalStateException || e instanceof UnsupportedOperationException) {
            return detail.isEmpty() ? "the rule cannot use this node's inputs or attributes" : detail;
        }
        return "the rule failed on this node (a bug in memplan: please report it with the model)";
    }
}
