// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import java.time.Duration;

/**
 * A snapshot of a {@link PlanCache}'s figures since it was made, like Caffeine's {@code CacheStats}.
 * Counters are read one after the other while other threads may plan, so they can be a request
 * apart; each is exact on its own.
 *
 * @param hits      requests answered with a plan the cache held
 * @param misses    requests that had to plan
 * @param deferred  misses whose plan was deferred (a symbol unbound), returned but not cached
 * @param evictions plans dropped to keep the cache within its bound
 * @param size      plans held now
 * @param planTime  time spent planning the misses, in total
 */
public record PlanCacheStats(long hits, long misses, long deferred, long evictions, long size, Duration planTime) {

    /** {@return hits plus misses} */
    public long requests() {
        return hits + misses;
    }

    /** {@return hits over requests; 1.0 when there were none, as Caffeine reports it} */
    public double hitRate() {
        long r = requests();
        return r == 0 ? 1.0 : (double) hits / r;
    }

    /** {@return the mean time to plan a miss; zero when there were none} */
    public Duration averagePlanTime() {
        return misses == 0 ? Duration.ZERO : planTime.dividedBy(misses);
    }
}
