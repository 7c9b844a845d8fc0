// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a {@link PictureData} as a static SVG for documents: a header with the figures, the
 * live-bytes curve with the lower bound and the peak marked, and the arena: one
 * {@code <rect class="owner">} per owner from its def to its last use, at its offset, as tall as its
 * bytes, coloured by op type, with a legend. The arena group carries its geometry as
 * {@code data-*} attributes and each owner rectangle its interval, offset and bytes, so a reader
 * (or a test) can check the drawing against the plan.
 */
final class SvgWriter {
    /** Total width of the picture in SVG user units (pixels). */
    static final int WIDTH = 1200;
    private static final int LEFT = 90;
    private static final int RIGHT = 30;
    private static final int HEADER = 64;
    private static final int CURVE_HEIGHT = 130;
    private static final int GAP = 36;
    private static final int ARENA_HEIGHT = 480;
    private static final int AXIS = 40;
    private static final int LEGEND_ROW = 20;

    private SvgWriter() {
    }

    /**
     * The SVG of a picture.
     *
     * @param picture    what to draw
     * @param layoutName {@code offsets} or {@code slots}: which of its plans
     * @return the whole SVG document
     *
     * @throws IllegalArgumentException when the picture has no such layout
     */
    public static String write(PictureData picture, String layoutName) {
        Layout layout = picture.layout(layoutName).orElseThrow(() -> new IllegalArgumentException(
                "the picture has no " + layoutName + " plan; plan it with --strategy " + layoutName));
        OpColors colors = OpColors.of(picture);
        List<String> legend = colors.distinct();
        boolean others = colors.ops().size() > legend.size();
        int legendRows = (legend.size() + (others ? 1 : 0) + 3) / 4;
        int plotWidth = WIDTH - LEFT - RIGHT;
        int curveTop = HEADER;
        int arenaTop = curveTop + CURVE_HEIGHT + GAP;
        int legendTop = arenaTop + ARENA_HEIGHT + AXIS;
        int cfTop = legendTop + legendRows * LEGEND_ROW + 10;
        int height = cfTop + picture.controlFlow().size() * 18 + 10;
        int positions = picture.positions();
        double xScale = (double) plotWidth / positions;
        long peak = layout.peakBytes();
        double yScale = peak == 0 ? 0 : (double) ARENA_HEIGHT / peak;

        StringBuilder svg = new StringBuilder(256 + picture.owners().size() * 220);
        svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
                .append(height).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height)
                .append("\" font-family=\"sans-serif\" font-size=\"12\">\n");
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
        header(svg, picture, layout);
        curve(svg, picture, layout, curveTop, plotWidth, xScale);
        svg.append("<g id=\"arena\" data-layout=\"").append(layout.name()).append("\" data-left=\"").append(LEFT)
                .append("\" data-top=\"").append(arenaTop).append("\" data-width=\"").append(plotWidth)
                .append("\" data-height=\"").append(ARENA_HEIGHT).append("\" data-positions=\"").append(positions)
                .append("\" data-peak=\"").append(peak).append("\">\n");
        svg.append("<rect x=\"").append(LEFT).append("\" y=\"").append(arenaTop).append("\" width=\"")
                .append(plotWidth).append("\" height=\"").append(ARENA_HEIGHT)
                .append("\" fill=\"#fafafa\" stroke=\"#999\"/>\n");
        byteAxis(svg, peak, arenaTop, ARENA_HEIGHT, yScale);
        if (layout.hasSlots()) {
            slotLanes(svg, layout, arenaTop, plotWidth, yScale);
        }
        List<DrawnOwner> owners = picture.owners();
        for (int i = 0; i < owners.size(); i++) {
            DrawnOwner o = owners.get(i);
            long offset = layout.offsets()[i];
            double x = LEFT + o.def() * xScale;
            double w = (o.useEnd() - o.def() + 1) * xScale;
            double y = arenaTop + ARENA_HEIGHT - (offset + o.bytes()) * yScale;
            double h = o.bytes() * yScale;
            svg.append("<rect class=\"owner\" data-value=\"").append(o.valueId()).append("\" data-def=\"")
                    .append(o.def()).append("\" data-end=\"").append(o.useEnd()).append("\" data-offset=\"")
                    .append(offset).append("\" data-bytes=\"").append(o.bytes()).append('"');
            if (layout.hasSlots()) {
                svg.append(" data-slot=\"").append(layout.slots()[i]).append('"');
            }
            svg.append(" x=\"").append(num(x)).append("\" y=\"").append(num(y)).append("\" width=\"").append(num(w))
                    .append("\" height=\"").append(num(h)).append("\" fill=\"").append(colors.color(o.opType()))
                    .append("\" stroke=\"#333\" stroke-width=\"0.3\"><title>").append(Escape.xml(o.name()))
                    .append(" (").append(Escape.xml(o.opType())).append(") ").append(Escape.xml(o.boundShape()))
                    .append(' ').append(Escape.xml(o.dataType())).append(", ").append(ByteUnits.human(o.bytes()))
                    .append(", positions ").append(o.def()).append('-').append(o.useEnd()).append(", offset ")
                    .append(offset);
            for (DrawnOwner.Segment seg : o.inPlace()) {
                svg.append("; then in place from position ").append(seg.def()).append(": ")
                        .append(Escape.xml(seg.name())).append(" (").append(Escape.xml(seg.opType())).append(')');
            }
            svg.append("</title></rect>\n");
            for (DrawnOwner.Segment seg : o.inPlace()) { // one buffer, its in-place segments split by a line
                double sx = LEFT + seg.def() * xScale;
                svg.append("<line class=\"in-place\" data-value=\"").append(o.valueId()).append("\" data-def=\"")
                        .append(seg.def()).append("\" x1=\"").append(num(sx)).append("\" x2=\"").append(num(sx))
                        .append("\" y1=\"").append(num(y)).append("\" y2=\"").append(num(y + h))
                        .append("\" stroke=\"#fff\" stroke-width=\"1\" stroke-dasharray=\"2 1\"/>\n");
            }
        }
        svg.append("</g>\n");
        positionAxis(svg, positions, arenaTop + ARENA_HEIGHT, xScale);
        legend(svg, colors, legend, others, legendTop);
        controlFlow(svg, picture, cfTop);
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static void header(StringBuilder svg, PictureData p, Layout layout) {
        svg.append("<text x=\"").append(LEFT).append("\" y=\"22\" font-size=\"16\" font-weight=\"bold\">")
                .append(Escape.xml(p.title())).append(" (").append(layout.name()).append(" plan)</text>\n");
        double savings = p.naiveBytes() == 0 ? 0 : 1.0 - (double) layout.peakBytes() / p.naiveBytes();
        StringBuilder line = new StringBuilder();
        if (!p.bindings().isEmpty()) {
            line.append(bindings(p.bindings())).append("   ");
        }
        line.append("peak ").append(ByteUnits.human(layout.peakBytes())).append("   naive ")
                .append(ByteUnits.human(p.naiveBytes())).append("   lower bound ")
                .append(ByteUnits.human(p.lowerBoundBytes())).append(String.format(Locale.ROOT,
                        "   savings %.1f%%   owners %d   positions %d", 100 * savings, p.owners().size(),
                        p.positions()));
        svg.append("<text x=\"").append(LEFT).append("\" y=\"44\">").append(Escape.xml(line.toString()))
                .append("</text>\n");
    }

