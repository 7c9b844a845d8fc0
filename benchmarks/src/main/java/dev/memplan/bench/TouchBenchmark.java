// SPDX-License-Identifier: Apache-2.0
package dev.memplan.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The memory-bandwidth floor of {@code allocate}: read every owner's size and write a slot per
 * owner, nothing else. No planner can allocate faster than this.
 */
public class TouchBenchmark extends GeneratedGraphBenchmark {

    @Param({"1000", "10000", "100000", "1000000"})
    public int owners;

    private long[] sizes;
    private int[] slots;

    @Setup
    public void setUp() {
        sizes = load(owners).ownerSizes;
        slots = new int[sizes.length];
    }

    @Benchmark
    public int[] touch() {
        long[] in = sizes;
        int[] out = slots;
        for (int o = 0; o < in.length; o++) {
            out[o] = (int) in[o];
        }
        return out;
    }
}
