// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A kernel's workspace as measured at a few probe shapes, fitted exactly to its sizes: a constant,
 * else a constant plus a multiple of one candidate size (a value's bytes or one of its dims), else
 * plus multiples of two (a GRU takes a few bytes per batch row and more per row and step). The
 * fewest terms that hold every probe exactly win, the first candidates first; the coefficients are
 * exact fractions, and the workspace at other sizes is rounded up.
 */
final class WorkspaceFit {
    /** The most candidate sizes a fit combines. */
    static final int MAX_TERMS = 2;

    /**
     * One probe: the candidates' sizes at its shapes and the workspace measured there.
     *
     * @param sizes     per candidate, its size at the probe's shapes
     * @param workspace the bytes the kernel took beyond its outputs
     */
    record Probe(long[] sizes, long workspace) {
    }

    /**
     * The fitted workspace: {@code ceil((a[0] + a[1] n[candidates[0]] + ...) / d)}, never negative.
     *
     * @param candidates the candidates it follows, none for a constant
     * @param a          the constant's and each term's numerator
     * @param d          the common denominator, positive
     */
    record Line(int[] candidates, BigInteger[] a, BigInteger d) {
        /** {@return the workspace where candidate {@code candidates[i]} has size {@code n[i]}} */
        long at(long... n) {
            BigInteger sum = a[0];
            for (int i = 0; i < candidates.length; i++) {
                sum = sum.add(a[i + 1].multiply(BigInteger.valueOf(n[i])));
            }
            BigInteger[] qr = sum.divideAndRemainder(d);
            BigInteger w = qr[1].signum() > 0 ? qr[0].add(BigInteger.ONE) : qr[0];
            return w.signum() < 0 ? 0 : w.longValueExact();
        }
    }

    private WorkspaceFit() {
    }

    /**
     * Fits the probes.
     *
     * @param probes at least one probe, every one with the same number of candidates
     * @return the fit with the fewest terms that holds every probe exactly; empty when none of up to
     *         {@value #MAX_TERMS} terms does (the workspace follows the data, or more sizes)
     */
    static Optional<Line> fit(List<Probe> probes) {
        int candidates = probes.get(0).sizes().length;
        for (int terms = 0; terms <= MAX_TERMS; terms++) {
            Optional<Line> line = fit(probes, new int[terms], 0, 0, candidates);
            if (line.isPresent()) {
                return line;
            }
        }
        return Optional.empty();
    }

    /** Tries every choice of {@code chosen.length} candidates from {@code from} on, in order. */
    private static Optional<Line> fit(List<Probe> probes, int[] chosen, int k, int from, int candidates) {
        if (k == chosen.length) {
            return solve(probes, chosen.clone());
        }
        for (int c = from; c < candidates; c++) {
            chosen[k] = c;
            Optional<Line> line = fit(probes, chosen, k + 1, c + 1, candidates);
            if (line.isPresent()) {
                return line;
            }
        }
        return Optional.empty();
    }

    /** The exact solution through independent probes, if one holds every probe. */
    private static Optional<Line> solve(List<Probe> probes, int[] chosen) {
        int n = chosen.length + 1;
        List<BigInteger[]> rows = new ArrayList<>();
        List<BigInteger> rhs = new ArrayList<>();
        for (Probe p : probes) { // greedily keep probes that add a new direction
            BigInteger[] row = row(p, chosen);
            rows.add(row);
            rhs.add(BigInteger.valueOf(p.workspace()));
            if (rank(rows) < rows.size()) {
                rows.remove(rows.size() - 1);
                rhs.remove(rhs.size() - 1);
            }
            if (rows.size() == n) {
                break;
            }
        }
        if (rows.size() < n) {
            return Optional.empty(); // the probes cannot tell these terms apart
        }
        BigInteger[][] m = rows.toArray(new BigInteger[0][]);
        BigInteger det = det(m);
        BigInteger[] a = new BigInteger[n];
        for (int i = 0; i < n; i++) { // Cramer's rule
            BigInteger[][] mi = new BigInteger[n][];
            for (int r = 0; r < n; r++) {
                mi[r] = m[r].clone();
                mi[r][i] = rhs.get(r);
            }
            a[i] = det(mi);
        }
        BigInteger d = det;
        if (d.signum() < 0) {
            d = d.negate();
            for (int i = 0; i < n; i++) {
                a[i] = a[i].negate();
            }
        }
        for (Probe p : probes) {
            BigInteger[] row = row(p, chosen);
            BigInteger sum = BigInteger.ZERO;
            for (int i = 0; i < n; i++) {
                sum = sum.add(a[i].multiply(row[i]));
            }
            if (!sum.equals(d.multiply(BigInteger.valueOf(p.workspace())))) {
                return Optional.empty();
            }
        }
        return Optional.of(new Line(chosen, a, d));
    }

    private static BigInteger[] row(Probe p, int[] chosen) {
        BigInteger[] row = new BigInteger[chosen.length + 1];
        row[0] = BigInteger.ONE;
        for (int i = 0; i < chosen.length; i++) {
            row[i + 1] = BigInteger.valueOf(p.sizes()[chosen[i]]);
        }
        return row;
    }

    /** The rank of a few short rows, by fraction-free elimination. */
    private static int rank(List<BigInteger[]> rows) {
        BigInteger[][] m = new BigInteger[rows.size()][];
        for (int r = 0; r < m.length; r++) {
            m[r] = rows.get(r).clone();
        }
        int rank = 0;
        int cols = m.length == 0 ? 0 : m[0].length;
        for (int c = 0; c < cols && rank < m.length; c++) {
            int pivot = -1;
            for (int r = rank; r < m.length; r++) {
                if (m[r][c].signum() != 0) {
                    pivot = r;
                    break;
                }
            }
            if (pivot < 0) {
                continue;
            }
            BigInteger[] t = m[pivot];
            m[pivot] = m[rank];
            m[rank] = t;
            for (int r = rank + 1; r < m.length; r++) {
                BigInteger f = m[r][c];
                BigInteger p = m[rank][c];
                for (int k = c; k < cols; k++) {
                    m[r][k] = m[r][k].multiply(p).subtract(m[rank][k].multiply(f));
                }
            }
            rank++;
        }
        return rank;
    }

    /** The determinant of a square matrix of at most {@value #MAX_TERMS} + 1 rows, by expansion. */
    private static BigInteger det(BigInteger[][] m) {
        int n = m.length;
        if (n == 1) {
            return m[0][0];
        }
        BigInteger sum = BigInteger.ZERO;
        for (int c = 0; c < n; c++) {
            BigInteger[][] minor = new BigInteger[n - 1][n - 1];
            for (int r = 1; r < n; r++) {
                for (int k = 0, j = 0; k < n; k++) {
                    if (k != c) {
                        minor[r - 1][j++] = m[r][k];
                    }
                }
            }
            BigInteger term = m[0][c].multiply(det(minor));
            sum = c % 2 == 0 ? sum.add(term) : sum.subtract(term);
        }
        return sum;
    }
}