    /** {@code batch=1, seq=128}. */
    static String bindings(Map<String, Long> bindings) {
        StringBuilder out = new StringBuilder();
        bindings.forEach((k, v) -> out.append(out.length() == 0 ? "" : ", ").append(k).append('=').append(v));
        return out.toString();
    }

    private static void curve(StringBuilder svg, PictureData p, Layout layout, int top, int plotWidth, double xScale) {
        long max = Math.max(1, Math.max(layout.peakBytes(), p.lowerBoundBytes()));
        double yScale = (double) CURVE_HEIGHT / max;
        svg.append("<g id=\"live\">\n<rect x=\"").append(LEFT).append("\" y=\"").append(top).append("\" width=\"")
                .append(plotWidth).append("\" height=\"").append(CURVE_HEIGHT)
                .append("\" fill=\"#fafafa\" stroke=\"#999\"/>\n");
        svg.append("<text x=\"").append(LEFT - 6).append("\" y=\"").append(top + 12)
                .append("\" text-anchor=\"end\">live</text>\n");
        StringBuilder points = new StringBuilder();
        long[] live = p.liveBytes();
        double base = top + CURVE_HEIGHT;
        for (int i = 0; i < live.length; i++) {
            double y = base - live[i] * yScale;
            points.append(num(LEFT + i * xScale)).append(',').append(num(y)).append(' ')
                    .append(num(LEFT + (i + 1) * xScale)).append(',').append(num(y)).append(' ');
        }
        svg.append("<polyline fill=\"none\" stroke=\"#4e79a7\" stroke-width=\"1.2\" points=\"")
                .append(points.toString().trim()).append("\"/>\n");
        double boundY = base - p.lowerBoundBytes() * yScale;
        double peakY = base - layout.peakBytes() * yScale;
        double boundX = LEFT + (p.boundPosition() + 0.5) * xScale;
        svg.append("<line id=\"peak-line\" x1=\"").append(LEFT).append("\" x2=\"").append(LEFT + plotWidth)
                .append("\" y1=\"").append(num(peakY)).append("\" y2=\"").append(num(peakY))
                .append("\" stroke=\"#e15759\" stroke-dasharray=\"6 3\"/>\n");
        svg.append("<text x=\"").append(LEFT + plotWidth - 4).append("\" y=\"").append(num(peakY - 3))
                .append("\" text-anchor=\"end\" fill=\"#e15759\">peak ").append(ByteUnits.human(layout.peakBytes()))
                .append("</text>\n");
        svg.append("<line id=\"bound-line\" x1=\"").append(LEFT).append("\" x2=\"").append(LEFT + plotWidth)
                .append("\" y1=\"").append(num(boundY)).append("\" y2=\"").append(num(boundY))
                .append("\" stroke=\"#59a14f\" stroke-dasharray=\"2 2\"/>\n");
        svg.append("<line x1=\"").append(num(boundX)).append("\" x2=\"").append(num(boundX)).append("\" y1=\"")
                .append(top).append("\" y2=\"").append(num(base)).append("\" stroke=\"#59a14f\"/>\n");
        boolean leftSide = p.boundPosition() > p.positions() / 2;
        svg.append("<text x=\"").append(num(boundX + (leftSide ? -4 : 4))).append("\" y=\"")
                .append(num(Math.min(base - 4, boundY + 14))).append("\" text-anchor=\"")
                .append(leftSide ? "end" : "start").append("\" fill=\"#2f6b2a\">lower bound ")
                .append(ByteUnits.human(p.lowerBoundBytes())).append(" at position ").append(p.boundPosition())
                .append(" (").append(Escape.xml(p.boundNode())).append(")</text>\n</g>\n");
    }

