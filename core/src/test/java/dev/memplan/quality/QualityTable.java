// SPDX-License-Identifier: Apache-2.0
package dev.memplan.quality;

import dev.memplan.EngineMode;
import dev.memplan.engine.PlanningEngine;
import dev.memplan.generate.HardPackingGenerator;
import dev.memplan.onnx.DocumentedModels;
import dev.memplan.testing.TestEngines;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The plan-quality tables in Markdown: peak / lower bound for slots and offsets over the shared
 * models and the generators, a summary per family (with the seeded random graphs), and the hard
 * packing instances. {@link #main} prints them for docs/performance.md; OffsetQualityTest prints the same
 * tables before it asserts the targets.
 *
 * <p>Run from the project root:
 * {@code mvn -q test-compile exec:java -Dexec.mainClass=dev.memplan.quality.QualityTable -Dexec.classpathScope=test}
 * (add {@code -Dmemplan.engine=java} for the Java engine, {@code -Dmemplan.quality.effort=N} to pack
 * the hard instances at another effort than pack's default).
 */
public final class QualityTable {
    private QualityTable() {
    }

    /** Measures every case set and prints the tables. */
    public static void main(String[] args) {
        List<QualityRow> rows = new ArrayList<>();
        if (!DocumentedModels.present()) {
            System.out.println("(no shared models at " + DocumentedModels.where() + ": model rows left out)\n");
        }
        rows.addAll(measureAll(QualityCases.sharedModels()));
        rows.addAll(measureAll(QualityCases.generators()));
        List<QualityRow> random = measureAll(QualityCases.randomGraphs());
        PlanningEngine engine = TestEngines.current();
        int effort = Integer.getInteger("memplan.quality.effort", HardPackingQuality.PACK_DEFAULT_EFFORT);
        List<HardPackingRow> hard = new ArrayList<>();
        for (long seed = 1; seed <= HardPackingQuality.HARD_SEEDS; seed++) {
            hard.add(HardPackingQuality.measure(HardPackingGenerator.generate(seed), engine, effort));
        }
        System.out.println("engine " + engine.name() + " (memplan.engine=" + EngineMode.fromSystemProperty() + ")\n");
        System.out.println(casesTable(rows));
        List<QualityRow> all = new ArrayList<>(rows);
        all.addAll(random);
        System.out.println(summaryTable(all));
        System.out.println(hardTable(hard, effort));
    }

    /** The rows of every case that plans completely (deferred cases are left out). */
    public static List<QualityRow> measureAll(List<QualityCase> cases) {
        List<QualityRow> rows = new ArrayList<>();
        for (QualityCase c : cases) {
            QualityMeasure.measure(c).ifPresent(rows::add);
        }
        return rows;
    }

    /** One line per case: family, case, owners, bound, slots and offsets peak / bound. */
    public static String casesTable(List<QualityRow> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append("| family | case | owners | lower bound | slots peak / bound | offsets peak / bound |\n");
        sb.append("|---|---|---:|---:|---:|---:|\n");
        for (QualityRow r : rows) {
            sb.append(String.format(Locale.ROOT, "| %s | %s | %,d | %s | %.3f | %.3f |%n", r.family(),
                    r.name().replace("|", "\\|"), r.owners(), bytes(r.boundBytes()), r.slotsRatio(),
                    r.offsetsRatio()));
        }
        return sb.toString();
    }

    /** Per family (in first-seen order): cases, geomean and worst of each strategy. */
    public static String summaryTable(List<QualityRow> rows) {
        Map<String, List<QualityRow>> byFamily = new LinkedHashMap<>();
        for (QualityRow r : rows) {
            byFamily.computeIfAbsent(r.family(), k -> new ArrayList<>()).add(r);
        }
        StringBuilder sb = new StringBuilder();
        sb.append("| family | cases | slots geomean | slots worst | offsets geomean | offsets worst |\n");
        sb.append("|---|---:|---:|---:|---:|---:|\n");
        byFamily.forEach((family, list) -> sb.append(summaryLine(family, list)));
        sb.append(summaryLine("all", rows));
        return sb.toString();
    }

    private static String summaryLine(String family, List<QualityRow> rows) {
        List<Double> slots = rows.stream().map(QualityRow::slotsRatio).toList();
        List<Double> offsets = rows.stream().map(QualityRow::offsetsRatio).toList();
        return String.format(Locale.ROOT, "| %s | %d | %.3f | %.3f | %.3f | %.3f |%n", family, rows.size(),
                Ratios.geomean(slots), Ratios.max(slots), Ratios.geomean(offsets), Ratios.max(offsets));
    }

    /** One line per hard instance: greedy by size and the offsets planner against the bound, then the geomeans. */
    public static String hardTable(List<HardPackingRow> rows, int effort) {
        StringBuilder sb = new StringBuilder();
        sb.append("| hard instance | buffers | greedy by size / bound | offsets (effort ").append(effort)
                .append(") / bound |\n");
        sb.append("|---|---:|---:|---:|\n");
        for (HardPackingRow r : rows) {
            sb.append(String.format(Locale.ROOT, "| %s | %d | %.3f | %.3f |%n", r.instance(), r.buffers(),
                    r.greedyRatio(), r.offsetsRatio()));
        }
        sb.append(String.format(Locale.ROOT, "| geomean | | %.3f | %.3f |%n",
                Ratios.geomean(rows.stream().map(HardPackingRow::greedyRatio).toList()),
                Ratios.geomean(rows.stream().map(HardPackingRow::offsetsRatio).toList())));
        return sb.toString();
    }

    private static String bytes(long b) {
        return String.format(Locale.ROOT, "%,d", b);
    }
}
