// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import java.util.Arrays;

/** A growable array of ints: per-node bookkeeping without one boxed Integer per entry. */
final class IntList {
    private int[] items = new int[16];
    private int size;

    void add(int v) {
        if (size == items.length) {
            items = Arrays.copyOf(items, items.length * 2);
        }
        items[size++] = v;
    }

    int get(int i) {
        return items[i];
    }

    int size() {
        return size;
    }
}
