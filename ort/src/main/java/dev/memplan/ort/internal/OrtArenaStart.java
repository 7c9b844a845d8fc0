// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

/**
 * The state ONNX Runtime's CPU arena is in when a session's first request arrives, as the replay
 * starts from it: the free chunk the session's own allocations left in the regions made while the
 * session was created, and the size the arena gives its next region. ORT 1.29 and 1.30 reserve
 * every session allocation outside the regions, so their arena starts {@link #EMPTY}; ORT 1.23
 * keeps small weights in a first region, whose rest a request can take (measured by
 * {@link OrtCApi#arenaStart}).
 *
 * @param freeBytes       the free chunk in the session's regions, 0 when none (their in-use part
 *                        is never freed, so nothing merges with it)
 * @param nextRegionBytes the size of the next region the arena adds: 1 MiB, or a larger power of two
 */
public record OrtArenaStart(long freeBytes, long nextRegionBytes) {
    /** An arena without regions: the replay's start before session allocations were measured. */
    public static final OrtArenaStart EMPTY = new OrtArenaStart(0, 1L << 20);

    /**
     * @throws IllegalArgumentException naming the figure that no arena can be in
     */
    public OrtArenaStart {
        if (freeBytes < 0 || freeBytes % BfcArena.ALIGNMENT != 0 || freeBytes > BfcArena.MAX_BLOCK_BYTES) {
            throw new IllegalArgumentException("an arena's free chunk of " + freeBytes + " bytes is not a multiple"
                    + " of 256 from 0 to 2^62; measure the start of a session on ORT's own arena again");
        }
        if (nextRegionBytes < (1L << 20) || Long.bitCount(nextRegionBytes) != 1
                || nextRegionBytes > BfcArena.MAX_BLOCK_BYTES) {
            throw new IllegalArgumentException("an arena's next region of " + nextRegionBytes + " bytes is not a power"
                    + " of two from 1 MiB to 2^62; measure the start of a session on ORT's own arena again");
        }
    }

    /** {@return the start as one line, for {@link #parse}} */
    String format() {
        return freeBytes + " " + nextRegionBytes;
    }

    /**
     * {@return the start {@link #format} wrote}
     *
     * @throws IllegalArgumentException naming the text when it is not one
     */
    static OrtArenaStart parse(String line) {
        String[] parts = line.strip().split(" ");
        try {
            if (parts.length == 2) {
                return new OrtArenaStart(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException("an arena start must be two whole numbers (free bytes, next region),"
                + " not '" + line.strip() + "'; measure the start of a session again");
    }
}