    private static void byteAxis(StringBuilder svg, long peak, int top, int height, double yScale) {
        for (long t : Ticks.bytes(peak, 6)) {
            double y = top + height - t * yScale;
            svg.append("<line x1=\"").append(LEFT - 4).append("\" x2=\"").append(LEFT).append("\" y1=\"")
                    .append(num(y)).append("\" y2=\"").append(num(y)).append("\" stroke=\"#333\"/>");
            svg.append("<text x=\"").append(LEFT - 6).append("\" y=\"").append(num(y + 4))
                    .append("\" text-anchor=\"end\">").append(ByteUnits.human(t)).append("</text>\n");
        }
    }

    private static void positionAxis(StringBuilder svg, int positions, int y, double xScale) {
        for (int t : Ticks.positions(positions, 10)) {
            double x = LEFT + t * xScale;
            svg.append("<line x1=\"").append(num(x)).append("\" x2=\"").append(num(x)).append("\" y1=\"").append(y)
                    .append("\" y2=\"").append(y + 4).append("\" stroke=\"#333\"/>");
            svg.append("<text x=\"").append(num(x)).append("\" y=\"").append(y + 16)
                    .append("\" text-anchor=\"middle\">").append(t).append("</text>\n");
        }
        svg.append("<text x=\"").append(WIDTH - RIGHT).append("\" y=\"").append(y + 32)
                .append("\" text-anchor=\"end\">execution position (node order)</text>\n");
    }

