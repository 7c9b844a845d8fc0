// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.InvalidSizeException;
import java.util.Arrays;

/**
 * ONNX Runtime's BFC arena at its default settings ({@code bfc_arena.cc}): requests rounded up to
 * 256 B; the smallest free chunk that fits wins (ties by address, which is what walking the
 * power-of-two bins gives); a chunk is split only if it is at least twice the request or the rest is
 * at least 128 MiB, else handed out whole and counted whole; when nothing fits a new region is
 * added, 1 MiB first, doubled until the request fits, and doubled again for the next one. Regions
 * never merge; a freed chunk coalesces with free neighbours of its own region.
 *
 * <p>Laid out for the per-request replay: chunks live in flat arrays indexed by a chunk id (ids of
 * merged chunks are reused), linked to their neighbours of the same region; free chunks sit in
 * power-of-two bins from 256 B, as in ORT, each bin an array sorted by size then address, with a
 * bit mask of the non-empty bins. Nothing is boxed, and {@link #reset} readies it for the next
 * request without allocating.
 *
 * <p>Beside ORT's figure it counts what memplan's counting allocator ({@code
 * ort_counting_allocator.h}, no arena) holds from the system for the same requests: each block on
 * its own, with a 64-byte header, mapped in whole pages from 64 KiB. The request's size is taken
 * 256-byte rounded, as here: at least what ORT asks for.
 */
final class BfcArena {
    static final long ALIGNMENT = 256;
    private static final long MAX_DEAD_BYTES_PER_CHUNK = 128L << 20;
    private static final long REGION_GAP = 1L << 40; // regions are never adjacent
    /**
     * The largest block the replay takes: no machine holds more, and past it the doubling of the
     * next region's size would leave a long. A model whose sizes ask for more is refused.
     */
    static final long MAX_BLOCK_BYTES = 1L << 62;
    private static final int BINS = 64;
    private static final int NONE = -1;
    /** Small: a request's replay makes a new arena, and most graphs keep few chunks. */
    private static final int INITIAL_CHUNKS = 8;
    /** The counting allocator's header per block, and the size from which it maps a block alone. */
    private static final long COUNTED_HEADER = 64;
    private static final long COUNTED_MAPPED_FROM = 64 << 10;
    private static final long PAGE = 4096;

    // Per chunk id.
    private long[] address = new long[INITIAL_CHUNKS];
    private long[] size = new long[INITIAL_CHUNKS];
    private long[] requested = new long[INITIAL_CHUNKS];
    /** What the counting allocator holds for the chunk's request while it is in use. */
    private long[] counted = new long[INITIAL_CHUNKS];
    private boolean[] inUse = new boolean[INITIAL_CHUNKS];
    /** The neighbouring chunk of the same region below / above, or {@link #NONE}. */
    private int[] prev = new int[INITIAL_CHUNKS];
    private int[] next = new int[INITIAL_CHUNKS];
    private int chunks;
    /** Ids of chunks merged away, reused before new ids. */
    private int[] spare = new int[4];
    private int spares;

    /** Per bin: free chunk ids sorted by (size, address); bin i holds sizes in [256 << i, 256 << (i + 1)). */
    private final int[][] bins = new int[BINS][];
    private final int[] binCount = new int[BINS];
    /** Bit i set when bin i holds a free chunk. */
    private long nonEmptyBins;

    private long nextRegionAddress;
    private long regionBytes = 1L << 20;
    private long inUseBytes;
    private long requestedInUse;
    private long maxInUse;
    private long requestedAtMax;
    private long reserved;
    private long countedInUse;
    private long maxCounted;

    /**
     * Empties the arena for the next request's replay, keeping its arrays: the same state as a new
     * arena, without allocating one.
     */
    void reset() {
        reset(OrtArenaStart.EMPTY);
    }

    /**
     * Readies the arena for the next request's replay from the state a session left it in: its free
     * chunk as a region of its own (the in-use part before it is never freed, so never merges) and
     * the size of the next region. Bytes in use start at 0: a figure counts what the request adds.
     */
    void reset(OrtArenaStart start) {
        resetEmpty();
        regionBytes = start.nextRegionBytes();
        if (start.freeBytes() > 0) {
            int free = newChunk(0, start.freeBytes());
            prev[free] = NONE;
            next[free] = NONE;
            addFree(free);
            nextRegionAddress = start.freeBytes() + REGION_GAP;
        }
    }

    private void resetEmpty() {
        for (long bits = nonEmptyBins; bits != 0; bits &= bits - 1) {
            binCount[Long.numberOfTrailingZeros(bits)] = 0;
        }
        nonEmptyBins = 0;
        chunks = 0;
        spares = 0;
        nextRegionAddress = 0;
        regionBytes = 1L << 20;
        inUseBytes = 0;
        requestedInUse = 0;
        maxInUse = 0;
        requestedAtMax = 0;
        reserved = 0;
        countedInUse = 0;
        maxCounted = 0;
    }

