// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/**
 * The ranks the decoders try, in order (size, area, lifetime: docs/design.md §5b, step 4), and
 * the stable sorts that produce them. Mirrored by {@code rank_order.h}.
 */
final class RankOrder {
    static final int RANK_SIZE = 0;
    static final int RANK_AREA = 1;
    static final int RANK_LENGTH = 2;
    static final int NUM_RANKS = 3;

    private RankOrder() {
    }

    /**
     * Buffers with a size in the order of rank {@code rank}, as buffer indexes. Size and length
     * ranks are two stable radix sorts (the secondary key first; buffers start in index order, the
     * last tie-break); the area rank, whose key is a 128-bit product, is a stable merge sort. Each
     * is a total order, so both engines get the same array.
     */
    static int[] rankOrder(int rank, int[] def, int[] useEnd, long[] size) {
        int m = 0;
        for (long s : size) {
            if (s != 0) {
                m++;
            }
        }
        int[] order = new int[m];
        int k = 0;
        for (int i = 0; i < size.length; i++) {
            if (size[i] != 0) {
                order[k++] = i;
            }
        }
        int[] scratch = new int[m];
        if (rank == RANK_SIZE || rank == RANK_LENGTH) {
            long[] length = new long[size.length];
            for (int i = 0; i < size.length; i++) {
                length[i] = (long) useEnd[i] - def[i] + 1;
            }
            long[] secondary = rank == RANK_SIZE ? length : size;
            long[] primary = rank == RANK_SIZE ? size : length;
            int[] histogram = new int[RADIX_BUCKETS];
            radixSortDescending(order, m, secondary, scratch, histogram);
            radixSortDescending(order, m, primary, scratch, histogram);
            return order;
        }
        mergeSortByRank(rank, order, m, def, useEnd, size, scratch);
        return order;
    }

    static final int RADIX_DIGITS = 8;
    static final int RADIX_BUCKETS = 256;

    /**
     * Sorts {@code order[0, m)} stably by {@code key[order[k]]} descending (keys >= 0): least
     * significant byte first. A byte that every key shares needs no pass; the keys' OR and AND find
     * those bytes first, so the histogram counts only the others.
     */
    static void radixSortDescending(int[] order, int m, long[] key, int[] scratch, int[] histogram) {
        long any = 0;
        long all = ~0L;
        for (int k = 0; k < m; k++) {
            long v = key[order[k]];
            any |= v;
            all &= v;
        }
        long varying = any ^ all;
        int[] from = order;
        int[] to = scratch;
        for (int d = 0; d < RADIX_DIGITS; d++) {
            int shift = 8 * d;
            if (((varying >>> shift) & 0xFF) == 0) {
                continue;
            }
            Arrays.fill(histogram, 0);
            for (int k = 0; k < m; k++) {
                histogram[(int) ((key[from[k]] >>> shift) & 0xFF)]++;
            }
            int sum = 0;
            for (int b = RADIX_BUCKETS - 1; b >= 0; b--) {
                int count = histogram[b];
                histogram[b] = sum;
                sum += count;
            }
            for (int k = 0; k < m; k++) {
                int i = from[k];
                to[histogram[(int) ((key[i] >>> shift) & 0xFF)]++] = i;
            }
            int[] swap = from;
            from = to;
            to = swap;
        }
        if (from != order) {
            System.arraycopy(from, 0, order, 0, m);
        }
    }

    /** Stable bottom-up merge sort of {@code order[0, m)} by {@link #rankBefore}. */
    static void mergeSortByRank(int rank, int[] order, int m, int[] def, int[] useEnd, long[] size, int[] scratch) {
        mergeSort(order, m, scratch, (x, y) -> rankBefore(rank, x, y, def, useEnd, size));
    }

    /** A strict order on buffer indexes: whether {@code x} comes before {@code y}. */
    @FunctionalInterface
    interface IdOrder {
        boolean before(int x, int y);
    }

    /**
     * Stable bottom-up merge sort of {@code ids[0, count)} by {@code order}: a later element moves
     * ahead of an earlier one only when strictly before it. The rank orders and the fit's offset
     * order both sort with it.
     */
    static void mergeSort(int[] ids, int count, int[] scratch, IdOrder order) {
        for (int width = 1; width < count; width *= 2) {
            for (int lo = 0; lo < count - width; lo += 2 * width) {
                int mid = lo + width;
                int hi = Math.min(lo + 2 * width, count);
                int a = lo;
                int b = mid;
                int out = lo;
                while (a < mid && b < hi) {
                    scratch[out++] = order.before(ids[b], ids[a]) ? ids[b++] : ids[a++];
                }
                while (a < mid) {
                    scratch[out++] = ids[a++];
                }
                while (b < hi) {
                    scratch[out++] = ids[b++];
                }
                System.arraycopy(scratch, lo, ids, lo, hi - lo);
            }
        }
    }

    /** Whether buffer {@code x} comes strictly before buffer {@code y} in rank {@code rank}. */
    static boolean rankBefore(int rank, int x, int y, int[] def, int[] useEnd, long[] size) {
        long lengthX = (long) useEnd[x] - def[x] + 1;
        long lengthY = (long) useEnd[y] - def[y] + 1;
        int c;
        if (rank == RANK_SIZE) {
            c = compareDescending(size[x], size[y], lengthX, lengthY);
        } else if (rank == RANK_LENGTH) {
            c = compareDescending(lengthX, lengthY, size[x], size[y]);
        } else {
            c = compareProductsDescending(size[x], lengthX, size[y], lengthY);
            if (c == 0) {
                c = compareDescending(size[x], size[y], lengthX, lengthY);
            }
        }
        return c < 0 || (c == 0 && x < y);
    }

    /** Negative when (a1, a2) is larger than (b1, b2), lexicographically: larger goes first. */
    private static int compareDescending(long a1, long b1, long a2, long b2) {
        if (a1 != b1) {
            return a1 > b1 ? -1 : 1;
        }
        if (a2 != b2) {
            return a2 > b2 ? -1 : 1;
        }
        return 0;
    }

    /** Compares {@code a * la} with {@code b * lb} exactly (128-bit), larger first. All operands >= 0. */
    private static int compareProductsDescending(long a, long la, long b, long lb) {
        long highA = Math.multiplyHigh(a, la);
        long highB = Math.multiplyHigh(b, lb);
        if (highA != highB) {
            return highA > highB ? -1 : 1;
        }
        int low = Long.compareUnsigned(a * la, b * lb);
        return -low;
    }
}
