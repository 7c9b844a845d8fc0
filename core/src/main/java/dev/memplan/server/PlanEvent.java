// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR event {@code dev.memplan.Plan}: one request planned on a {@link CompiledModel}, directly or
 * through a {@link PlanCache} (then {@code cacheHit} says whether the plan was reused). Byte fields
 * are -1 when the plan is deferred (a symbol unbound).
 */
@Name("dev.memplan.Plan")
@Label("memplan plan")
@Category({"memplan"})
@Description("One request's activation plan: sizes from the bindings, then the allocation")
@StackTrace(false)
final class PlanEvent extends Event {
    @Label("Model")
    String model;

    @Label("Engine")
    @Description("native or java")
    String engine;

    @Label("Bindings")
    @Description("Symbol bindings planned at (after bucketing), e.g. {batch_size=4, sequence_length=512}")
    String bindings;

    @Label("Owners")
    int owners;

    @Label("Peak")
    @Description("Bytes of the outer plan's arena")
    @DataAmount
    long peakBytes;

    @Label("Lower bound")
    @Description("Most bytes live at any one position: no plan reserves less")
    @DataAmount
    long lowerBoundBytes;

    @Label("Admission")
    @Description("Peak plus the largest transient need of an If/Loop/Scan body")
    @DataAmount
    long admissionBytes;

    @Label("Cache hit")
    @Description("True when a PlanCache returned a plan it already held")
    boolean cacheHit;

    @Label("Cached")
    @Description("True when the request went through a PlanCache")
    boolean cached;
}