    private static void slotLanes(StringBuilder svg, Layout layout, int top, int plotWidth, double yScale) {
        long base = 0;
        for (int s = 0; s < layout.slotCapacities().length; s++) {
            base += layout.slotCapacities()[s];
            double y = top + ARENA_HEIGHT - base * yScale;
            svg.append("<line class=\"lane\" x1=\"").append(LEFT).append("\" x2=\"").append(LEFT + plotWidth)
                    .append("\" y1=\"").append(num(y)).append("\" y2=\"").append(num(y))
                    .append("\" stroke=\"#ccc\" stroke-width=\"0.5\"/>\n");
        }
    }

    private static void legend(StringBuilder svg, OpColors colors, List<String> legend, boolean others, int top) {
        int colWidth = (WIDTH - LEFT - RIGHT) / 4;
        int i = 0;
        for (String op : legend) {
            legendItem(svg, top, colWidth, i++, colors.color(op), op + " (" + colors.count(op) + ")");
        }
        if (others) {
            int rest = colors.ops().size() - legend.size();
            legendItem(svg, top, colWidth, i, OpColors.OTHER, "other (" + rest + " op types)");
        }
    }

    private static void legendItem(StringBuilder svg, int top, int colWidth, int i, String color, String label) {
        int x = LEFT + (i % 4) * colWidth;
        int y = top + (i / 4) * LEGEND_ROW;
        svg.append("<rect class=\"legend\" x=\"").append(x).append("\" y=\"").append(y).append("\" width=\"12\" height=\"12\" fill=\"")
                .append(color).append("\"/><text x=\"").append(x + 18).append("\" y=\"").append(y + 11).append("\">")
                .append(Escape.xml(label)).append("</text>\n");
    }

    private static void controlFlow(StringBuilder svg, PictureData p, int top) {
        int y = top;
        for (ControlFlowPanel cf : p.controlFlow()) {
            StringBuilder line = new StringBuilder(cf.opType() + " " + cf.nodeName() + " at position " + cf.position()
                    + ": transient need " + (cf.transientNeed().isPresent()
                    ? ByteUnits.human(cf.transientNeed().getAsLong()) : "deferred") + " (");
            for (int b = 0; b < cf.bodies().size(); b++) {
                ControlFlowPanel.Body body = cf.bodies().get(b);
                line.append(b == 0 ? "" : ", ").append(body.attribute()).append(' ')
                        .append(body.needBytes().isPresent() ? ByteUnits.human(body.needBytes().getAsLong()) : "deferred");
            }
            line.append(')');
            y += 18;
            svg.append("<text class=\"control-flow\" x=\"").append(LEFT).append("\" y=\"").append(y).append("\">")
                    .append(Escape.xml(line.toString())).append("</text>\n");
        }
    }

    /** A coordinate with at most three decimals, no exponent. */
    private static String num(double v) {
        String s = String.format(Locale.ROOT, "%.3f", v);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}
