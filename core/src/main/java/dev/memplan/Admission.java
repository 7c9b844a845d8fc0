// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Admission questions over one compiled {@link Reservation}, answered by re-planning without
 * walking the graph again. Pass a {@link Schedule} for a plain graph; pass a compiled ONNX model
 * ({@code dev.memplan.server.CompiledModel}) so the transient need of If/Loop/Scan bodies is
 * counted too.
 */
public final class Admission {
    private Admission() {
    }

    /**
     * What an admission search found.
     *
     * @param largest      the largest fitting value, or empty when even 1 does not fit
     * @param searchedUpTo the top of the range searched: {@code max}, or the model's limit where
     *                     that is lower
     * @param modelLimit   the largest value the model accepts for the symbol
     *                     ({@link Reservation#limit}), empty when it imposes none
     */
    public record Answer(OptionalLong largest, long searchedUpTo, OptionalLong modelLimit) {

        /** {@return true when the model's limit, not {@code max}, bounded the search} */
        public boolean limitedByModel() {
            return modelLimit.isPresent() && modelLimit.getAsLong() == searchedUpTo;
        }

        @Override
        public String toString() {
            String top = limitedByModel() ? searchedUpTo + " (the model's limit)" : String.valueOf(searchedUpTo);
            return largest.isPresent() ? "largest fitting " + largest.getAsLong() + " of at most " + top
                    : "nothing fits, not even 1 (searched up to " + top + ")";
        }
    }

    /**
     * The largest value of {@code symbol} in {@code [1, max]} whose plan, with the other symbols at
     * {@code others}, reserves at most {@code budgetBytes}; empty when even 1 does not fit. Only
     * values the model accepts are searched: the range stops at the model's limit
     * ({@link Reservation#limit}, MiniLM's {@code sequence_length <= 512}); {@link #search} says
     * whether the limit bounded the answer.
     *
     * <p>Sizes never shrink as a symbol grows, so the plan made at the answer is valid for every
     * request at or below it (with either strategy: an offsets plan's placed ranges only shrink): a
     * server can admit those requests against that one reservation.
     *
     * <p>The search is a binary search on the peak. A heuristic planner's peak need not be
     * monotone in the symbol (an offsets plan at a larger length can happen to pack better), so the
     * search relies on no monotonicity for soundness: it keeps the invariant
     * {@code peak(fits) <= budget < peak(over)} and only ever answers a value whose own plan was
     * made and found to fit (1 and the top are planned first), so the answer always fits the
     * budget and the next value does not. Where the peak is not monotone, a larger value further
     * up may fit too: the answer is then a largest fitting value of its neighbourhood, not
     * necessarily of the whole range. A candidate the model rejects in another way (a relation it
     * breaks, a size that overflows) counts as not fitting.
     *
     * @param schedule the compiled graph or model to plan on
     * @param symbol the symbol to search over
     * @param others bindings of every other symbol
     * @param budgetBytes the bytes a request may reserve
     * @param max the largest value to consider, >= 1
     * @return the largest fitting value, or empty when 1 does not fit
     * @throws IllegalArgumentException when {@code max} is below 1 or a symbol other than
     *                                  {@code symbol} is left unbound, or naming
     *                                  {@code symbol} and the model's symbols when it has no such
     *                                  symbol (or, for a compiled model, when {@code others} binds
     *                                  one it does not have)
     * @throws InvalidSizeException     naming the symbol when {@code others} binds one to a negative
     *                                  value
     * @throws NullPointerException     naming what is null: the symbol, {@code others}, or a symbol
     *                                  or value in it
     * @throws InvalidSizeException     when the sizes overflow even at {@code symbol = 1}
     * @throws MemplanException         when the model rejects {@code others} with {@code symbol = 1}
     *                                  (a {@code BindingConflictException} naming the node)
     */
    public static OptionalLong largestFitting(Reservation schedule, String symbol, Map<String, Long> others,
                                              long budgetBytes, long max) {
        return search(schedule, symbol, others, budgetBytes, max).largest();
    }

