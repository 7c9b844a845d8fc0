// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Test oracle: the first, straightforward model of ONNX Runtime's BFC arena (ordered maps of boxed
 * chunks), which {@link BfcArena} must match address for address. Default settings
 * ({@code bfc_arena.cc}): requests rounded up to 256 B; the smallest free chunk that fits wins (ties by
 * address, which is what walking the power-of-two bins gives); a chunk is split only if it is at
 * least twice the request or the rest is at least 128 MiB, else handed out whole and counted
 * whole; when nothing fits a new region is added, 1 MiB first, doubled until the request fits, and
 * doubled again for the next one. Regions never merge; a freed chunk coalesces with free
 * neighbours of its own region.
 */
final class ReferenceBfcArena {
    static final long ALIGNMENT = 256;
    private static final long MAX_DEAD_BYTES_PER_CHUNK = 128L << 20;
    private static final long REGION_GAP = 1L << 40; // regions are never adjacent

    /** A chunk of a region. */
    private static final class Chunk {
        final long address;
        long size;
        boolean inUse;
        final long region;
        long requested;

        Chunk(long address, long size, long region) {
            this.address = address;
            this.size = size;
            this.region = region;
        }
    }

    /** Every chunk by address. */
    private final TreeMap<Long, Chunk> chunks = new TreeMap<>();
    /** Free chunks by size, then address: the first that fits is ORT's choice. */
    private final TreeSet<Chunk> free = new TreeSet<>(
            Comparator.<Chunk>comparingLong(c -> c.size).thenComparingLong(c -> c.address));
    private final Chunk probe = new Chunk(-1, 0, -1);
    private long nextRegionAddress;
    private long regionBytes = 1L << 20;
    private long inUse;
    private long requestedInUse;
    private long maxInUse;
    private long requestedAtMax;
    private long reserved;
    /** What memplan's counting allocator holds for each block in use, by its chunk's address. */
    private final Map<Long, Long> countedByAddress = new java.util.HashMap<>();
    private long counted;
    private long maxCounted;

    static long align(long bytes) {
        return (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    }

    /**
     * Allocates {@code bytes}.
     *
     * @return the chunk's address, or -1 for a zero-byte request (ORT hands out no memory for it)
     */
    long alloc(long bytes) {
        if (bytes == 0) {
            return -1;
        }
        long r = align(bytes);
        Chunk chunk = bestFit(r);
        if (chunk == null) {
            extend(r);
            chunk = bestFit(r);
        }
        free.remove(chunk);
        if (chunk.size >= 2 * r || chunk.size - r >= MAX_DEAD_BYTES_PER_CHUNK) {
            Chunk rest = new Chunk(chunk.address + r, chunk.size - r, chunk.region);
            chunks.put(rest.address, rest);
            free.add(rest);
            chunk.size = r;
        }
        chunk.inUse = true;
        chunk.requested = r;
        inUse += chunk.size;
        requestedInUse += r;
        if (inUse > maxInUse) {
            maxInUse = inUse;
            requestedAtMax = requestedInUse;
        }
        // the counting allocator: the block with its 64-byte header, in 4 KiB pages from 64 KiB
        long block = r < 65_536 ? r + 64 : (r + 64 + 4095) / 4096 * 4096;
        countedByAddress.put(chunk.address, block);
        counted += block;
        maxCounted = Math.max(maxCounted, counted);
        return chunk.address;
    }

    /** The smallest free chunk of at least {@code r} bytes, the lowest address among equals. */
    private Chunk bestFit(long r) {
        probe.size = r;
        return free.ceiling(probe); // probe's address -1 sorts before every chunk of that size
    }

    private void extend(long r) {
        boolean grew = false;
        while (r > regionBytes) {
            regionBytes *= 2;
            grew = true;
        }
        long size = regionBytes;
        if (!grew) {
            regionBytes *= 2;
        }
        Chunk region = new Chunk(nextRegionAddress, size, nextRegionAddress);
        chunks.put(region.address, region);
        free.add(region);
        nextRegionAddress += size + REGION_GAP;
        reserved += size;
    }

    /** Frees the chunk at {@code address}; -1 (a zero-byte request) is ignored. */
    void free(long address) {
        if (address < 0) {
            return;
        }
        Chunk c = chunks.get(address);
        if (c == null || !c.inUse) {
            throw new IllegalStateException("the arena replay freed " + address + ", which is not in use");
        }
        c.inUse = false;
        counted -= countedByAddress.remove(address);
        inUse -= c.size;
        requestedInUse -= c.requested;
        Map.Entry<Long, Chunk> next = chunks.higherEntry(address);
        if (next != null && !next.getValue().inUse && next.getValue().region == c.region) {
            free.remove(next.getValue());
            chunks.remove(next.getKey());
            c.size += next.getValue().size;
        }
        Map.Entry<Long, Chunk> previous = chunks.lowerEntry(address);
        if (previous != null && !previous.getValue().inUse && previous.getValue().region == c.region) {
            Chunk p = previous.getValue();
            free.remove(p);
            p.size += c.size;
            chunks.remove(address);
            free.add(p);
        } else {
            free.add(c);
        }
    }

    /** {@return the most bytes in use at once: ORT's {@code MaxInUse}} */
    long maxInUse() {
        return maxInUse;
    }

    /** {@return the 256-byte-rounded requests in use when {@link #maxInUse()} was reached} */
    long requestedAtMax() {
        return requestedAtMax;
    }

    /** {@return the most bytes memplan's counting allocator holds at once for the same blocks} */
    long maxCounted() {
        return maxCounted;
    }

    /** {@return the bytes of all regions: ORT's {@code TotalAllocated}} */
    long reserved() {
        return reserved;
    }
}
