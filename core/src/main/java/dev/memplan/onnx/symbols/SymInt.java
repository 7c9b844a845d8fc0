// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.symbols;

import dev.memplan.Dim;
import java.util.List;

/**
 * One element of a small integer tensor whose values shape inference tracks (the output of
 * Shape, Gather on it, Concat, arithmetic...): a constant of any sign, or a symbolic dim. The
 * arithmetic returns null when the result cannot be written as a monotone dim (a symbol minus a
 * symbol, a symbol times a negative number), which makes the consumer fall back to a fresh symbol.
 */
public record SymInt(long constant, Dim dim) {

    public static SymInt of(long c) {
        return new SymInt(c, null);
    }

    public static SymInt of(Dim d) {
        return d instanceof Dim.Fixed f ? of(f.extent()) : new SymInt(0, d);
    }

    public boolean isConst() {
        return dim == null;
    }

    /** As a dim, or null for a negative constant. */
    public Dim toDim() {
        if (dim != null) {
            return dim;
        }
        return constant >= 0 ? Dim.of(constant) : null;
    }

    public static SymInt add(SymInt a, SymInt b) {
        if (a.isConst() && b.isConst()) {
            return of(Math.addExact(a.constant, b.constant));
        }
        if (a.isConst()) {
            return of(Dim.Derived.sum(List.of(b.dim), a.constant));
        }
        if (b.isConst()) {
            return of(Dim.Derived.sum(List.of(a.dim), b.constant));
        }
        return of(Dim.Derived.sum(List.of(a.dim, b.dim), 0));
    }

    public static SymInt sub(SymInt a, SymInt b) {
        if (b.isConst()) {
            return add(a, of(Math.negateExact(b.constant)));
        }
        return a.equals(b) ? of(0) : null;
    }

    public static SymInt mul(SymInt a, SymInt b) {
        if (a.isConst() && b.isConst()) {
            return of(Math.multiplyExact(a.constant, b.constant));
        }
        SymInt c = a.isConst() ? a : b.isConst() ? b : null;
        if (c != null && c.constant < 0) {
            return null;
        }
        return of(Dim.Derived.product(List.of(a.toDim(), b.toDim())));
    }

    public static SymInt div(SymInt a, SymInt b) {
        if (!b.isConst() || b.constant == 0) {
            return a.equals(b) ? of(1) : null;
        }
        if (a.isConst()) {
            // ONNX integer Div truncates toward zero
            return of(a.constant / b.constant);
        }
        return b.constant > 0 ? of(Dim.Derived.divide(a.dim, b.constant, false)) : null;
    }

    public static SymInt max(SymInt a, SymInt b) {
        if (a.isConst() && b.isConst()) {
            return of(Math.max(a.constant, b.constant));
        }
        Dim da = a.toDim();
        Dim db = b.toDim();
        if (da == null) {
            return b;
        }
        if (db == null) {
            return a;
        }
        return of(Dim.Derived.max(List.of(da, db)));
    }

    public static SymInt min(SymInt a, SymInt b) {
        if (a.isConst() && b.isConst()) {
            return of(Math.min(a.constant, b.constant));
        }
        Dim da = a.toDim();
        Dim db = b.toDim();
        if (da == null || db == null) {
            return null;
        }
        return of(Dim.Derived.min(List.of(da, db)));
    }

    @Override
    public String toString() {
        return dim == null ? Long.toString(constant) : dim.toString();
    }
}