    /**
     * {@link #largestFitting}, with the range it searched and the model's limit.
     *
     * @param schedule the compiled graph or model to plan on
     * @param symbol the symbol to search over
     * @param others bindings of every other symbol
     * @param budgetBytes the bytes a request may reserve
     * @param max the largest value to consider, >= 1
     * @return the answer
     * @throws IllegalArgumentException when {@code max} is below 1, the model's limit is below 1, or
     *                                  a symbol other than {@code symbol} is left unbound, or naming
     *                                  {@code symbol} and the model's symbols when it has no such
     *                                  symbol (or, for a compiled model, when {@code others} binds
     *                                  one it does not have)
     * @throws InvalidSizeException     naming the symbol when {@code others} binds one to a negative
     *                                  value
     * @throws NullPointerException     naming what is null: the symbol, {@code others}, or a symbol
     *                                  or value in it
     * @throws InvalidSizeException     when the sizes overflow even at {@code symbol = 1}
     * @throws MemplanException         when the model rejects {@code others} with {@code symbol = 1}
     */
    public static Answer search(Reservation schedule, String symbol, Map<String, Long> others, long budgetBytes,
                                long max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be >= 1, got " + max);
        }
        requireKnownSymbol(schedule, symbol, others);
        OptionalLong limit = schedule.limit(symbol);
        long top = limit.isPresent() ? Math.min(max, limit.getAsLong()) : max;
        if (top < 1) {
            throw new IllegalArgumentException("the model accepts no " + symbol + " >= 1 (its limit is "
                    + limit.getAsLong() + ")");
        }
        if (peakAt(schedule, symbol, others, 1) > budgetBytes) {
            return new Answer(OptionalLong.empty(), top, limit);
        }
        if (fits(schedule, symbol, others, top, budgetBytes)) {
            return new Answer(OptionalLong.of(top), top, limit);
        }
        long fits = 1; // peak(fits) <= budget < peak(over)
        long over = top;
        while (over - fits > 1) {
            long mid = fits + (over - fits) / 2;
            if (fits(schedule, symbol, others, mid, budgetBytes)) {
                fits = mid;
            } else {
                over = mid;
            }
        }
        return new Answer(OptionalLong.of(fits), top, limit);
    }

    /**
     * Refuses a search over a symbol the model does not have: its plans would not depend on it, and
     * the search would answer its upper limit as if every value fitted.
     */
    private static void requireKnownSymbol(Reservation schedule, String symbol, Map<String, Long> others) {
        Objects.requireNonNull(schedule, "the schedule or model to search is null");
        if (symbol == null) {
            throw new NullPointerException("the symbol to search over is null; name one of "
                    + schedule.symbolNames());
        }
        if (others == null) {
            throw new NullPointerException("the other symbols' bindings are null; pass a map (an empty map when"
                    + " there are none)");
        }
        if (!schedule.symbolNames().contains(symbol)) {
            throw new IllegalArgumentException("there is no symbol '" + symbol + "' to search over; the symbols are "
                    + schedule.symbolNames() + ": correct the name");
        }
    }

    /**
     * Whether the plan at {@code symbol = value} fits; sizes too large for a 64-bit count, or a
     * value the model rejects, fit no budget (1 was accepted, so it is {@code value} at fault).
     */
    private static boolean fits(Reservation schedule, String symbol, Map<String, Long> others, long value,
                                long budgetBytes) {
        try {
            return peakAt(schedule, symbol, others, value) <= budgetBytes;
        } catch (EngineUnavailableException e) {
            throw e;
        } catch (MemplanException e) {
            return false; // an overflowing size, or a relation of the model the value breaks
        }
    }

    /**
     * The bytes to reserve with {@code symbol = value} and the other symbols at {@code others}.
     *
     * @param schedule the compiled graph or model to plan on
     * @param symbol the symbol to set
     * @param others bindings of every other symbol
     * @param value the value of {@code symbol}
     * @return the bytes to reserve
     * @throws IllegalArgumentException naming the unbound symbols when the plan is deferred
     * @throws InvalidSizeException     when a size or the total overflows a 64-bit byte count
     */
    public static long peakAt(Reservation schedule, String symbol, Map<String, Long> others, long value) {
        Map<String, Long> bindings = new HashMap<>(others);
        bindings.put(symbol, value);
        OptionalLong peak = schedule.reservationBytes(bindings);
        if (peak.isEmpty()) {
            throw new IllegalArgumentException("the plan at " + bindings + " is deferred: bind every symbol of "
                    + schedule.symbolNames());
        }
        return peak.getAsLong();
    }

    /**
     * Something that can say how many bytes a request must reserve at given symbol bounds: a
     * {@link Schedule} (its plan's peak) or a compiled ONNX model (its outer peak plus the transient
     * need of its If/Loop/Scan bodies). {@link Admission} searches over it.
     *
     * <p>Implementations are thread-safe, and a reservation made at some bounds must hold every request
     * at or below them (sizes only grow with their symbols, so a plan made at the bounds is valid for
     * smaller bindings). The reported bytes need not be monotone in a symbol: a heuristic planner can
     * pack a larger request better; {@link Admission} does not rely on it.
     */
    public interface Reservation {

        /**
         * The bytes to reserve for a request whose symbols are at most {@code bounds} (symbol name to
         * value), or empty when a symbol it needs has no bound. Never zero for an unplannable model.
         *
         * @param bounds upper bound of each symbol
         * @return the bytes to reserve, or empty when the plan is deferred
         * @throws InvalidSizeException naming the value when a size overflows or a dim evaluates negative
         */
        OptionalLong reservationBytes(Map<String, Long> bounds);

        /**
         * The names of the symbols {@link #reservationBytes} needs bound, for error messages.
         *
         * @return symbol names, in first-use order
         */
        Set<String> symbolNames();

        /**
         * The largest value {@code symbol} may take, where the graph or model imposes one (MiniLM's
         * {@code sequence_length <= 512}); {@link Admission} never searches past it.
         *
         * @param symbol a symbol name
         * @return the limit, or empty when there is none (the default)
         */
        default OptionalLong limit(String symbol) {
            return OptionalLong.empty();
        }
    }
}
