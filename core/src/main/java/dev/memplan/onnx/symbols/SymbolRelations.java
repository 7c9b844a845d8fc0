// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.symbols;

import dev.memplan.Dim;
import dev.memplan.Dim.Symbol;
import dev.memplan.Shape;
import dev.memplan.onnx.BindingConflictException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.ToIntFunction;

/**
 * What the relations of a model mean for its symbols: which symbols are derived from others (no
 * binding needed), and which relations remain to check against the bindings.
 *
 * <p>Relations are taken in the order inference proved them. Each side is rewritten with the
 * derived symbols known so far; a relation whose sides then agree is redundant. Otherwise, when a
 * side is a bare symbol that the other side does not mention, that symbol becomes derived (of two
 * bare symbols, a fresh one before a named one, else the one the model used later); anything else
 * is kept as a check. Derived expressions only ever mention symbols that are not derived.
 */
public final class SymbolRelations {
    /** No relations: every symbol is free. */
    public static final SymbolRelations NONE = new SymbolRelations(Map.of(), List.of());

    private final Map<String, DerivedSymbol> derived;
    private final List<SymbolRelation> checks;

    private SymbolRelations(Map<String, DerivedSymbol> derived, List<SymbolRelation> checks) {
        this.derived = Collections.unmodifiableMap(derived);
        this.checks = List.copyOf(checks);
    }

    /**
     * Resolves {@code relations}.
     *
     * @param definePriority for two bare symbols, the one with the higher priority becomes derived
     */
    static SymbolRelations resolve(List<SymbolRelation> relations, ToIntFunction<String> definePriority) {
        Map<String, DerivedSymbol> derived = new LinkedHashMap<>();
        Map<String, Dim> exprs = new LinkedHashMap<>();
        List<SymbolRelation> checks = new ArrayList<>();
        for (SymbolRelation rel : relations) {
            try {
                Dim l = DimSubstitution.apply(rel.left(), exprs);
                Dim r = DimSubstitution.apply(rel.right(), exprs);
                if (l.equals(r)) {
                    continue;
                }
                String target = pick(l, r, definePriority);
                if (target == null) {
                    checks.add(rel);
                    continue;
                }
                Dim expr = l instanceof Symbol s && s.name().equals(target) ? r : l;
                Map<String, Dim> one = Map.of(target, expr);
                Map<String, Dim> rewritten = new LinkedHashMap<>();
                boolean small = !DimSubstitution.tooComplex(List.of(expr));
                for (Map.Entry<String, Dim> e : exprs.entrySet()) {
                    Dim n = DimSubstitution.apply(e.getValue(), one);
                    small &= !DimSubstitution.tooComplex(List.of(n));
                    rewritten.put(e.getKey(), n);
                }
                if (!small) {
                    checks.add(rel); // substitution would grow the expressions without bound: only check
                    continue;
                }
                for (Map.Entry<String, Dim> e : rewritten.entrySet()) {
                    exprs.put(e.getKey(), e.getValue());
                    DerivedSymbol old = derived.get(e.getKey());
                    derived.put(e.getKey(), new DerivedSymbol(old.name(), e.getValue(), old.relation()));
                }
                exprs.put(target, expr);
                derived.put(target, new DerivedSymbol(target, expr, rel));
            } catch (ArithmeticException | IllegalArgumentException e) {
                checks.add(rel); // an expression too large to rewrite: still checked at binding time
            }
        }
        return new SymbolRelations(derived, checks);
    }

    private static String pick(Dim l, Dim r, ToIntFunction<String> priority) {
        String a = l instanceof Symbol s && !DimSubstitution.mentions(r, s.name()) ? s.name() : null;
        String b = r instanceof Symbol s && !DimSubstitution.mentions(l, s.name()) ? s.name() : null;
        if (a == null || b == null) {
            return a != null ? a : b;
        }
        return priority.applyAsInt(a) >= priority.applyAsInt(b) ? a : b;
    }

    /**
     * The derived symbols.
     *
     * @return derived symbols by name, in the order they were derived
     */
    public Map<String, DerivedSymbol> derived() {
        return derived;
    }

    /**
     * The relations left to check.
     *
     * @return relations that derive nothing and are checked against every binding
     */
    public List<SymbolRelation> checks() {
        return checks;
    }

    /**
     * {@code bindings} plus the value of every derived symbol they determine. A derived symbol the
     * caller binds anyway must agree with its expression; every other relation must hold where
     * both of its sides are known.
     *
     * @param bindings symbol values the caller gives
     * @return {@code bindings} plus the derived values, in a new map
     *
     * @throws BindingConflictException naming the node and both sides when a binding contradicts a
     *                                  relation
     */
    public Map<String, Long> complete(Map<String, Long> bindings) {
        Map<String, Long> out = new LinkedHashMap<>(bindings);
        for (DerivedSymbol d : derived.values()) {
            OptionalLong v = evaluate(d.expression(), bindings);
            Long given = bindings.get(d.name());
            if (given == null) {
                v.ifPresent(x -> out.put(d.name(), x));
            } else if (v.isPresent() && !d.relation().holds(given, v.getAsLong())) {
                throw conflict(d.relation(), new Symbol(d.name()), given, d.expression(), v.getAsLong(),
                        "leave " + d.name() + " unbound (it follows from the others) or bind it to " + v.getAsLong());
            }
        }
        for (SymbolRelation c : checks) {
            OptionalLong l = evaluate(c.left(), out);
            OptionalLong r = evaluate(c.right(), out);
            if (l.isPresent() && r.isPresent() && !c.holds(l.getAsLong(), r.getAsLong())) {
                throw conflict(c, c.left(), l.getAsLong(), c.right(), r.getAsLong(), "fix the bindings");
            }
        }
        return out;
    }

    /** Whether {@code a} and {@code b} are the same shape once derived symbols are replaced. */
    public boolean sameShape(Shape a, Shape b) {
        if (a.rank() != b.rank()) {
            return false;
        }
        Map<String, Dim> exprs = new LinkedHashMap<>();
        derived.forEach((name, d) -> exprs.put(name, d.expression()));
        for (int i = 0; i < a.rank(); i++) {
            if (!DimSubstitution.apply(a.dims().get(i), exprs).equals(DimSubstitution.apply(b.dims().get(i), exprs))) {
                return false;
            }
        }
        return true;
    }

    private static BindingConflictException conflict(SymbolRelation rel, Dim left, long l, Dim right, long r,
                                                     String todo) {
        String a = DerivedSymbol.text(left);
        String b = DerivedSymbol.text(right);
        return new BindingConflictException(rel.node() + " needs " + a + " = " + b + " (" + rel.why()
                + (rel.broadcast() ? ", or one of them 1" : "") + "), but the bindings make " + a + " " + l
                + " and " + b + " " + r + "; " + todo);
    }

    private static OptionalLong evaluate(Dim d, Map<String, Long> bindings) {
        try {
            return d.evaluate(bindings);
        } catch (RuntimeException e) {
            return OptionalLong.empty(); // an overflow or a negative binding: planning reports it
        }
    }
}
