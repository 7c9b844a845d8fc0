// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

/** A binary min-heap of ints in one array: the ready set of Kahn's algorithm. */
final class IntMinHeap {
    private final int[] heap;
    private int size;

    IntMinHeap(int capacity) {
        heap = new int[capacity];
    }

    boolean isEmpty() {
        return size == 0;
    }

    void push(int x) {
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (heap[parent] <= x) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = x;
    }

    int pop() {
        int top = heap[0];
        int x = heap[--size];
        int i = 0;
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            if (child + 1 < size && heap[child + 1] < heap[child]) {
                child++;
            }
            if (x <= heap[child]) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        if (size > 0) {
            heap[i] = x;
        }
        return top;
    }
}
