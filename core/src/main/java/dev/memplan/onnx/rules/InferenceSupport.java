// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.onnx.symbols.SymInt;
import dev.memplan.onnx.symbols.TensorInfo;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/** Helpers shared by the op inference classes: axes, broadcasting, static extents, fresh dims. */
public final class InferenceSupport {
    private InferenceSupport() {
    }

    static void fill(TensorInfo[] out, int i, TensorInfo t) {
        if (i < out.length) {
            out[i] = t;
        }
    }

    static DataType dtype(long code) {
        return code < 0 || code > 26 ? DataType.UNDEFINED : DataType.fromOnnxCode((int) code);
    }

    // ---- helpers over shapes ----------------------------------------------------------------

    /** Normalizes a possibly negative axis against {@code rank}; -1 when out of range. */
    public static int axis(long a, int rank) {
        long n = a < 0 ? a + rank : a;
        return n < 0 || n >= rank ? -1 : (int) n;
    }

    /** numpy broadcasting of two dims. */
    static Dim broadcastDim(Dim a, Dim b) {
        if (a.equals(b)) {
            return a;
        }
        if (a instanceof Dim.Fixed fa && fa.extent() == 1) {
            return b;
        }
        if (b instanceof Dim.Fixed fb && fb.extent() == 1) {
            return a;
        }
        if (a.isStatic() && b.isStatic()) {
            return Dim.Derived.max(List.of(a, b)); // incompatible; keep the larger, sizes stay safe
        }
        // min(a, k) broadcast with a is a (equal, or 1 broadcast up); a max already holding b stays
        if (holds(b, Dim.Derived.Op.MIN, a) || holds(a, Dim.Derived.Op.MAX, b)) {
            return a;
        }
        if (holds(a, Dim.Derived.Op.MIN, b) || holds(b, Dim.Derived.Op.MAX, a)) {
            return b;
        }
        if (a.isStatic()) {
            return a;
        }
        if (b.isStatic()) {
            return b;
        }
        // flatten nested maxima so repeated broadcasting does not grow the expression
        LinkedHashSet<Dim> terms = new LinkedHashSet<>();
        for (Dim d : List.of(a, b)) {
            if (d instanceof Dim.Derived dd && dd.op() == Dim.Derived.Op.MAX && dd.constant() == Long.MIN_VALUE) {
                terms.addAll(dd.operands());
            } else {
                terms.add(d);
            }
        }
        return Dim.Derived.max(new ArrayList<>(terms));
    }

    static boolean holds(Dim d, Dim.Derived.Op op, Dim operand) {
        return d instanceof Dim.Derived dd && dd.op() == op && dd.operands().contains(operand);
    }

    /**
     * numpy broadcasting of {@code shapes}, recording in {@code c} that the dims meeting at each
     * axis are equal unless one is 1.
     */
    static List<Dim> broadcast(List<List<Dim>> shapes, InferenceContext c) {
        List<Dim> out = broadcast(shapes);
        if (out == null) {
            return null;
        }
        int rank = out.size();
        for (int i = 0; i < rank; i++) {
            Dim first = null;
            for (List<Dim> s : shapes) {
                int j = i - (rank - s.size());
                if (j < 0 || Dim.of(1).equals(s.get(j))) {
                    continue;
                }
                if (first == null) {
                    first = s.get(j);
                } else {
                    c.relate(first, s.get(j), "broadcasting", true);
                }
            }
        }
        return out;
    }

    static List<Dim> broadcast(List<List<Dim>> shapes) {
        int rank = 0;
        for (List<Dim> s : shapes) {
            if (s == null) {
                return null;
            }
            rank = Math.max(rank, s.size());
        }
        List<Dim> out = new ArrayList<>(rank);
        for (int i = 0; i < rank; i++) {
            Dim d = null;
            for (List<Dim> s : shapes) {
                int j = i - (rank - s.size());
                if (j >= 0) {
                    d = d == null ? s.get(j) : broadcastDim(d, s.get(j));
                }
            }
            out.add(d);
        }
        return out;
    }

    static long staticOr(Dim d, long dflt) {
        return d instanceof Dim.Fixed f ? f.extent() : dflt;
    }

    static List<Dim> freshShape(int rank, InferenceContext c, String hint) {
        List<Dim> out = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            out.add(c.fresh(hint + i));
        }
        return out;
    }

    static List<Dim> dimsOf(SymInt[] v, InferenceContext c, String hint) {
        List<Dim> out = new ArrayList<>(v.length);
        for (int i = 0; i < v.length; i++) {
            Dim d = v[i].toDim();
            out.add(d == null ? c.fresh(hint + i) : d);
        }
        return out;
    }

    static Dim padDim(Dim d, long add) {
        Dim s = Dim.Derived.sum(List.of(d), add);
        return s instanceof Dim.Fixed || add >= 0 ? s : Dim.Derived.max(List.of(s, Dim.of(0)));
    }
}