    static long align(long bytes) {
        return (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    }

    /** {@return what the counting allocator holds from the system for a request of {@code r} bytes} */
    static long countedBlock(long r) {
        long held = r + COUNTED_HEADER;
        return r >= COUNTED_MAPPED_FROM ? (held + PAGE - 1) / PAGE * PAGE : held;
    }

    /**
     * Allocates {@code bytes}.
     *
     * @return the chunk's id, for {@link #free} and {@link #address}, or -1 for a zero-byte request
     *         (ORT hands out no memory for it)
     */
    int alloc(long bytes) {
        if (bytes == 0) {
            return NONE;
        }
        long r = align(checkedBlock(bytes));
        int chunk = bestFit(r);
        if (chunk == NONE) {
            extend(r);
            chunk = bestFit(r);
        }
        removeFree(chunk);
        long chunkSize = size[chunk];
        if (chunkSize - r >= r || chunkSize - r >= MAX_DEAD_BYTES_PER_CHUNK) {
            int rest = newChunk(address[chunk] + r, chunkSize - r);
            int after = next[chunk];
            prev[rest] = chunk;
            next[rest] = after;
            if (after != NONE) {
                prev[after] = rest;
            }
            next[chunk] = rest;
            size[chunk] = r;
            addFree(rest);
        }
        inUse[chunk] = true;
        requested[chunk] = r;
        inUseBytes += size[chunk];
        requestedInUse += r;
        if (inUseBytes > maxInUse) {
            maxInUse = inUseBytes;
            requestedAtMax = requestedInUse;
        }
        counted[chunk] = countedBlock(r);
        countedInUse += counted[chunk];
        maxCounted = Math.max(maxCounted, countedInUse);
        return chunk;
    }

    /**
     * What {@code free(alloc(bytes))} does, without moving a chunk: a kernel's workspace, taken and
     * given back before anything else happens. Free chunks never neighbour each other in a region,
     * so the chunk taken merges back into exactly the free chunk it came from; what stays is the
     * peak it reached and the region added when nothing fit.
     */
    void allocAndFree(long bytes) {
        if (bytes == 0) {
            return;
        }
        long r = align(checkedBlock(bytes));
        int chunk = bestFit(r);
        if (chunk == NONE) {
            extend(r);
            chunk = bestFit(r);
        }
        long chunkSize = size[chunk];
        long taken = chunkSize - r >= r || chunkSize - r >= MAX_DEAD_BYTES_PER_CHUNK ? r : chunkSize;
        if (inUseBytes + taken > maxInUse) {
            maxInUse = inUseBytes + taken;
            requestedAtMax = requestedInUse + r;
        }
        maxCounted = Math.max(maxCounted, countedInUse + countedBlock(r));
    }

    /** The smallest free chunk of at least {@code r} bytes, the lowest address among equals; or NONE. */
    private int bestFit(long r) {
        int bin = binOf(r);
        if ((nonEmptyBins & (1L << bin)) != 0) {
            // chunks of r's own bin may be smaller than r: the first one that fits
            int at = lowerBound(bin, r, Long.MIN_VALUE);
            if (at < binCount[bin]) {
                return bins[bin][at];
            }
        }
        long above = bin == BINS - 1 ? 0 : nonEmptyBins & (-1L << (bin + 1));
        return above == 0 ? NONE : bins[Long.numberOfTrailingZeros(above)][0]; // every chunk there fits
    }

    private static long checkedBlock(long bytes) {
        if (bytes > MAX_BLOCK_BYTES) {
            throw new InvalidSizeException("ONNX Runtime's arena would hold a block of " + bytes
                    + " bytes, more than 2^62: no machine has that memory; check the model's shapes and the bindings");
        }
        return bytes;
    }

    private void extend(long r) {
        boolean grew = false;
        while (r > regionBytes) { // r <= MAX_BLOCK_BYTES, a power of two: this stops there
            regionBytes *= 2;
            grew = true;
        }
        long regionSize = regionBytes;
        if (!grew && regionBytes < MAX_BLOCK_BYTES) {
            regionBytes *= 2;
        }
        long regionAddress = nextRegionAddress;
        try {
            nextRegionAddress = Math.addExact(nextRegionAddress, Math.addExact(regionSize, REGION_GAP));
            reserved = Math.addExact(reserved, regionSize);
        } catch (ArithmeticException e) {
            throw new InvalidSizeException("ONNX Runtime's arena would reserve more than 2^63-1 bytes in all: no"
                    + " machine has that memory; check the model's shapes and the bindings");
        }
        int region = newChunk(regionAddress, regionSize);
        prev[region] = NONE;
        next[region] = NONE;
        addFree(region);
    }

    /**
     * Frees a chunk {@link #alloc} returned; -1 (a zero-byte request) is ignored.
     *
     * @throws IllegalStateException when the chunk is not in use (a replay bug, never a user's)
     */
    void free(long chunk) {
        if (chunk == NONE) {
            return;
        }
        if (chunk < 0 || chunk >= chunks || !inUse[(int) chunk]) {
            throw new IllegalStateException("the arena replay freed chunk " + chunk + ", which is not in use");
        }
        int id = (int) chunk;
        inUse[id] = false;
        inUseBytes -= size[id];
        requestedInUse -= requested[id];
        countedInUse -= counted[id];
        int c = id;
        int after = next[c];
        if (after != NONE && !inUse[after]) { // neighbours are always of the same region
            removeFree(after);
            size[c] += size[after];
            unlink(after);
        }
        int before = prev[c];
        if (before != NONE && !inUse[before]) {
            removeFree(before);
            size[before] += size[c];
            unlink(c);
            c = before;
        }
        addFree(c);
    }

    /** {@return the address of chunk {@code id} while it is in use} */
    long address(int id) {
        return address[id];
    }

    /** {@return the most bytes in use at once: ORT's {@code MaxInUse}} */
    long maxInUse() {
        return maxInUse;
    }

    /** {@return the 256-byte-rounded requests in use when {@link #maxInUse()} was reached} */
    long requestedAtMax() {
        return requestedAtMax;
    }

    /**
     * {@return the most bytes memplan's counting allocator would hold from the system at once for
     * the same requests: blocks with headers and page tails, no arena}
     */
    long maxCounted() {
        return maxCounted;
    }

    /** {@return the bytes of all regions: ORT's {@code TotalAllocated}} */
    long reserved() {
        return reserved;
    }

    private int newChunk(long at, long bytes) {
        int id;
        if (spares > 0) {
            id = spare[--spares];
        } else {
            if (chunks == address.length) {
                int n = 2 * chunks;
                address = Arrays.copyOf(address, n);
                size = Arrays.copyOf(size, n);
                requested = Arrays.copyOf(requested, n);
                counted = Arrays.copyOf(counted, n);
                inUse = Arrays.copyOf(inUse, n);
                prev = Arrays.copyOf(prev, n);
                next = Arrays.copyOf(next, n);
            }
            id = chunks++;
        }
        address[id] = at;
        size[id] = bytes;
        inUse[id] = false;
        requested[id] = 0;
        return id;
    }

    /** Takes chunk {@code c} out of its region's list and keeps its id for reuse. */
    private void unlink(int c) {
        int before = prev[c];
        int after = next[c];
        if (before != NONE) {
            next[before] = after;
        }
        if (after != NONE) {
            prev[after] = before;
        }
        if (spares == spare.length) {
            spare = Arrays.copyOf(spare, 2 * spares);
        }
        spare[spares++] = c;
    }

    private static int binOf(long bytes) {
        int bin = 63 - Long.numberOfLeadingZeros(bytes / ALIGNMENT);
        return Math.min(bin, BINS - 1);
    }

    private void addFree(int c) {
        int bin = binOf(size[c]);
        int n = binCount[bin];
        int[] ids = bins[bin];
        if (ids == null) {
            ids = bins[bin] = new int[4];
        } else if (n == ids.length) {
            ids = bins[bin] = Arrays.copyOf(ids, 2 * n);
        }
        int at = lowerBound(bin, size[c], address[c]);
        System.arraycopy(ids, at, ids, at + 1, n - at);
        ids[at] = c;
        binCount[bin] = n + 1;
        nonEmptyBins |= 1L << bin;
    }

    private void removeFree(int c) {
        int bin = binOf(size[c]);
        int n = binCount[bin];
        int[] ids = bins[bin];
        int at = lowerBound(bin, size[c], address[c]);
        if (at >= n || ids[at] != c) {
            throw new IllegalStateException("the arena replay lost free chunk " + c);
        }
        System.arraycopy(ids, at + 1, ids, at, n - at - 1);
        binCount[bin] = n - 1;
        if (n == 1) {
            nonEmptyBins &= ~(1L << bin);
        }
    }

    /** The first position in {@code bin} whose chunk sorts at or after (bytes, at). */
    private int lowerBound(int bin, long bytes, long at) {
        int[] ids = bins[bin];
        int lo = 0;
        int hi = binCount[bin];
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int c = ids[mid];
            if (size[c] < bytes || (size[c] == bytes && address[c] < at)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
