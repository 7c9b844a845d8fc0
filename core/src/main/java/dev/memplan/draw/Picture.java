// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import dev.memplan.ActivationPlan;
import dev.memplan.server.OnnxPlan;
import java.util.List;
import java.util.Map;

/**
 * The picture of complete plans of one graph: x is the execution position, y the address in the
 * arena (or the slot lane). Drawn as a self-contained interactive HTML page ({@link #html()}) or a
 * static SVG ({@link #svg()}); {@link #textTimeline} draws one plan for the terminal. A picture draws
 * the plans it is given and plans nothing itself. Immutable.
 *
 * <pre>{@code
 * Picture picture = Picture.of("model", bindings, List.of(offsetsPlan, slotsPlan));
 * Files.writeString(Path.of("plan.html"), picture.html());
 * }</pre>
 */
public final class Picture {
    private final PictureData data;

    private Picture(PictureData data) {
        this.data = data;
    }

    /**
     * The picture of {@code plans}, complete plans of one graph made with different strategies;
     * the first is shown first.
     *
     * @param title    what the picture is of
     * @param bindings the symbol values the plans were made at
     * @param plans    complete plans of one graph, one per strategy
     * @return the picture
     * @throws IllegalArgumentException when there is no plan or the plans are of different graphs
     */
    public static Picture of(String title, Map<String, Long> bindings, List<ActivationPlan> plans) {
        return new Picture(PictureBuilder.of(title, bindings, plans));
    }

    /**
     * The picture of an ONNX model planned once per strategy ({@code plans} made with the same
     * bindings); each control-flow body gets its own picture, of the body plans that the outer plans
     * carry ({@link OnnxPlan.NodeNeed#bodyPlans()}).
     *
     * @param title what the picture is of
     * @param plans the model's plans, one per strategy, all at the same bindings
     * @return the picture, with a picture per control-flow body
     * @throws IllegalArgumentException when a plan is deferred: name what to bind first
     */
    public static Picture ofOnnx(String title, List<OnnxPlan> plans) {
        return new Picture(PictureBuilder.ofOnnx(title, plans));
    }

    /**
     * The compact text picture of one plan for the terminal: rows are execution positions (or
     * buckets of them), columns the arena, each cell the letter of the owner there ({@code .} where
     * free), then the key of the largest owners, escaped.
     *
     * @param plan    a complete plan
     * @param columns cells across the arena
     * @param maxRows rows at most; positions are bucketed to fit
     * @return the picture, one line per row, then the key
     * @throws IllegalArgumentException when {@code columns} or {@code maxRows} is below 1
     */
    public static String textTimeline(ActivationPlan plan, int columns, int maxRows) {
        return TextTimeline.render(plan, columns, maxRows);
    }

    /** {@return the tensors (buffer owners) drawn} */
    public int tensors() {
        return data.owners().size();
    }

    /** {@return the layouts drawn, one per planned strategy ({@code offsets}, {@code slots}), the first shown first} */
    public List<String> layouts() {
        return data.layouts().stream().map(Layout::name).toList();
    }

    /** {@return the static SVG of the first layout} */
    public String svg() {
        return SvgWriter.write(data, data.layouts().get(0).name());
    }

    /** {@return the self-contained HTML page, which toggles between the layouts} */
    public String html() {
        return HtmlWriter.write(data);
    }
}
