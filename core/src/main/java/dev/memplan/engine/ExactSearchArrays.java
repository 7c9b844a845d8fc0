// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/**
 * What {@link ExactSearch} takes from C++'s standard library, in Java: a growable int array
 * (std::vector&lt;int&gt;), an undo log (std::vector of changes) and a sort of buffer ids by a strict
 * total order (std::sort's result). exact_search.h needs no twin of it.
 */
final class ExactSearchArrays {
    private ExactSearchArrays() {
    }

    /** A growable int array: std::vector<int>'s push_back, resize and indexing. */
    static final class Ints {
        int[] a = new int[16];
        int size;

        void push(int v) {
            if (size == a.length) {
                a = Arrays.copyOf(a, 2 * size);
            }
            a[size++] = v;
        }
    }

    /** An undo log of (index, old value): std::vector<Change>. */
    static final class ChangeLog {
        int[] index = new int[16];
        long[] value = new long[16];
        int size;

        void push(int i, long v) {
            if (size == index.length) {
                index = Arrays.copyOf(index, 2 * size);
                value = Arrays.copyOf(value, 2 * size);
            }
            index[size] = i;
            value[size++] = v;
        }
    }

    /** A comparison of two buffer ids. */
    interface IdOrder {
        boolean less(int a, int b);
    }

    /**
     * Sorts ids in {@code a[from, to)} by a strict total order (a merge sort: any correct sort gives
     * std::sort's result, since no two ids compare equal).
     */
    static void sort(int[] a, int from, int to, IdOrder order, Ints tmp) {
        int len = to - from;
        if (len < 2) {
            return;
        }
        if (len <= 16) {
            for (int i = from + 1; i < to; i++) {
                int v = a[i];
                int j = i - 1;
                while (j >= from && order.less(v, a[j])) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = v;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        sort(a, from, mid, order, tmp);
        sort(a, mid, to, order, tmp);
        if (tmp.a.length < len) {
            tmp.a = new int[Math.max(len, 2 * tmp.a.length)];
        }
        int i = from;
        int j = mid;
        int k = 0;
        while (i < mid && j < to) {
            tmp.a[k++] = order.less(a[j], a[i]) ? a[j++] : a[i++];
        }
        while (i < mid) {
            tmp.a[k++] = a[i++];
        }
        while (j < to) {
            tmp.a[k++] = a[j++];
        }
        System.arraycopy(tmp.a, 0, a, from, len);
    }
}
