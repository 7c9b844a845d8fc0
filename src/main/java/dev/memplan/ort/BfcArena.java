// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import java.util.ArrayList;
import java.util.List;

/**
 * ONNX Runtime's BFC arena at its default settings ({@code bfc_arena.cc}): requests rounded up to
 * 256 B; the smallest free chunk that fits wins (ties by address, which is what walking the
 * power-of-two bins gives); a chunk is split only if it is at least twice the request or the rest is
 * at least 128 MiB, else handed out whole and counted whole; when nothing fits a new region is
 * added, 1 MiB first, doubled until the request fits, and doubled again for the next one. Regions
 * never merge; a freed chunk coalesces with free neighbours of its own region.
 */
final class BfcArena {
    static final long ALIGNMENT = 256;
    private static final long MAX_DEAD_BYTES_PER_CHUNK = 128L << 20;
    private static final long REGION_GAP = 1L << 40; // regions are never adjacent

    /** A chunk; the list keeps them in address order. */
    private static final class Chunk {
        long address;
        long size;
        boolean inUse;
        long region;
        long requested;

        Chunk(long address, long size, long region) {
            this.address = address;
            this.size = size;
            this.region = region;
        }
    }

    private final List<Chunk> chunks = new ArrayList<>();
    private long nextRegionAddress;
    private long regionBytes = 1L << 20;
    private long inUse;
    private long requestedInUse;
    private long maxInUse;
    private long requestedAtMax;
    private long reserved;

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
        int at = bestFit(r);
        if (at < 0) {
            extend(r);
            at = bestFit(r);
        }
        Chunk chunk = chunks.get(at);
        if (chunk.size >= 2 * r || chunk.size - r >= MAX_DEAD_BYTES_PER_CHUNK) {
            chunks.add(at + 1, new Chunk(chunk.address + r, chunk.size - r, chunk.region));
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
        return chunk.address;
    }

    private int bestFit(long r) {
        int best = -1;
        for (int i = 0; i < chunks.size(); i++) {
            Chunk c = chunks.get(i);
            if (!c.inUse && c.size >= r && (best < 0 || c.size < chunks.get(best).size)) {
                best = i; // address order: the first of equal sizes has the lowest address
            }
        }
        return best;
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
        chunks.add(new Chunk(nextRegionAddress, size, nextRegionAddress));
        nextRegionAddress += size + REGION_GAP;
        reserved += size;
    }

    /** Frees the chunk at {@code address}; -1 (a zero-byte request) is ignored. */
    void free(long address) {
        if (address < 0) {
            return;
        }
        int i = 0;
        while (!(chunks.get(i).address == address && chunks.get(i).inUse)) {
            i++;
        }
        Chunk c = chunks.get(i);
        c.inUse = false;
        inUse -= c.size;
        requestedInUse -= c.requested;
        if (i + 1 < chunks.size() && !chunks.get(i + 1).inUse && chunks.get(i + 1).region == c.region) {
            c.size += chunks.remove(i + 1).size;
        }
        if (i > 0 && !chunks.get(i - 1).inUse && chunks.get(i - 1).region == c.region) {
            chunks.get(i - 1).size += c.size;
            chunks.remove(i);
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

    /** {@return the bytes of all regions: ORT's {@code TotalAllocated}} */
    long reserved() {
        return reserved;
    }
}
