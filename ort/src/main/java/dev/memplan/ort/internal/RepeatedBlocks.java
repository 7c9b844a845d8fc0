// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Fits the blocks of a kernel whose number of blocks follows one of its sizes: a Loop holds each
 * step's scan outputs until it joins them, so its blocks are a few of its own, then a group per
 * step. The blocks of every probe are read as a head, {@code times} repeats of one group, and a
 * tail, where {@code times} is one candidate size and each block's size fits a line
 * ({@link WorkspaceFit}) across the probes, the group's the same on every repeat.
 */
final class RepeatedBlocks {
    /**
     * The fitted layout.
     *
     * @param times the candidate whose size is the number of repeats
     * @param head  the blocks before the repeats
     * @param group the blocks of one repeat
     * @param tail  the blocks after them
     */
    record Layout(int times, List<WorkspaceFit.Line> head, List<WorkspaceFit.Line> group,
                  List<WorkspaceFit.Line> tail) {
    }

    private RepeatedBlocks() {
    }

    /**
     * {@return the layout of {@code blocks} (per probe, in order) at {@code points}' sizes, empty when
     * their number follows no candidate or a block's size no line}
     */
    static Optional<Layout> fit(List<WorkspaceFit.Probe> points, List<long[]> blocks) {
        int candidates = points.get(0).sizes().length;
        for (int c = 0; c < candidates; c++) {
            long[] perRepeat = countLine(points, blocks, c);
            if (perRepeat == null) {
                continue;
            }
            int fixed = (int) perRepeat[0];
            int group = (int) perRepeat[1];
            for (int head = 0; head <= fixed; head++) {
                Optional<Layout> layout = layout(points, blocks, c, head, fixed - head, group);
                if (layout.isPresent()) {
                    return layout;
                }
            }
        }
        return Optional.empty();
    }

    /** {@return {fixed, per repeat} where every probe has fixed + per repeat x size c blocks, else null} */
    private static long[] countLine(List<WorkspaceFit.Probe> points, List<long[]> blocks, int c) {
        int other = -1;
        for (int k = 1; k < points.size() && other < 0; k++) {
            if (points.get(k).sizes()[c] != points.get(0).sizes()[c]) {
                other = k;
            }
        }
        if (other < 0) {
            return null;
        }
        long ds = points.get(other).sizes()[c] - points.get(0).sizes()[c];
        long dn = blocks.get(other).length - blocks.get(0).length;
        if (dn <= 0 || dn % ds != 0) {
            return null;
        }
        long per = dn / ds;
        long fixed = blocks.get(0).length - per * points.get(0).sizes()[c];
        if (fixed < 0 || per > Integer.MAX_VALUE || fixed > Integer.MAX_VALUE) {
            return null;
        }
        for (int k = 0; k < points.size(); k++) {
            if (blocks.get(k).length != fixed + per * points.get(k).sizes()[c]) {
                return null;
            }
        }
        return new long[] {fixed, per};
    }

    private static Optional<Layout> layout(List<WorkspaceFit.Probe> points, List<long[]> blocks, int c, int head,
                                           int tail, int group) {
        List<WorkspaceFit.Line> heads = new ArrayList<>();
        for (int i = 0; i < head; i++) {
            int at = i;
            Optional<WorkspaceFit.Line> line = line(points, k -> blocks.get(k)[at]);
            if (line.isEmpty()) {
                return Optional.empty();
            }
            heads.add(line.get());
        }
        List<WorkspaceFit.Line> groups = new ArrayList<>();
        for (int i = 0; i < group; i++) {
            long[] size = new long[points.size()];
            for (int k = 0; k < points.size(); k++) {
                long[] b = blocks.get(k);
                size[k] = b[head + i];
                for (int at = head + i; at < b.length - tail; at += group) {
                    if (b[at] != size[k]) {
                        return Optional.empty(); // the repeats differ
                    }
                }
            }
            Optional<WorkspaceFit.Line> line = line(points, k -> size[k]);
            if (line.isEmpty()) {
                return Optional.empty();
            }
            groups.add(line.get());
        }
        List<WorkspaceFit.Line> tails = new ArrayList<>();
        for (int i = 0; i < tail; i++) {
            int fromEnd = tail - i;
            Optional<WorkspaceFit.Line> line = line(points, k -> blocks.get(k)[blocks.get(k).length - fromEnd]);
            if (line.isEmpty()) {
                return Optional.empty();
            }
            tails.add(line.get());
        }
        return Optional.of(new Layout(c, heads, groups, tails));
    }

    private interface SizeAt {
        long of(int probe);
    }

    private static Optional<WorkspaceFit.Line> line(List<WorkspaceFit.Probe> points, SizeAt size) {
        List<WorkspaceFit.Probe> sizes = new ArrayList<>();
        for (int k = 0; k < points.size(); k++) {
            sizes.add(new WorkspaceFit.Probe(points.get(k).sizes(), size.of(k)));
        }
        return WorkspaceFit.fit(sizes);
    }

    /** {@return a line that is candidate {@code c}'s size itself} */
    static WorkspaceFit.Line sizeOf(int c) {
        return new WorkspaceFit.Line(new int[] {c}, new BigInteger[] {BigInteger.ZERO, BigInteger.ONE}, BigInteger.ONE);
    }
}
