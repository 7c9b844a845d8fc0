// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Tight interval packing instances on which greedy placement by size does badly, built by cutting a
 * known perfect packing into pieces.
 *
 * <p>It starts from one rectangle, {@link #ARENA_BYTES} wide in bytes and {@link #POSITIONS} long
 * in time, and repeatedly cuts a piece (picked with probability proportional to its area) in two:
 * half the time across its lifetime (two buffers of the same size, one after the other), half the
 * time across its bytes (two buffers with the same lifetime, the smaller one a log-uniform 2% to
 * 50% of the piece, never under {@link #SMALLEST_BYTES}). The pieces tile the rectangle, so every
 * position has exactly {@code ARENA_BYTES} live and the lower bound (most bytes live at one
 * position) equals the arena of a perfect packing, which {@link PackingInstance#witnessOffsets()}
 * records. Sizes span three orders of magnitude, and long-lived buffers sit between short-lived
 * ones. Greedy by size with best fit lands about 30-40% above the bound on these (measured in
 * HardPackingGeneratorTest), the same range it reaches on MiniMalloc's "challenging" set.
 *
 * <p>Deterministic: {@link Random} with a fixed algorithm and integer arithmetic only (apart from
 * one {@link StrictMath} call), so a seed gives the same instance on every JVM. Buffer ids are
 * shuffled so that id order tells a planner nothing about the witness.
 */
public final class HardPackingGenerator {
    /** Bytes of the rectangle that is cut: the arena of the perfect packing and the lower bound. */
    public static final long ARENA_BYTES = 1L << 20;
    /** Positions of the rectangle: every buffer lives inside {@code [0, POSITIONS)}. */
    public static final int POSITIONS = 128;
    /** No cut across bytes makes a buffer smaller than this (ARENA_BYTES / 1024). */
    public static final long SMALLEST_BYTES = ARENA_BYTES / 1024;
    /** Fewest buffers {@link #generate(long)} picks. */
    public static final int MIN_DEFAULT_BUFFERS = 150;
    /** Most buffers {@link #generate(long)} picks. */
    public static final int MAX_DEFAULT_BUFFERS = 500;
    /** Most buffers {@link #generate(long, int)} accepts: far below what the rectangle can be cut into. */
    public static final int MAX_BUFFERS = 5_000;

    private static final double SMALLEST_CUT_FRACTION = 0.02;

    private HardPackingGenerator() {
    }

    /**
     * The instance of {@code seed}, with 150 to 500 buffers (the seed picks how many).
     *
     * @param seed the random seed: same seed, same instance
     * @return the instance with its known packing
     */
    public static PackingInstance generate(long seed) {
        Random rnd = random(seed);
        int buffers = MIN_DEFAULT_BUFFERS + rnd.nextInt(MAX_DEFAULT_BUFFERS - MIN_DEFAULT_BUFFERS + 1);
        return generate(seed, buffers);
    }

    /**
     * The instance of {@code seed} with exactly {@code buffers} buffers.
     *
     * @param seed    the random seed: same seed, same instance
     * @param buffers how many buffers
     * @return the instance with its known packing
     * @throws IllegalArgumentException when {@code buffers} is outside {@code [1, MAX_BUFFERS]}
     */
    public static PackingInstance generate(long seed, int buffers) {
        if (buffers < 1 || buffers > MAX_BUFFERS) {
            throw new IllegalArgumentException("buffers must be in [1, " + MAX_BUFFERS + "], got " + buffers);
        }
        Random rnd = random(seed ^ 0x5DEECE66DL * buffers);
        List<Piece> pieces = new ArrayList<>();
        pieces.add(new Piece(0, ARENA_BYTES, 0, POSITIONS));
        while (pieces.size() < buffers) {
            int i = pickByArea(pieces, rnd);
            Piece p = pieces.get(i);
            boolean acrossTime = rnd.nextBoolean();
            Piece[] halves = acrossTime ? cutTime(p, rnd) : cutBytes(p, rnd);
            if (halves == null) {
                halves = acrossTime ? cutBytes(p, rnd) : cutTime(p, rnd);
            }
            if (halves != null) { // else the piece is atomic; pick again (the area weights keep this rare)
                pieces.set(i, halves[0]);
                pieces.add(halves[1]);
            }
        }
        shuffle(pieces, rnd);
        int n = pieces.size();
        int[] lower = new int[n];
        int[] upper = new int[n];
        long[] sizes = new long[n];
        long[] offsets = new long[n];
        for (int b = 0; b < n; b++) {
            Piece p = pieces.get(b);
            lower[b] = p.start;
            upper[b] = p.end;
            sizes[b] = p.bytes;
            offsets[b] = p.offset;
        }
        return new PackingInstance("hard-packing(seed=" + seed + ", buffers=" + n + ")", POSITIONS, lower, upper,
                sizes, offsets, ARENA_BYTES);
    }

    private static Random random(long seed) {
        return new Random(seed * 0x9E3779B97F4A7C15L + 0x1234567L);
    }

    /** A piece's index, chosen with probability proportional to bytes x positions. */
    private static int pickByArea(List<Piece> pieces, Random rnd) {
        long total = 0;
        for (Piece p : pieces) {
            total += p.area();
        }
        long r = rnd.nextLong(total);
        for (int i = 0; i < pieces.size(); i++) {
            r -= pieces.get(i).area();
            if (r < 0) {
                return i;
            }
        }
        throw new AssertionError("area weights summed to " + total);
    }

    /** Two buffers of the piece's size, one after the other; null when the piece lives one position. */
    private static Piece[] cutTime(Piece p, Random rnd) {
        if (p.end - p.start < 2) {
            return null;
        }
        int at = p.start + 1 + rnd.nextInt(p.end - p.start - 1);
        return new Piece[] {new Piece(p.offset, p.bytes, p.start, at), new Piece(p.offset, p.bytes, at, p.end)};
    }

    /** Two buffers with the piece's lifetime, the smaller a log-uniform share; null when too small to cut. */
    private static Piece[] cutBytes(Piece p, Random rnd) {
        if (p.bytes < 2 * SMALLEST_BYTES) {
            return null;
        }
        double share = Math.min(0.5, StrictMath.exp(StrictMath.log(SMALLEST_CUT_FRACTION) * rnd.nextDouble()));
        long small = Math.max(SMALLEST_BYTES, Math.min(p.bytes - SMALLEST_BYTES, Math.round(p.bytes * share)));
        long first = rnd.nextBoolean() ? small : p.bytes - small;
        return new Piece[] {new Piece(p.offset, first, p.start, p.end),
            new Piece(p.offset + first, p.bytes - first, p.start, p.end)};
    }

    private static void shuffle(List<Piece> pieces, Random rnd) {
        for (int i = pieces.size() - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            Piece t = pieces.get(i);
            pieces.set(i, pieces.get(j));
            pieces.set(j, t);
        }
    }

    /** A rectangle of the perfect packing: bytes {@code [offset, offset + bytes)}, positions {@code [start, end)}. */
    private record Piece(long offset, long bytes, int start, int end) {
        long area() {
            return bytes * (end - start);
        }
    }
}
