// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/** The exact mode's index of an instance (exact_instance.h): sections, ranges, overlaps, the bound. */
final class ExactInstance {
    // The most overlap pairs and section memberships the search will index.
    static final long MAX_INDEX_ENTRIES = 1L << 25;

    int n;
    int numSections;
    long[] size;
    long[] width;
    long[] area;
    int[] secLo;
    int[] secHi;
    long[] total0;
    int[] cuts0;
    int[] overlapStart;
    int[] overlap;
    int[] memberStart;
    int[] member;
    long lowerBound;

    boolean build(int count, long[] lower, long[] upper, long[] bytes, long height) {
        n = count;
        size = bytes.clone();
        width = new long[n];
        area = new long[n];
        for (int i = 0; i < n; ++i) {
            width[i] = upper[i] - lower[i];
            area[i] = width[i] * size[i];
        }
        long[] ends = distinct(upper);
        numSections = ends.length;
        secLo = new int[n];
        secHi = new int[n];
        long memberships = 0;
        for (int i = 0; i < n; ++i) {
            // Section s (end time t) holds i when lower < t <= upper.
            secLo[i] = upperBound(ends, lower[i]);
            secHi[i] = upperBound(ends, upper[i]);
            memberships += secHi[i] - secLo[i];
        }
        // The bound first (a difference array): it is the answer's floor even when the
        // instance is too large to index.
        total0 = new long[numSections + 1];
        for (int i = 0; i < n; ++i) {
            total0[secLo[i]] += size[i];
            total0[secHi[i]] -= size[i];
        }
        for (int s = 0; s < numSections; ++s) {
            if (s > 0) {
                total0[s] += total0[s - 1];
            }
            lowerBound = Math.max(lowerBound, total0[s]);
        }
        total0 = Arrays.copyOf(total0, numSections);
        if (lowerBound >= height || memberships > MAX_INDEX_ENTRIES) {
            return false;
        }
        cuts0 = new int[numSections > 0 ? numSections - 1 : 0];
        memberStart = new int[numSections + 1];
        for (int i = 0; i < n; ++i) {
            for (int s = secLo[i]; s < secHi[i]; ++s) {
                memberStart[s + 1]++;
            }
            for (int s = secLo[i]; s + 1 < secHi[i]; ++s) {
                cuts0[s]++;
            }
        }
        for (int s = 0; s < numSections; ++s) {
            memberStart[s + 1] += memberStart[s];
        }
        member = new int[memberStart[numSections]];
        int[] cursor = Arrays.copyOf(memberStart, numSections);
        for (int i = 0; i < n; ++i) {
            for (int s = secLo[i]; s < secHi[i]; ++s) {
                member[cursor[s]++] = i;
            }
        }
        // Two buffers overlap exactly when they share a section: i overlaps the members of
        // its first section that started before it, and every buffer starting inside its range.
        int[] startingStart = new int[numSections + 1];
        for (int i = 0; i < n; ++i) {
            startingStart[secLo[i] + 1]++;
        }
        for (int s = 0; s < numSections; ++s) {
            startingStart[s + 1] += startingStart[s];
        }
        int[] starting = new int[n];
        int[] at = Arrays.copyOf(startingStart, numSections);
        for (int i = 0; i < n; ++i) {
            starting[at[secLo[i]]++] = i;
        }
        overlapStart = new int[n + 1];
        long pairs = 0;
        for (int pass = 0; pass < 2; ++pass) {
            int[] fill = null;
            if (pass == 1) {
                for (int i = 0; i < n; ++i) {
                    overlapStart[i + 1] += overlapStart[i];
                }
                overlap = new int[overlapStart[n]];
                fill = Arrays.copyOf(overlapStart, n);
            }
            for (int i = 0; i < n; ++i) {
                int lo = secLo[i];
                for (int k = memberStart[lo]; k < memberStart[lo + 1]; ++k) {
                    int j = member[k];
                    if (j == i || secLo[j] == lo) {
                        continue; // started together: counted below
                    }
                    if (pass == 0) {
                        overlapStart[i + 1]++;
                        overlapStart[j + 1]++;
                        pairs += 2;
                        if (pairs > MAX_INDEX_ENTRIES) {
                            return false;
                        }
                    } else {
                        overlap[fill[i]++] = j;
                        overlap[fill[j]++] = i;
                    }
                }
                for (int s = lo; s < secHi[i]; ++s) {
                    for (int k = startingStart[s]; k < startingStart[s + 1]; ++k) {
                        int j = starting[k];
                        if (j <= i && s == lo) {
                            continue; // a pair starting together, once
                        }
                        if (pass == 0) {
                            overlapStart[i + 1]++;
                            overlapStart[j + 1]++;
                            pairs += 2;
                            if (pairs > MAX_INDEX_ENTRIES) {
                                return false;
                            }
                        } else {
                            overlap[fill[i]++] = j;
                            overlap[fill[j]++] = i;
                        }
                    }
                }
            }
        }
        for (int i = 0; i < n; ++i) {
            Arrays.sort(overlap, overlapStart[i], overlapStart[i + 1]);
        }
        return true;
    }

    private static long[] distinct(long[] values) {
        long[] v = values.clone();
        Arrays.sort(v);
        int d = 0;
        for (int i = 0; i < v.length; i++) {
            if (i == 0 || v[i] != v[d - 1]) {
                v[d++] = v[i];
            }
        }
        return Arrays.copyOf(v, d);
    }

    /** The index of the first entry above {@code key} (std::upper_bound). */
    private static int upperBound(long[] sorted, long key) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] <= key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
