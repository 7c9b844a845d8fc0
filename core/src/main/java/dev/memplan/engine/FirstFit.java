// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/**
 * Greedy by size with first fit (docs/design.md §5b, step 3; mirrored by {@code first_fit.h}): buffers in rank order, each at the lowest offset where it
 * overlaps no placed buffer live at the same time. Position {@code t}'s list holds the placed
 * buffers live at {@code t}; a buffer collects the placed ones over its interval (each once),
 * sorts them by offset and takes the first gap that holds it. The lowest such offset does not
 * depend on how ties in offset are ordered, so both engines agree.
 */
final class FirstFit {
    private final int[] def;
    private final int[] useEnd;
    private final long[] size;
    /** Position t's placed buffers: {@code entries[listStart[t], listEnd[t])}. */
    private final int[] listStart;
    private final int[] listEnd;
    private final int[] entries;
    /** The step that last collected each buffer, so a buffer live at several positions counts once. */
    private final int[] seen;
    private final int[] overlapping;
    private final int[] sortScratch;

    FirstFit(int numPositions, int[] def, int[] useEnd, long[] size, long entries) {
        this.def = def;
        this.useEnd = useEnd;
        this.size = size;
        int n = size.length;
        listStart = new int[numPositions + 1];
        listEnd = new int[numPositions];
        this.entries = new int[(int) entries];
        seen = new int[n];
        overlapping = new int[n];
        sortScratch = new int[n];
    }

    /** Places the buffers of {@code byRank}; writes their offsets (0 for the others) and returns the arena size. */
    long place(int[] byRank, long[] offset) {
        int numPositions = listEnd.length;
        Arrays.fill(listStart, 0);
        for (int b : byRank) { // live counts, then their running sum: each position's list start
            listStart[def[b]]++;
            listStart[useEnd[b] + 1]--;
        }
        int live = 0;
        int start = 0;
        for (int t = 0; t < numPositions; t++) {
            live += listStart[t];
            listStart[t] = start;
            listEnd[t] = start;
            start += live;
        }
        listStart[numPositions] = start;
        Arrays.fill(seen, -1);
        Arrays.fill(offset, 0);
        long peak = 0;
        for (int step = 0; step < byRank.length; step++) {
            int b = byRank[step];
            int count = collectOverlapping(b, step);
            sortByOffset(overlapping, count, offset, sortScratch);
            long lowest = 0;
            for (int k = 0; k < count; k++) {
                int y = overlapping[k];
                if (offset[y] - lowest >= size[b]) {
                    break;
                }
                lowest = Math.max(lowest, offset[y] + size[y]);
            }
            offset[b] = lowest;
            peak = Math.max(peak, lowest + size[b]);
            for (int t = def[b]; t <= useEnd[b]; t++) {
                entries[listEnd[t]++] = b;
            }
        }
        return peak;
    }

    /** Gathers the placed buffers live somewhere in {@code b}'s interval into {@code overlapping}; returns how many. */
    private int collectOverlapping(int b, int step) {
        int count = 0;
        for (int t = def[b]; t <= useEnd[b]; t++) {
            for (int k = listStart[t]; k < listEnd[t]; k++) {
                int y = entries[k];
                if (seen[y] != step) {
                    seen[y] = step;
                    overlapping[count++] = y;
                }
            }
        }
        return count;
    }

    /** Sorts {@code ids[0, count)} by {@code offset[id]} ascending: insertion sort when short, else {@link RankOrder#mergeSort}. */
    static void sortByOffset(int[] ids, int count, long[] offset, int[] scratch) {
        if (count <= INSERTION_SORT_MAX) {
            for (int i = 1; i < count; i++) {
                int x = ids[i];
                long key = offset[x];
                int j = i - 1;
                while (j >= 0 && offset[ids[j]] > key) {
                    ids[j + 1] = ids[j];
                    j--;
                }
                ids[j + 1] = x;
            }
            return;
        }
        RankOrder.mergeSort(ids, count, scratch, (x, y) -> offset[x] < offset[y]);
    }

    /** Lists up to this long are sorted by insertion: a buffer usually overlaps only a few. */
    static final int INSERTION_SORT_MAX = 16;
}
